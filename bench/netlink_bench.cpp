// Netlink against sysfs for the link attributes the netclass collector
// exposes (issue 15: "netlink for netclass where it is cheaper than sysfs
// walks (measure)"). Same process, same run, process CPU time:
//   BM_NetclassCollector  llmon's netclass collector, one cycle (sysfs: one
//                         readdir of class/net, one pread per attribute on
//                         kept descriptors)
//   BM_RtnetlinkLinkDump  one RTM_GETLINK dump on a kept NETLINK_ROUTE
//                         socket, every interface's IFLA_* attributes walked
//                         (name, MTU, operstate, address, carrier, carrier
//                         changes, txqlen, 64-bit stats); speed and duplex
//                         are not in it (ethtool ioctls), so a netlink
//                         netclass would still need those per interface
// Reads the live system; numbers are only comparable within one run.
// Run: netlink_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "app/setup.h"
#include "base/clock.h"
#include "base/log.h"
#include "collector/registry.h"
#include "config/settings.h"
#include "model/snapshot_builder.h"

namespace {

using namespace llmon;

void bm_netclass_collector(benchmark::State& state) {
  base::SystemClock clock;
  base::Logger log(base::LogLevel::kError);
  auto s = config::load({"agent"}, {});
  if (!s) return state.SkipWithError(s.error().c_str());
  const collector::CollectorContext ctx = app::collector_context(*s, clock, log);
  const collector::CollectorInfo* info = collector::find_collector("netclass");
  if (!info) return state.SkipWithError("no netclass collector");
  auto c = info->make(ctx);
  model::Snapshot snap;
  int64_t ts = clock.now_ms();
  for (auto _ : state) {
    model::SnapshotBuilder out(snap, ts += 1000);
    benchmark::DoNotOptimize(c->collect(out).is_ok());
    out.finish();
  }
  state.counters["series"] = static_cast<double>(snap.series_count());
}

// One dump: request, then every reply part until NLMSG_DONE, attributes walked.
bool link_dump(int fd, uint32_t seq, std::vector<char>& buf, uint64_t& sum, int& links) {
  struct {
    nlmsghdr nh;
    ifinfomsg ifm;
  } req{};
  req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(ifinfomsg));
  req.nh.nlmsg_type = RTM_GETLINK;
  req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.nh.nlmsg_seq = seq;
  req.ifm.ifi_family = AF_UNSPEC;
  if (::send(fd, &req, req.nh.nlmsg_len, 0) < 0) return false;
  links = 0;
  for (;;) {
    ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0) return false;
    for (auto* nh = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(nh, static_cast<unsigned>(n));
         nh = NLMSG_NEXT(nh, n)) {
      if (nh->nlmsg_type == NLMSG_DONE) return true;
      if (nh->nlmsg_type == NLMSG_ERROR) return false;
      if (nh->nlmsg_type != RTM_NEWLINK) continue;
      ++links;
      auto* ifm = static_cast<ifinfomsg*>(NLMSG_DATA(nh));
      sum += static_cast<uint64_t>(ifm->ifi_flags);
      int len = static_cast<int>(IFLA_PAYLOAD(nh));
      for (auto* a = IFLA_RTA(ifm); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
        switch (a->rta_type) {
          case IFLA_IFNAME:
          case IFLA_ADDRESS:
          case IFLA_BROADCAST:
            sum += std::strlen(static_cast<const char*>(RTA_DATA(a)));
            break;
          case IFLA_MTU:
          case IFLA_TXQLEN:
          case IFLA_CARRIER_CHANGES: {
            uint32_t v;
            std::memcpy(&v, RTA_DATA(a), sizeof v);
            sum += v;
            break;
          }
          case IFLA_OPERSTATE:
          case IFLA_CARRIER:
            sum += *static_cast<const uint8_t*>(RTA_DATA(a));
            break;
          case IFLA_STATS64: {
            rtnl_link_stats64 st;
            std::memcpy(&st, RTA_DATA(a), sizeof st);
            sum += st.rx_bytes + st.tx_bytes + st.rx_packets + st.tx_packets;
            break;
          }
          default:
            break;
        }
      }
    }
  }
}

void bm_rtnetlink_link_dump(benchmark::State& state) {
  int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return state.SkipWithError("socket(AF_NETLINK) failed");
  sockaddr_nl sa{};
  sa.nl_family = AF_NETLINK;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return state.SkipWithError("bind(AF_NETLINK) failed");
  }
  std::vector<char> buf(size_t{32} * 1024);
  uint64_t sum = 0;
  uint32_t seq = 0;
  int links = 0;
  for (auto _ : state) {
    if (!link_dump(fd, ++seq, buf, sum, links)) {
      state.SkipWithError("RTM_GETLINK dump failed");
      break;
    }
    benchmark::DoNotOptimize(sum);
  }
  ::close(fd);
  state.counters["links"] = links;
}

BENCHMARK(bm_netclass_collector)->Name("BM_NetclassCollector")->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime();
BENCHMARK(bm_rtnetlink_link_dump)->Name("BM_RtnetlinkLinkDump")->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
