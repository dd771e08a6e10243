// HTTP basic authentication against basic_auth_users' bcrypt hashes, checked
// by libcrypt (crypt_rn; $2a$/$2b$/$2y$). bcrypt is slow on purpose (cost 10
// is ~50-100 ms), so a successful check is cached, as exporter-toolkit does:
// the key is SHA-256 over user, hash and password (the password itself is
// never kept), compared in constant time; failures are never cached. An
// unknown user costs one bcrypt run too, so timing does not tell users
// apart. Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmon::websec {

// "Basic dXNlcjpwdw==" -> {"user", "pw"}; nullopt when not a Basic credential.
std::optional<std::pair<std::string, std::string>> parse_basic_authorization(std::string_view header);

// libcrypt's check of one password against one bcrypt hash, constant-time compare.
bool bcrypt_matches(std::string_view password, const std::string& hash);

class BasicAuthVerifier {
 public:
  explicit BasicAuthVerifier(std::vector<std::pair<std::string, std::string>> users);
  // True when user is listed and password matches its hash.
  bool verify(std::string_view user, std::string_view password);
  bool empty() const { return users_.empty(); }
  size_t cached() const;

 private:
  using Key = std::array<unsigned char, 32>;
  std::vector<std::pair<std::string, std::string>> users_;
  mutable std::mutex mu_;
  std::vector<Key> ok_;  // successful checks; cleared when kMaxCached is reached
};

}  // namespace llmon::websec
