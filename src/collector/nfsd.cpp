// nfsd collector (node_exporter 1.5 nfsd_linux.go): the NFS server's
// statistics from /proc/net/rpc/nfsd (reply cache, file handles, bytes,
// threads, read-ahead cache, network, RPC errors, and one
// node_nfsd_requests_total{proto,method} per NFSv2/v3 procedure and NFSv4
// operation). A missing file (nfsd not loaded) is node_exporter's ErrNoData.
#include <string_view>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/file_or_no_data.h"
#include "collector/nfs_procs.h"
#include "procfs/net_rpc.h"

namespace llmon::collector {
namespace {

using model::MetricType;

// NFSv4 operations as node_exporter 1.5 names them, with the operation number
// procfs 0.8 reads each from (after SetAttr (34) it takes Verify, Write and
// RelLockOwner from 35..37, which the kernel numbers SETCLIENTID,
// SETCLIENTID_CONFIRM and VERIFY: reproduced as 1.5 reports them).
struct V4Op {
  std::string_view name;
  size_t op;
};
constexpr V4Op kV4Ops[] = {
    {"Access", 3},    {"Close", 4},       {"Commit", 5},        {"Create", 6},   {"DelegPurge", 7}, {"DelegReturn", 8},
    {"GetAttr", 9},   {"GetFH", 10},      {"Link", 11},         {"Lock", 12},    {"Lockt", 13},     {"Locku", 14},
    {"Lookup", 15},   {"LookupRoot", 16}, {"Nverify", 17},      {"Open", 18},    {"OpenAttr", 19},  {"OpenConfirm", 20},
    {"OpenDgrd", 21}, {"PutFH", 22},      {"Read", 25},         {"ReadDir", 26}, {"ReadLink", 27},  {"Remove", 28},
    {"Rename", 29},   {"Renew", 30},      {"RestoreFH", 31},    {"SaveFH", 32},  {"SecInfo", 33},   {"SetAttr", 34},
    {"Verify", 35},   {"Write", 36},      {"RelLockOwner", 37},
};

void add(model::SnapshotBuilder& out, std::string_view name, std::string_view help, MetricType type, uint64_t v) {
  out.family(name, help, type).add(static_cast<double>(v));
}

class NfsdCollector final : public Collector {
 public:
  explicit NfsdCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("net/rpc/nfsd")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto text = read_or_no_data(file_);
    if (!text) return text.status();
    auto st = procfs::parse_nfs_server_stats(*text, file_.path());
    if (!st) return st.status();
    constexpr auto kCounter = MetricType::kCounter;
    add(out, "node_nfsd_reply_cache_hits_total", "Total number of NFSd Reply Cache hits (client lost server response).",
        kCounter, st->reply_cache_hits);
    add(out, "node_nfsd_reply_cache_misses_total",
        "Total number of NFSd Reply Cache an operation that requires caching (idempotent).", kCounter,
        st->reply_cache_misses);
    add(out, "node_nfsd_reply_cache_nocache_total",
        "Total number of NFSd Reply Cache non-idempotent operations (rename/delete/…).", kCounter,
        st->reply_cache_nocache);
    add(out, "node_nfsd_file_handles_stale_total", "Total number of NFSd stale file handles", kCounter,
        st->file_handles_stale);
    add(out, "node_nfsd_disk_bytes_read_total", "Total NFSd bytes read.", kCounter, st->io_read);
    add(out, "node_nfsd_disk_bytes_written_total", "Total NFSd bytes written.", kCounter, st->io_write);
    add(out, "node_nfsd_server_threads", "Total number of NFSd kernel threads that are running.", MetricType::kGauge,
        st->threads);
    add(out, "node_nfsd_read_ahead_cache_size_blocks", "How large the read ahead cache is in blocks.",
        MetricType::kGauge, st->read_ahead_cache_size);
    add(out, "node_nfsd_read_ahead_cache_not_found_total", "Total number of NFSd read ahead cache not found.", kCounter,
        st->read_ahead_cache_not_found);
    auto packets = out.family("node_nfsd_packets_total", "Total NFSd network packets (sent+received) by protocol type.",
                              kCounter, {"proto"});
    packets.add({"udp"}, static_cast<double>(st->network.udp_count));
    packets.add({"tcp"}, static_cast<double>(st->network.tcp_count));
    add(out, "node_nfsd_connections_total", "Total number of NFSd TCP connections.", kCounter, st->network.tcp_connect);
    auto errors =
        out.family("node_nfsd_rpc_errors_total", "Total number of NFSd RPC errors by error type.", kCounter, {"error"});
    errors.add({"fmt"}, static_cast<double>(st->rpc_bad_fmt));
    errors.add({"auth"}, static_cast<double>(st->rpc_bad_auth));
    errors.add({"cInt"}, static_cast<double>(st->rpc_bad_client));
    add(out, "node_nfsd_server_rpcs_total", "Total number of NFSd RPCs.", kCounter, st->rpc_count);
    auto requests = out.family("node_nfsd_requests_total", "Total number NFSd Requests by method and protocol.",
                               kCounter, {"proto", "method"});
    nfs::add_procs(requests, "2", nfs::kV2, st->v2, 1);
    nfs::add_procs(requests, "3", nfs::kV3, st->v3, 1);
    for (const V4Op& op : kV4Ops) requests.add({"4", op.name}, static_cast<double>(st->v4_ops[op.op]));
    return Status::ok();
  }

 private:
  base::CachedFile file_;
};

}  // namespace

std::unique_ptr<Collector> make_nfsd(const CollectorContext& ctx) {
  return std::make_unique<NfsdCollector>(ctx);
}

}  // namespace llmon::collector
