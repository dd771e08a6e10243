#include "procfs/mountstats.h"

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {
namespace {

constexpr size_t kDeviceFields = 8;  // device D mounted on M with fstype T

// Reads the lines of one file; errors name its file and current line.
class Reader {
 public:
  Reader(std::string_view text, std::string_view file) : lines_(text), file_(file) {}
  // The next line split into fields; false at the end.
  bool next() {
    std::string_view line;
    if (!lines_.next(line)) return false;
    base::split_fields(line, f_);
    return true;
  }
  const std::vector<std::string_view>& fields() const { return f_; }
  Status error(const std::string& message) const {
    return Status::error(base::where(file_, lines_.line_no(), message));
  }
  std::string line_text() const {
    std::string s;
    for (auto f : f_) s += (s.empty() ? "" : " ") + std::string(f);
    return s;
  }

 private:
  base::LineIterator lines_;
  std::string_view file_;
  std::vector<std::string_view> f_;
};

// Go's time.ParseDuration(s + "s").Seconds() for a plain decimal number of
// seconds ([+-]digits[.digits]); nullopt on anything else or overflow.
std::optional<double> duration_seconds(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  constexpr uint64_t kMax = uint64_t{1} << 63;
  uint64_t whole = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (whole > kMax / 10) return std::nullopt;
    whole = whole * 10 + static_cast<uint64_t>(s[i] - '0');
    if (whole > kMax) return std::nullopt;
  }
  bool pre = i > 0, post = false;
  uint64_t frac = 0;
  double scale = 1;
  if (i < s.size() && s[i] == '.') {
    size_t start = ++i;
    bool overflow = false;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (overflow) continue;
      if (frac > (kMax - 1) / 10) {
        overflow = true;
        continue;
      }
      uint64_t y = frac * 10 + static_cast<uint64_t>(s[i] - '0');
      if (y > kMax) {
        overflow = true;
        continue;
      }
      frac = y;
      scale *= 10;
    }
    post = i > start;
  }
  if (i != s.size() || (!pre && !post)) return std::nullopt;
  constexpr uint64_t kSecond = 1000000000;
  if (whole > kMax / kSecond) return std::nullopt;
  uint64_t ns = whole * kSecond;
  if (post) {
    ns += static_cast<uint64_t>(static_cast<double>(frac) * (static_cast<double>(kSecond) / scale));
    if (ns > kMax) return std::nullopt;
  }
  if (!neg && ns == kMax) return std::nullopt;
  int64_t d = neg ? static_cast<int64_t>(0 - ns) : static_cast<int64_t>(ns);
  int64_t sec = d / static_cast<int64_t>(kSecond), nsec = d % static_cast<int64_t>(kSecond);
  return static_cast<double>(sec) + static_cast<double>(nsec) / 1e9;
}

// Fields [from, end) as uint64 into out; false names the first bad one.
Status parse_counters(const Reader& r, size_t from, uint64_t* out) {
  const auto& f = r.fields();
  for (size_t i = from; i < f.size(); ++i) {
    auto v = base::parse_u64(f[i]);
    if (!v) return r.error("invalid number \"" + std::string(f[i]) + "\" in \"" + r.line_text() + "\"");
    out[i - from] = *v;
  }
  return Status::ok();
}

Status parse_transport(const Reader& r, const std::string& version, NfsTransportStats& t) {
  const auto& f = r.fields();  // "xprt:" protocol numbers...
  const std::string_view protocol = f[1];
  size_t want = 0;
  if (version == "1.0" || version == "1.1") {
    const bool v11 = version == "1.1";
    if (protocol == "tcp") want = v11 ? 13 : 10;
    if (protocol == "udp") want = v11 ? 10 : 7;
    if (want == 0)
      return r.error("invalid NFS protocol \"" + std::string(protocol) + "\" in stats " + version + " statement");
  } else {
    return r.error("unrecognized NFS transport stats version \"" + version + "\"");
  }
  if (f.size() - 2 != want)
    return r.error("invalid NFS transport stats " + version + " statement: " + std::to_string(f.size() - 2) +
                   " numbers for " + std::string(protocol) + ", expected " + std::to_string(want));
  uint64_t n[16] = {};
  // udp has no connect count, connect time or idle time: they stay 0.
  const size_t gap = protocol == "udp" ? 3 : 0;
  uint64_t raw[13] = {};
  if (Status s = parse_counters(r, 2, raw); !s) return s;
  for (size_t i = 0; i < want; ++i) n[i < 2 ? i : i + gap] = raw[i];
  t = NfsTransportStats{
      std::string(protocol), n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9], n[10], n[11], n[12]};
  return Status::ok();
}

Status parse_operations(Reader& r, std::vector<NfsOperationStats>& ops) {
  while (r.next()) {
    const auto& f = r.fields();
    if (f.empty()) break;  // the blank line before the next device
    if (f.size() < 9) return r.error("invalid NFS per-operations stats: \"" + r.line_text() + "\"");
    std::vector<uint64_t> n(f.size() - 1);
    if (Status s = parse_counters(r, 1, n.data()); !s) return s;
    std::string_view name = f[0];
    if (!name.empty() && name.back() == ':') name.remove_suffix(1);
    ops.push_back({std::string(name), n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n.size() > 8 ? n[8] : 0});
  }
  return Status::ok();
}

Status parse_nfs(Reader& r, NfsMountStats& s) {
  while (r.next()) {
    const auto& f = r.fields();
    if (f.empty()) break;
    const std::string_view key = f[0];
    if (key == "opts:" || key == "age:" || key == "bytes:" || key == "events:") {
      if (f.size() < 2) return r.error("not enough information for NFS stats: \"" + r.line_text() + "\"");
    }
    if (key == "age:") {
      auto age = duration_seconds(f[1]);
      if (!age) return r.error("invalid NFS age \"" + std::string(f[1]) + "\"");
      s.age_seconds = *age;
    } else if (key == "bytes:") {
      if (f.size() - 1 != kNfsBytesFields)
        return r.error("invalid NFS bytes stats: " + std::to_string(f.size() - 1) + " numbers, expected " +
                       std::to_string(kNfsBytesFields));
      if (Status st = parse_counters(r, 1, s.bytes.data()); !st) return st;
    } else if (key == "events:") {
      if (f.size() - 1 != kNfsEventFields)
        return r.error("invalid NFS events stats: " + std::to_string(f.size() - 1) + " numbers, expected " +
                       std::to_string(kNfsEventFields));
      if (Status st = parse_counters(r, 1, s.events.data()); !st) return st;
    } else if (key == "xprt:") {
      if (f.size() < 3) return r.error("not enough information for NFS transport stats: \"" + r.line_text() + "\"");
      if (Status st = parse_transport(r, s.stat_version, s.transport); !st) return st;
    } else if (key == "per-op") {
      break;
    }
  }
  // The per-operation statistics come last, up to the blank line.
  return parse_operations(r, s.operations);
}

}  // namespace

Expected<std::vector<MountStatsEntry>> parse_mountstats(std::string_view text, std::string_view file) {
  std::vector<MountStatsEntry> out;
  Reader r(text, file);
  while (r.next()) {
    const auto& f = r.fields();
    if (f.empty() || f[0] != "device") continue;
    if (f.size() < kDeviceFields || f[2] != "mounted" || f[3] != "on" || f[5] != "with" || f[6] != "fstype")
      return r.error("invalid device line \"" + r.line_text() + "\" (expected device D mounted on M with fstype T)");
    MountStatsEntry m{std::string(f[1]), std::string(f[4]), std::string(f[7]), std::nullopt};
    if (f.size() > kDeviceFields) {
      if (m.fs_type != "nfs" && m.fs_type != "nfs4")
        return r.error("cannot parse mount statistics for fstype \"" + m.fs_type + "\"");
      std::string_view version = f[8];
      if (base::starts_with(version, "statvers=")) version.remove_prefix(9);
      NfsMountStats s;
      s.stat_version = version;
      if (Status st = parse_nfs(r, s); !st) return st;
      m.nfs = std::move(s);
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace llmon::procfs
