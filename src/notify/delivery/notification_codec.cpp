// Binary Notification codec; layout in notification_codec.h.
#include "notify/delivery/notification_codec.h"

#include <cstdint>

namespace llmon::notify {
namespace {

constexpr uint8_t kVersion = 1;

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_i64(std::string& out, int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((u >> (8 * i)) & 0xFF);
}
void put_str(std::string& out, std::string_view s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}
void put_pairs(std::string& out, const LabelPairs& p) {
  put_u32(out, static_cast<uint32_t>(p.size()));
  for (const auto& [k, v] : p) {
    put_str(out, k);
    put_str(out, v);
  }
}

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return err_.empty(); }
  const std::string& error() const { return err_; }
  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ == in_.size(); }

  uint64_t fixed(int bytes, const char* what) {
    if (!ok()) return 0;
    if (in_.size() - pos_ < static_cast<size_t>(bytes)) {
      fail(what);
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += static_cast<size_t>(bytes);
    return v;
  }
  std::string str(const char* what) {
    const size_t at = pos_;
    const uint64_t n = fixed(4, what);
    if (!ok()) return {};
    if (in_.size() - pos_ < n) {
      pos_ = at;
      fail(what);
      return {};
    }
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  LabelPairs pairs(const char* what) {
    LabelPairs p;
    const uint64_t n = fixed(4, what);
    // Each pair takes at least 8 bytes: a count beyond that is corrupt.
    if (ok() && n > (in_.size() - pos_) / 8) fail(what);
    for (uint64_t i = 0; ok() && i < n; ++i) {
      std::string k = str(what);
      std::string v = str(what);
      if (ok()) p.emplace_back(std::move(k), std::move(v));
    }
    return p;
  }
  void fail(const char* what) {
    if (ok())
      err_ =
          std::string("notification payload truncated or corrupt reading ") + what + " at byte " + std::to_string(pos_);
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  std::string err_;
};

}  // namespace

std::string encode_notification(const Notification& n) {
  std::string out;
  out += static_cast<char>(kVersion);
  put_str(out, n.receiver);
  put_str(out, n.group_key);
  put_pairs(out, n.group_labels);
  put_i64(out, n.created_ms);
  put_str(out, n.external_url);
  put_u32(out, static_cast<uint32_t>(n.alerts.size()));
  for (const Alert& a : n.alerts) {
    put_pairs(out, a.labels);
    put_pairs(out, a.annotations);
    put_i64(out, a.starts_at_ms);
    put_i64(out, a.ends_at_ms);
    put_str(out, a.generator_url);
  }
  return out;
}

Expected<Notification> decode_notification(std::string_view bytes) {
  Reader r(bytes);
  const uint64_t version = r.fixed(1, "the version");
  if (r.ok() && version != kVersion)
    return Status::error("notification payload has version " + std::to_string(version) + ", want " +
                         std::to_string(kVersion));
  Notification n;
  n.receiver = r.str("receiver");
  n.group_key = r.str("group_key");
  n.group_labels = r.pairs("group_labels");
  n.created_ms = static_cast<int64_t>(r.fixed(8, "created_ms"));
  n.external_url = r.str("external_url");
  const uint64_t count = r.fixed(4, "the alert count");
  // An alert takes at least 36 bytes.
  if (r.ok() && count > (bytes.size() - r.pos()) / 36) r.fail("the alert count");
  for (uint64_t i = 0; r.ok() && i < count; ++i) {
    Alert a;
    a.labels = r.pairs("alert labels");
    a.annotations = r.pairs("alert annotations");
    a.starts_at_ms = static_cast<int64_t>(r.fixed(8, "starts_at_ms"));
    a.ends_at_ms = static_cast<int64_t>(r.fixed(8, "ends_at_ms"));
    a.generator_url = r.str("generator_url");
    n.alerts.push_back(std::move(a));
  }
  if (!r.ok()) return Status::error(r.error());
  if (!r.at_end())
    return Status::error("notification payload has " + std::to_string(bytes.size() - r.pos()) +
                         " unexpected bytes after the last alert at byte " + std::to_string(r.pos()));
  return n;
}

}  // namespace llmon::notify
