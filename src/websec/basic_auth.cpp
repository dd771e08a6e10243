#include "websec/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <memory>

#include "net/base64.h"

namespace llmon::websec {
namespace {

constexpr size_t kMaxCached = 1024;
// Checked against when the user is unknown (a hash of a random string, cost 10).
constexpr const char* kDecoyHash = "$2b$10$UT9RKMdzHluW09sQ/KuIu.teqMrFyhvr2Icihw5ka0HaIg5eZ/iL2";

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> parse_basic_authorization(std::string_view h) {
  constexpr std::string_view kBasic = "basic ";
  if (h.size() < kBasic.size()) return std::nullopt;
  for (size_t i = 0; i < kBasic.size(); ++i)
    if ((h[i] | 0x20) != kBasic[i]) return std::nullopt;
  auto decoded = net::base64_decode(h.substr(kBasic.size()));
  if (!decoded) return std::nullopt;
  size_t colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return std::make_pair(decoded->substr(0, colon), decoded->substr(colon + 1));
}

bool bcrypt_matches(std::string_view password, const std::string& hash) {
  auto data = std::make_unique<crypt_data>();
  std::string pw(password);
  const char* out = crypt_rn(pw.c_str(), hash.c_str(), data.get(), sizeof(crypt_data));
  OPENSSL_cleanse(pw.data(), pw.size());
  bool ok = out && out[0] != '*' && constant_time_equal(out, hash);
  OPENSSL_cleanse(data.get(), sizeof(crypt_data));
  return ok;
}

BasicAuthVerifier::BasicAuthVerifier(std::vector<std::pair<std::string, std::string>> users)
    : users_(std::move(users)) {}

size_t BasicAuthVerifier::cached() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ok_.size();
}

bool BasicAuthVerifier::verify(std::string_view user, std::string_view password) {
  const std::string* hash = nullptr;
  for (const auto& [u, h] : users_)
    if (constant_time_equal(u, user)) hash = &h;
  const std::string decoy = kDecoyHash;
  const std::string& against = hash ? *hash : decoy;
  Key key{};
  {
    std::string material(user);
    material += '\0';
    material += against;
    material += '\0';
    material += password;
    unsigned int len = 0;
    EVP_Digest(material.data(), material.size(), key.data(), &len, EVP_sha256(), nullptr);
    OPENSSL_cleanse(material.data(), material.size());
  }
  if (hash) {
    std::lock_guard<std::mutex> lock(mu_);
    bool hit = false;
    for (const Key& k : ok_) hit |= CRYPTO_memcmp(k.data(), key.data(), key.size()) == 0;
    if (hit) return true;
  }
  bool ok = bcrypt_matches(password, against) && hash != nullptr;
  if (ok) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ok_.size() >= kMaxCached) ok_.clear();
    ok_.push_back(key);
  }
  return ok;
}

}  // namespace llmon::websec
