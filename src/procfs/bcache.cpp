#include "procfs/bcache.h"

#include <string>
#include <type_traits>

#include "base/strings.h"
#include "go/strconv.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {
namespace {

// Go's uint64(f) on amd64: CVTTSD2SI below 2^63 (negative values wrap),
// above it CVTTSD2SI(f - 2^63) | 1<<63; CVTTSD2SI of what it cannot represent
// (NaN, out of range) is 1<<63.
uint64_t go_float_to_uint64(double f) {
  constexpr double k2p63 = 9223372036854775808.0;
  auto cvt = [](double v) -> uint64_t {
    if (!(v >= -k2p63 && v < k2p63)) return uint64_t{1} << 63;
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  };
  if (f < k2p63) return cvt(f);
  return cvt(f - k2p63) | uint64_t{1} << 63;
}

Status invalid(std::string_view what, std::string_view text, const std::string& why) {
  return Status::error(std::string(what) + ": invalid value \"" + std::string(text) + "\": " + why);
}

// parsePseudoFloat: "int[.frac[.ignored]]", frac/10.24 added to int.
Expected<double> pseudo_float(std::string_view s, std::string_view what, std::string_view text) {
  size_t dot = s.find('.');
  auto whole = go::parse_float(s.substr(0, dot));
  if (!whole) return invalid(what, text, whole.error());
  if (dot == std::string_view::npos) return *whole;
  std::string_view frac = s.substr(dot + 1);
  frac = frac.substr(0, frac.find('.'));
  auto f = go::parse_float(frac);
  if (!f) return invalid(what, text, f.error());
  return *whole + *f / 10.24;
}

double multiplier(char c) {
  constexpr std::string_view kUnits = "kMGTPEZY";
  size_t i = kUnits.find(c);
  if (i == std::string_view::npos) return 0;  // procfs' map lookup of an unknown unit
  double m = 1;
  for (size_t k = 0; k <= i; ++k) m *= 1024;
  return m;
}

std::string_view last_field(std::string_view line) {
  FieldIter it(line);
  std::string_view f, last;
  while (it.next(f)) last = f;
  return last;
}

std::string_view trim_suffix(std::string_view s, std::string_view suffix) {
  if (s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix) s.remove_suffix(suffix.size());
  return s;
}

// fn(line, line_no) -> Status for each line, as bufio.ScanLines gives them
// (a trailing '\r' dropped); stops at the first error.
template <typename Fn>
Status for_each_line(std::string_view text, Fn&& fn) {
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Status s = fn(line, lines.line_no()); !s) return s;
  }
  return Status::ok();
}

}  // namespace

Expected<uint64_t> bcache_dehumanize(std::string_view text, std::string_view what) {
  if (text.empty()) return Status::error(std::string(what) + ": empty value");
  char last = text.back();
  if (last > '9') {
    auto mant = pseudo_float(text.substr(0, text.size() - 1), what, text);
    if (!mant) return mant.status();
    return go_float_to_uint64(*mant * multiplier(last));
  }
  auto v = go::parse_float(text);
  if (!v) return invalid(what, text, v.error());
  return go_float_to_uint64(*v);
}

Expected<int64_t> bcache_dehumanize_signed(std::string_view text, std::string_view what) {
  bool negative = base::starts_with(text, "-");
  auto v = bcache_dehumanize(negative ? text.substr(1) : text, what);
  if (!v) return v.status();
  return static_cast<int64_t>(negative ? 0 - *v : *v);  // Go's int64(-value): wraps
}

Expected<uint64_t> parse_bcache_value(std::string_view file_text, std::string_view file) {
  if (file_text.empty()) return Status::error(std::string(file) + ": empty file");
  return bcache_dehumanize(file_text.substr(0, file_text.size() - 1), file);
}

Status parse_bcache_writeback_rate_debug(std::string_view text, std::string_view file, BcacheWritebackRateDebug& out) {
  out = {};
  return for_each_line(text, [&](std::string_view line, int line_no) -> Status {
    const std::string w = std::string(file) + ":" + std::to_string(line_no);
    std::string_view value = last_field(line);
    // Dehumanizes v into dst, signed or not as dst is.
    auto into = [&](auto& dst, std::string_view v) -> Status {
      using T = std::remove_reference_t<decltype(dst)>;
      Expected<T> n = [&]() -> Expected<T> {
        if constexpr (std::is_signed_v<T>)
          return bcache_dehumanize_signed(v, w);
        else
          return bcache_dehumanize(v, w);
      }();
      if (!n) return n.status();
      dst = *n;
      return Status::ok();
    };
    Status s;
    if (base::starts_with(line, "rate:")) {
      s = into(out.rate, trim_suffix(value, "/sec"));
    } else if (base::starts_with(line, "dirty:")) {
      s = into(out.dirty, value);
    } else if (base::starts_with(line, "target:")) {
      s = into(out.target, value);
    } else if (base::starts_with(line, "proportional:")) {
      s = into(out.proportional, value);
    } else if (base::starts_with(line, "integral:")) {
      s = into(out.integral, value);
    } else if (base::starts_with(line, "change:")) {
      s = into(out.change, trim_suffix(value, "/sec"));
    } else if (base::starts_with(line, "next io:")) {
      std::string_view ms = trim_suffix(value, "ms");
      auto n = parse_decimal_int(ms);
      if (!n) return invalid(w, value, "not a decimal integer");
      out.next_io_ms = *n;
    }
    return s;
  });
}

Status parse_bcache_priority_stats(std::string_view text, std::string_view file, BcachePriorityStats& out) {
  out = {};
  return for_each_line(text, [&](std::string_view line, int line_no) -> Status {
    uint64_t* dst = base::starts_with(line, "Unused:")     ? &out.unused_percent
                    : base::starts_with(line, "Metadata:") ? &out.metadata_percent
                                                           : nullptr;
    if (dst == nullptr) return Status::ok();
    std::string_view raw = last_field(line);
    auto n = base::parse_u64(trim_suffix(raw, "%"));
    if (!n)
      return Status::error(
          base::where(file, line_no, "invalid percentage \"" + std::string(raw) + "\" (expected e.g. 13%)"));
    *dst = *n;
    return Status::ok();
  });
}

}  // namespace llmon::procfs
