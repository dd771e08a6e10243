// Parser for /proc/<pid>/mountstats, as procfs 0.8's parseMountStats reads it
// for node_exporter 1.5's mountstats collector: one "device D mounted on M
// with fstype T [statvers=V]" line per mount; NFS mounts (nfs, nfs4) with a
// statvers are followed by their statistics (opts:, age:, bytes:, events:,
// xprt:, then "per-op statistics" and one line per operation up to a blank
// line). Stat versions 1.0 and 1.1; tcp and udp transports (field counts per
// version as the kernel prints them). Pure.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct NfsOperationStats {
  std::string name;  // "GETATTR", "READ", ... (the trailing ':' dropped)
  uint64_t requests = 0, transmissions = 0, major_timeouts = 0, bytes_sent = 0, bytes_received = 0;
  uint64_t queue_ms = 0, response_ms = 0, request_ms = 0;  // cumulative milliseconds
  uint64_t errors = 0;                                     // newer kernels' ninth number; 0 when absent
};

// The xprt: line. udp has no connect count, connect time or idle time
// (0 here); stat version 1.0 has no max_slots, sending_queue, pending_queue.
struct NfsTransportStats {
  std::string protocol;  // "tcp" or "udp"; "" without an xprt: line
  uint64_t port = 0, bind = 0, connect = 0, connect_idle_time = 0, idle_time_seconds = 0, sends = 0, receives = 0,
           bad_transaction_ids = 0, cumulative_active_requests = 0, cumulative_backlog = 0, max_slots = 0,
           cumulative_sending_queue = 0, cumulative_pending_queue = 0;
};

// bytes: normal read/write, direct read/write, server read/write, read/write pages.
enum NfsBytes {
  kNfsReadBytes,
  kNfsWriteBytes,
  kNfsDirectReadBytes,
  kNfsDirectWriteBytes,
  kNfsServerReadBytes,
  kNfsServerWriteBytes,
  kNfsReadPages,
  kNfsWritePages,
  kNfsBytesFields
};
// events: the kernel's 27 counters in its order (inoderevalidate ... pnfswrite).
inline constexpr size_t kNfsEventFields = 27;

struct NfsMountStats {
  std::string stat_version;  // "1.1"
  double age_seconds = 0;
  std::array<uint64_t, kNfsBytesFields> bytes{};
  std::array<uint64_t, kNfsEventFields> events{};
  std::vector<NfsOperationStats> operations;
  NfsTransportStats transport;  // the last xprt: line
};

struct MountStatsEntry {
  std::string device, mount_point, fs_type;
  std::optional<NfsMountStats> nfs;  // set for NFS mounts that carry statistics
};

// Errors (a short device line, a statvers on a mount that is not NFS, a
// statistics line with the wrong number of fields or a non-numeric one, an
// unknown stat version or protocol on the xprt: line) name `file` and the line.
Expected<std::vector<MountStatsEntry>> parse_mountstats(std::string_view text, std::string_view file);

}  // namespace llmon::procfs
