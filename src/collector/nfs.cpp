// nfs collector (node_exporter 1.5 nfs_linux.go): the NFS client's RPC
// statistics from /proc/net/rpc/nfs. node_nfs_requests_total has one series
// per procedure of NFSv2, v3 and v4 (method = procfs 0.8's field name), also
// for a version whose line the kernel does not print (0). A missing file (no
// NFS client module) is node_exporter's ErrNoData.
#include <string_view>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/file_or_no_data.h"
#include "collector/nfs_procs.h"
#include "procfs/net_rpc.h"

namespace llmon::collector {
namespace {

using model::MetricType;

// The NFSv4 procedure names by counter index (procfs 0.8's ClientV4Stats).
// clang-format off
constexpr std::string_view kV4[] = {
    "Null",          "Read",         "Write",          "Commit",          "Open",
    "OpenConfirm",   "OpenNoattr",   "OpenDowngrade",  "Close",           "Setattr",
    "FsInfo",        "Renew",        "SetClientID",    "SetClientIDConfirm", "Lock",
    "Lockt",         "Locku",        "Access",         "Getattr",         "Lookup",
    "LookupRoot",    "Remove",       "Rename",         "Link",            "Symlink",
    "Create",        "Pathconf",     "StatFs",         "ReadLink",        "ReadDir",
    "ServerCaps",    "DelegReturn",  "GetACL",         "SetACL",          "FsLocations",
    "ReleaseLockowner", "Secinfo",   "FsidPresent",    "ExchangeID",      "CreateSession",
    "DestroySession", "Sequence",    "GetLeaseTime",   "ReclaimComplete", "LayoutGet",
    "GetDeviceInfo", "LayoutCommit", "LayoutReturn",   "SecinfoNoName",   "TestStateID",
    "FreeStateID",   "GetDeviceList", "BindConnToSession", "DestroyClientID", "Seek",
    "Allocate",      "DeAllocate",   "LayoutStats",    "Clone"};
// clang-format on
static_assert(std::size(kV4) == std::tuple_size_v<procfs::NfsClientV4Procs>);

class NfsCollector final : public Collector {
 public:
  explicit NfsCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("net/rpc/nfs")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto text = read_or_no_data(file_);
    if (!text) return text.status();
    auto st = procfs::parse_nfs_client_stats(*text, file_.path());
    if (!st) return st.status();
    auto packets = out.family("node_nfs_packets_total", "Total NFSd network packets (sent+received) by protocol type.",
                              MetricType::kCounter, {"protocol"});
    packets.add({"udp"}, static_cast<double>(st->network.udp_count));
    packets.add({"tcp"}, static_cast<double>(st->network.tcp_count));
    out.family("node_nfs_connections_total", "Total number of NFSd TCP connections.", MetricType::kCounter)
        .add(static_cast<double>(st->network.tcp_connect));
    out.family("node_nfs_rpcs_total", "Total number of RPCs performed.", MetricType::kCounter)
        .add(static_cast<double>(st->rpc_count));
    out.family("node_nfs_rpc_retransmissions_total", "Number of RPC transmissions performed.", MetricType::kCounter)
        .add(static_cast<double>(st->retransmissions));
    out.family("node_nfs_rpc_authentication_refreshes_total", "Number of RPC authentication refreshes performed.",
               MetricType::kCounter)
        .add(static_cast<double>(st->auth_refreshes));
    auto requests = out.family("node_nfs_requests_total", "Number of NFS procedures invoked.", MetricType::kCounter,
                               {"proto", "method"});
    nfs::add_procs(requests, "2", nfs::kV2, st->v2);
    nfs::add_procs(requests, "3", nfs::kV3, st->v3);
    nfs::add_procs(requests, "4", kV4, st->v4);
    return Status::ok();
  }

 private:
  base::CachedFile file_;
};

}  // namespace

std::unique_ptr<Collector> make_nfs(const CollectorContext& ctx) {
  return std::make_unique<NfsCollector>(ctx);
}

}  // namespace llmon::collector
