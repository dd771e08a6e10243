#include "procfs/net_rpc.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/strings.h"

namespace llmon::procfs {
namespace {

using Values = std::vector<uint64_t>;

// Calls fn(key, values) for every line; an error fn returns gets the file and
// line prepended.
template <typename Fn>
Status for_each_line(std::string_view text, std::string_view file, Fn&& fn) {
  base::LineIterator lines(text);
  std::string_view line;
  std::vector<std::string_view> f;
  Values v;
  while (lines.next(line)) {
    base::split_fields(line, f);
    if (f.size() < 2)
      return Status::error(
          base::where(file, lines.line_no(), "expected a key and at least one value: \"" + std::string(line) + "\""));
    // "th <threads> <full> <histogram of decimals...>": procfs reads the first two.
    size_t end = f[0] == "th" ? std::min<size_t>(f.size(), 3) : f.size();
    v.clear();
    for (size_t i = 1; i < end; ++i) {
      auto n = base::parse_u64(f[i]);
      if (!n)
        return Status::error(base::where(file, lines.line_no(),
                                         std::string(f[0]) + ": value " + std::to_string(i) +
                                             " is not an unsigned number: \"" + std::string(f[i]) + "\""));
      v.push_back(*n);
    }
    if (Status s = fn(f[0], v); !s) return Status::error(base::where(file, lines.line_no(), s.message()));
  }
  return Status::ok();
}

Status expect_values(const Values& v, size_t n, std::string_view key) {
  if (v.size() == n) return Status::ok();
  return Status::error(std::string(key) + ": expected " + std::to_string(n) + " values, got " +
                       std::to_string(v.size()));
}

// A "procN <count> <count values>" line of at least `min` values into out
// (values past out's size dropped, missing ones 0).
template <size_t N>
Status counted(const Values& v, uint64_t min, std::string_view key, std::array<uint64_t, N>& out) {
  if (v[0] != v.size() - 1)
    return Status::error(std::string(key) + ": the line announces " + std::to_string(v[0]) + " values but has " +
                         std::to_string(v.size() - 1));
  if (v[0] < min)
    return Status::error(std::string(key) + ": expected at least " + std::to_string(min) + " values, got " +
                         std::to_string(v[0]));
  out.fill(0);
  for (size_t i = 0; i < N && i + 1 < v.size(); ++i) out[i] = v[i + 1];
  return Status::ok();
}

Status network(const Values& v, RpcNetwork& out) {
  if (Status s = expect_values(v, 4, "net"); !s) return s;
  out = RpcNetwork{v[0], v[1], v[2], v[3]};
  return Status::ok();
}

}  // namespace

Expected<NfsClientStats> parse_nfs_client_stats(std::string_view text, std::string_view file) {
  NfsClientStats out;
  Status s = for_each_line(text, file, [&](std::string_view key, const Values& v) {
    if (key == "net") return network(v, out.network);
    if (key == "rpc") {
      if (Status e = expect_values(v, 3, key); !e) return e;
      out.rpc_count = v[0], out.retransmissions = v[1], out.auth_refreshes = v[2];
      return Status::ok();
    }
    if (key == "proc2") return counted(v, out.v2.size(), key, out.v2);
    if (key == "proc3") return counted(v, out.v3.size(), key, out.v3);
    if (key == "proc4") return counted(v, 0, key, out.v4);
    return Status::ok();
  });
  if (!s) return s;
  return out;
}

Expected<NfsServerStats> parse_nfs_server_stats(std::string_view text, std::string_view file) {
  NfsServerStats out;
  NfsServerV4Ops v4_null_compound{};  // "proc4 2 <null> <compound>": checked, not exported
  Status s = for_each_line(text, file, [&](std::string_view key, const Values& v) {
    Status e;
    if (key == "rc") {
      if ((e = expect_values(v, 3, key)))
        out.reply_cache_hits = v[0], out.reply_cache_misses = v[1], out.reply_cache_nocache = v[2];
    } else if (key == "fh") {
      if ((e = expect_values(v, 5, key))) out.file_handles_stale = v[0];
    } else if (key == "io") {
      if ((e = expect_values(v, 2, key))) out.io_read = v[0], out.io_write = v[1];
    } else if (key == "th") {
      if ((e = expect_values(v, 2, key))) out.threads = v[0];
    } else if (key == "ra") {
      if ((e = expect_values(v, 12, key))) out.read_ahead_cache_size = v[0], out.read_ahead_cache_not_found = v[11];
    } else if (key == "net") {
      e = network(v, out.network);
    } else if (key == "rpc") {
      if ((e = expect_values(v, 5, key)))
        out.rpc_count = v[0], out.rpc_bad_fmt = v[2], out.rpc_bad_auth = v[3], out.rpc_bad_client = v[4];
    } else if (key == "proc2") {
      e = counted(v, out.v2.size(), key, out.v2);
    } else if (key == "proc3") {
      e = counted(v, out.v3.size(), key, out.v3);
    } else if (key == "proc4") {
      if ((e = expect_values(v, 3, key))) e = counted(v, 2, key, v4_null_compound);
    } else if (key == "proc4ops") {
      e = counted(v, 39, key, out.v4_ops);
    }
    return e;
  });
  if (!s) return s;
  return out;
}

}  // namespace llmon::procfs
