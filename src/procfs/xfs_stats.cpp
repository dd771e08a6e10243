#include "procfs/xfs_stats.h"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "base/strings.h"

namespace llmon::procfs {
namespace {

// The uint32 lines procfs maps, with their value counts.
struct Line {
  std::string_view key;
  size_t count;
  size_t alt_count;  // vnodes: older kernels print 7 (no "free")
};
constexpr Line kLines[] = {
    {"extent_alloc", 4, 4}, {"abt", 4, 4},    {"blk_map", 7, 7}, {"bmbt", 4, 4}, {"dir", 4, 4},
    {"trans", 3, 3},        {"ig", 7, 7},     {"log", 5, 5},     {"rw", 2, 2},   {"attr", 4, 4},
    {"icluster", 3, 3},     {"vnodes", 8, 7}, {"buf", 9, 9},
};

// The array of the line with this key, const or not as s.
template <typename Stats>
auto line_of(Stats& s, std::string_view key)
    -> std::span<std::conditional_t<std::is_const_v<Stats>, const uint32_t, uint32_t>> {
  if (key == "extent_alloc") return s.extent_alloc;
  if (key == "abt") return s.abt;
  if (key == "blk_map") return s.blk_map;
  if (key == "bmbt") return s.bmbt;
  if (key == "dir") return s.dir;
  if (key == "trans") return s.trans;
  if (key == "ig") return s.ig;
  if (key == "log") return s.log;
  if (key == "rw") return s.rw;
  if (key == "attr") return s.attr;
  if (key == "icluster") return s.icluster;
  if (key == "vnodes") return s.vnodes;
  if (key == "buf") return s.buf;
  return {};
}

}  // namespace

std::span<const uint32_t> XfsStats::line(std::string_view key) const {
  return line_of(*this, key);
}

Expected<XfsStats> parse_xfs_stats(std::string_view text, std::string_view file) {
  XfsStats out;
  base::LineIterator lines(text);
  std::string_view line;
  std::vector<std::string_view> f;
  std::vector<uint64_t> v;
  while (lines.next(line)) {
    base::split_fields(line, f);
    if (f.size() < 2) continue;
    const bool wide = f[0] == "xpc";
    const uint64_t max = wide ? std::numeric_limits<uint64_t>::max() : std::numeric_limits<uint32_t>::max();
    v.clear();
    for (size_t i = 1; i < f.size(); ++i) {
      auto n = base::parse_u64(f[i]);
      if (!n || *n > max)
        return Status::error(base::where(file, lines.line_no(),
                                         std::string(f[0]) + ": value " + std::to_string(i) + " is not a uint" +
                                             (wide ? "64" : "32") + ": \"" + std::string(f[i]) + "\""));
      v.push_back(*n);
    }
    auto bad_count = [&](size_t want) {
      return Status::error(base::where(
          file, lines.line_no(),
          std::string(f[0]) + ": expected " + std::to_string(want) + " values, got " + std::to_string(v.size())));
    };
    if (wide) {
      if (v.size() != out.xpc.size()) return bad_count(out.xpc.size());
      for (size_t i = 0; i < v.size(); ++i) out.xpc[i] = v[i];
      continue;
    }
    for (const Line& l : kLines) {
      if (l.key != f[0]) continue;
      if (v.size() != l.count && v.size() != l.alt_count) return bad_count(l.count);
      auto dst = line_of(out, l.key);
      std::fill(dst.begin(), dst.end(), 0);
      for (size_t i = 0; i < v.size(); ++i) dst[i] = static_cast<uint32_t>(v[i]);
    }
  }
  return out;
}

}  // namespace llmon::procfs
