// Parsers for the kernel's NFS RPC statistics, /proc/net/rpc/nfs (client) and
// /proc/net/rpc/nfsd (server), as node_exporter 1.5 reads them through procfs
// 0.8 (nfs/parse*.go). Each line is a key and unsigned numbers:
//   net <count> <udp> <tcp> <tcpconn>          rpc <calls> <retrans> <authrefresh> (client)
//   proc2/proc3/proc4 <n> <n values>           (one counter per procedure, in the kernel's order)
//   rc fh io th ra rpc proc4ops                (server only; "th" keeps its first two numbers)
// A line with a wrong value count, or a value that is not an unsigned number,
// is an error naming the file and line; a line absent leaves its counters at
// 0. Pure; no I/O.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct RpcNetwork {
  uint64_t net_count = 0, udp_count = 0, tcp_count = 0, tcp_connect = 0;
};

// Procedure counters, indexed as the kernel prints them (index 0 is NULL).
using NfsV2Procs = std::array<uint64_t, 18>;
using NfsV3Procs = std::array<uint64_t, 22>;
// The client's first 59 NFSv4 procedures (procfs maps no more; an older kernel's
// shorter line leaves the rest at 0).
using NfsClientV4Procs = std::array<uint64_t, 59>;
// The server's NFSv4 operations by operation number, 0..39 (procfs needs 39
// and reads at most 40).
using NfsServerV4Ops = std::array<uint64_t, 40>;

struct NfsClientStats {
  RpcNetwork network;
  uint64_t rpc_count = 0, retransmissions = 0, auth_refreshes = 0;
  NfsV2Procs v2{};
  NfsV3Procs v3{};
  NfsClientV4Procs v4{};
};

struct NfsServerStats {
  uint64_t reply_cache_hits = 0, reply_cache_misses = 0, reply_cache_nocache = 0;
  uint64_t file_handles_stale = 0;
  uint64_t io_read = 0, io_write = 0;
  uint64_t threads = 0;
  uint64_t read_ahead_cache_size = 0, read_ahead_cache_not_found = 0;
  RpcNetwork network;
  uint64_t rpc_count = 0, rpc_bad_fmt = 0, rpc_bad_auth = 0, rpc_bad_client = 0;
  NfsV2Procs v2{};
  NfsV3Procs v3{};
  NfsServerV4Ops v4_ops{};
};

// A line with a key procfs does not know (one a newer kernel added) is
// skipped; procfs 0.8 fails the whole file on it.
Expected<NfsClientStats> parse_nfs_client_stats(std::string_view text, std::string_view file = "/proc/net/rpc/nfs");
Expected<NfsServerStats> parse_nfs_server_stats(std::string_view text, std::string_view file = "/proc/net/rpc/nfsd");

}  // namespace llmon::procfs
