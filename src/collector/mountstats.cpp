// mountstats collector (node_exporter 1.5 mountstats_linux.go over procfs
// 0.8's mountstats.go and mountinfo.go), off by default as in 1.5: per NFS
// mount of <procfs>/self/mountstats (the agent's own mount namespace), the
// node_mountstats_nfs_* families {export,protocol,mountaddr}: age, byte and
// page counters, the RPC transport's counters, per-operation counters
// {operation} and the NFS event counters. mountaddr is the "addr" super
// option of the <procfs>/self/mountinfo entry at the same position (the two
// files list the mounts in the same order), "" when there is none. As 1.5, a
// second mount of the same export, protocol and address (a bind mount, the
// same export mounted twice) is skipped: it shares the first one's counters.
// A file that is missing or does not parse fails the collector with the file
// and line named.
#include "procfs/mountstats.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/mountinfo.h"

namespace llmon::collector {
namespace {

using model::MetricType;
using procfs::NfsMountStats;
using procfs::NfsOperationStats;
using procfs::NfsTransportStats;

// node_exporter takes these counters modulo 2^53 (the float64 mantissa).
constexpr uint64_t kMantissa = uint64_t{1} << 53;

struct Counter {
  const char* name;  // after node_mountstats_nfs_
  const char* help;
  size_t index;
};

constexpr Counter kBytes[] = {
    {"read_bytes_total", "Number of bytes read using the read() syscall.", procfs::kNfsReadBytes},
    {"write_bytes_total", "Number of bytes written using the write() syscall.", procfs::kNfsWriteBytes},
    {"direct_read_bytes_total", "Number of bytes read using the read() syscall in O_DIRECT mode.",
     procfs::kNfsDirectReadBytes},
    {"direct_write_bytes_total", "Number of bytes written using the write() syscall in O_DIRECT mode.",
     procfs::kNfsDirectWriteBytes},
    {"total_read_bytes_total", "Number of bytes read from the NFS server, in total.", procfs::kNfsServerReadBytes},
    {"total_write_bytes_total", "Number of bytes written to the NFS server, in total.", procfs::kNfsServerWriteBytes},
    {"read_pages_total", "Number of pages read directly via mmap()'d files.", procfs::kNfsReadPages},
    {"write_pages_total", "Number of pages written directly via mmap()'d files.", procfs::kNfsWritePages},
};

// The events: line's counters by position (18, congestion wait, is not
// exported). The help texts are 1.5's, copy-paste slips included.
constexpr Counter kEvents[] = {
    {"event_inode_revalidate_total", "Number of times cached inode attributes are re-validated from the server.", 0},
    {"event_dnode_revalidate_total", "Number of times cached dentry nodes are re-validated from the server.", 1},
    {"event_data_invalidate_total", "Number of times an inode cache is cleared.", 2},
    {"event_attribute_invalidate_total", "Number of times cached inode attributes are invalidated.", 3},
    {"event_vfs_open_total", "Number of times cached inode attributes are invalidated.", 4},
    {"event_vfs_lookup_total", "Number of times a directory lookup has occurred.", 5},
    {"event_vfs_access_total", "Number of times permissions have been checked.", 6},
    {"event_vfs_update_page_total", "Number of updates (and potential writes) to pages.", 7},
    {"event_vfs_read_page_total", "Number of pages read directly via mmap()'d files.", 8},
    {"event_vfs_read_pages_total", "Number of times a group of pages have been read.", 9},
    {"event_vfs_write_page_total", "Number of pages written directly via mmap()'d files.", 10},
    {"event_vfs_write_pages_total", "Number of times a group of pages have been written.", 11},
    {"event_vfs_getdents_total", "Number of times directory entries have been read with getdents().", 12},
    {"event_vfs_setattr_total", "Number of times directory entries have been read with getdents().", 13},
    {"event_vfs_flush_total", "Number of pending writes that have been forcefully flushed to the server.", 14},
    {"event_vfs_fsync_total", "Number of times fsync() has been called on directories and files.", 15},
    {"event_vfs_lock_total", "Number of times locking has been attempted on a file.", 16},
    {"event_vfs_file_release_total", "Number of times files have been closed and released.", 17},
    {"event_truncation_total", "Number of times files have been truncated.", 19},
    {"event_write_extension_total", "Number of times a file has been grown due to writes beyond its existing end.", 20},
    {"event_silly_rename_total", "Number of times a file was removed while still open by another process.", 21},
    {"event_short_read_total", "Number of times the NFS server gave less data than expected while reading.", 22},
    {"event_short_write_total", "Number of times the NFS server wrote less data than expected while writing.", 23},
    {"event_jukebox_delay_total",
     "Number of times the NFS server indicated EJUKEBOX; retrieving data from offline storage.", 24},
    {"event_pnfs_read_total", "Number of NFS v4.1+ pNFS reads.", 25},
    {"event_pnfs_write_total", "Number of NFS v4.1+ pNFS writes.", 26},
};

struct TransportCounter {
  const char* name;
  const char* help;
  uint64_t NfsTransportStats::*field;
  MetricType type;
};

constexpr TransportCounter kTransport[] = {
    {"transport_bind_total",
     "Number of times the client has had to establish a connection from scratch to the NFS server.",
     &NfsTransportStats::bind, MetricType::kCounter},
    {"transport_connect_total", "Number of times the client has made a TCP connection to the NFS server.",
     &NfsTransportStats::connect, MetricType::kCounter},
    {"transport_idle_time_seconds", "Duration since the NFS mount last saw any RPC traffic, in seconds.",
     &NfsTransportStats::idle_time_seconds, MetricType::kGauge},
    {"transport_sends_total", "Number of RPC requests for this mount sent to the NFS server.",
     &NfsTransportStats::sends, MetricType::kCounter},
    {"transport_receives_total", "Number of RPC responses for this mount received from the NFS server.",
     &NfsTransportStats::receives, MetricType::kCounter},
    {"transport_bad_transaction_ids_total",
     "Number of times the NFS server sent a response with a transaction ID unknown to this client.",
     &NfsTransportStats::bad_transaction_ids, MetricType::kCounter},
    {"transport_backlog_queue_total", "Total number of items added to the RPC backlog queue.",
     &NfsTransportStats::cumulative_backlog, MetricType::kCounter},
    {"transport_maximum_rpc_slots", "Maximum number of simultaneously active RPC requests ever used.",
     &NfsTransportStats::max_slots, MetricType::kGauge},
    {"transport_sending_queue_total", "Total number of items added to the RPC transmission sending queue.",
     &NfsTransportStats::cumulative_sending_queue, MetricType::kCounter},
    {"transport_pending_queue_total", "Total number of items added to the RPC transmission pending queue.",
     &NfsTransportStats::cumulative_pending_queue, MetricType::kCounter},
};

struct OperationCounter {
  const char* name;
  const char* help;
  uint64_t NfsOperationStats::*field;
  bool milliseconds;  // exported as seconds, modulo 2^53 first
};

constexpr OperationCounter kOperations[] = {
    {"operations_requests_total", "Number of requests performed for a given operation.", &NfsOperationStats::requests,
     false},
    {"operations_transmissions_total",
     "Number of times an actual RPC request has been transmitted for a given operation.",
     &NfsOperationStats::transmissions, false},
    {"operations_major_timeouts_total", "Number of times a request has had a major timeout for a given operation.",
     &NfsOperationStats::major_timeouts, false},
    {"operations_sent_bytes_total", "Number of bytes sent for a given operation, including RPC headers and payload.",
     &NfsOperationStats::bytes_sent, false},
    {"operations_received_bytes_total",
     "Number of bytes received for a given operation, including RPC headers and payload.",
     &NfsOperationStats::bytes_received, false},
    {"operations_queue_time_seconds_total",
     "Duration all requests spent queued for transmission for a given operation before they were sent, in seconds.",
     &NfsOperationStats::queue_ms, true},
    {"operations_response_time_seconds_total",
     "Duration all requests took to get a reply back after a request for a given operation was transmitted, in "
     "seconds.",
     &NfsOperationStats::response_ms, true},
    {"operations_request_time_seconds_total",
     "Duration all requests took from when a request was enqueued to when it was completely handled for a given "
     "operation, in seconds.",
     &NfsOperationStats::request_ms, true},
};

// One exported mount: its statistics and labels.
struct Exported {
  const NfsMountStats* stats;
  std::string export_, protocol, mountaddr;
};

class MountstatsCollector final : public Collector {
 public:
  explicit MountstatsCollector(const CollectorContext& ctx)
      : mountstats_(ctx.fs.proc("self/mountstats")), mountinfo_(ctx.fs.proc("self/mountinfo")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto stats_text = mountstats_.read();
    if (!stats_text) return stats_text.status().with_context("failed to parse mountstats");
    auto mounts = procfs::parse_mountstats(*stats_text, mountstats_.path());
    if (!mounts) return mounts.status().with_context("failed to parse mountstats");
    auto info_text = mountinfo_.read();
    if (!info_text) return info_text.status().with_context("failed to parse mountinfo");
    auto infos = procfs::parse_mountinfo(*info_text, mountinfo_.path());
    if (!infos) return infos.status().with_context("failed to parse mountinfo");
    mounts_ = std::move(*mounts);

    exported_.clear();
    for (size_t i = 0; i < mounts_.size(); ++i) {
      const auto& m = mounts_[i];
      if (!m.nfs) continue;
      Exported e{&*m.nfs, m.device, m.nfs->transport.protocol, ""};
      if (i < infos->size()) e.mountaddr = procfs::mount_option((*infos)[i].super_options, "addr");
      if (seen(e)) continue;  // node_exporter: "Skipping duplicate device entry"
      exported_.push_back(std::move(e));
    }
    if (exported_.empty()) return Status::ok();
    write(out);
    return Status::ok();
  }

 private:
  bool seen(const Exported& e) const {
    for (const auto& x : exported_)
      if (x.export_ == e.export_ && x.protocol == e.protocol && x.mountaddr == e.mountaddr) return true;
    return false;
  }

  template <typename Value>
  void per_mount(model::SnapshotBuilder& out, std::string_view name, std::string_view help, MetricType type,
                 Value value) {
    auto f = out.family(prefixed(name), help, type, {"export", "protocol", "mountaddr"});
    for (const auto& e : exported_) f.add({e.export_, e.protocol, e.mountaddr}, value(*e.stats));
  }

  const std::string& prefixed(std::string_view name) {
    name_.assign("node_mountstats_nfs_").append(name);
    return name_;
  }

  void write(model::SnapshotBuilder& out) {
    per_mount(out, "age_seconds_total", "The age of the NFS mount in seconds.", MetricType::kCounter,
              [](const NfsMountStats& s) { return s.age_seconds; });
    for (const Counter& c : kBytes)
      per_mount(out, c.name, c.help, MetricType::kCounter,
                [&](const NfsMountStats& s) { return static_cast<double>(s.bytes[c.index]); });
    for (const TransportCounter& c : kTransport)
      per_mount(out, c.name, c.help, c.type, [&](const NfsMountStats& s) {
        uint64_t v = s.transport.*c.field;
        if (c.field == &NfsTransportStats::idle_time_seconds) v %= kMantissa;
        return static_cast<double>(v);
      });
    for (const OperationCounter& c : kOperations) {
      auto f =
          out.family(prefixed(c.name), c.help, MetricType::kCounter, {"export", "protocol", "mountaddr", "operation"});
      for (const auto& e : exported_)
        for (const auto& op : e.stats->operations) {
          uint64_t v = op.*c.field;
          double d = c.milliseconds ? static_cast<double>(v % kMantissa) / 1000.0 : static_cast<double>(v);
          f.add({e.export_, e.protocol, e.mountaddr, op.name}, d);
        }
    }
    for (const Counter& c : kEvents)
      per_mount(out, c.name, c.help, MetricType::kCounter,
                [&](const NfsMountStats& s) { return static_cast<double>(s.events[c.index]); });
  }

  base::CachedFile mountstats_, mountinfo_;
  std::vector<procfs::MountStatsEntry> mounts_;
  std::vector<Exported> exported_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Collector> make_mountstats(const CollectorContext& ctx) {
  return std::make_unique<MountstatsCollector>(ctx);
}

}  // namespace llmon::collector
