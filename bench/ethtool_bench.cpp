// ethtool: the collector's cycle on this host's interfaces (every entry of
// /sys/class/net), and its parts: each SIOCETHTOOL call alone, over all
// interfaces, and node_exporter 1.5's sequence of calls (GSET, GDRVINFO, then
// its Stats(): GDRVINFO again, GSTRINGS, GSTATS) for comparison with the 4
// calls the collector makes. Reads the live kernel; numbers compare within
// one run. Arg: veth pairs added for the run (root only; 0 without root).
//
// Run: ethtool_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/log.h"
#include "collector/ethtool_ioctl.h"
#include "collector/options.h"
#include "config/flags.h"
#include "model/snapshot_builder.h"

namespace {

using namespace llmon;

// n veth pairs for the benchmark's lifetime (none when not root or ip fails).
class VethPairs {
 public:
  explicit VethPairs(int n) {
    if (::geteuid() != 0) return;
    for (int i = 0; i < n; ++i) {
      std::string a = "llbe" + std::to_string(::getpid() % 10000) + "x" + std::to_string(i);
      std::string cmd = "ip link add " + a + "a type veth peer name " + a + "b >/dev/null 2>&1";
      if (std::system(cmd.c_str()) != 0) break;
      names_.push_back(a + "a");
    }
  }
  ~VethPairs() {
    for (const auto& n : names_) (void)std::system(("ip link del " + n + " >/dev/null 2>&1").c_str());
  }
  size_t pairs() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
};

std::vector<std::string> interfaces() {
  std::vector<base::DirEntry> entries;
  std::vector<std::string> out;
  if (base::list_dir("/sys/class/net", entries))
    for (const auto& e : entries)
      if (e.kind != base::EntryKind::kFile) out.push_back(e.name);
  return out;
}

collector::CollectorContext live_context(base::Logger& log) {
  collector::CollectorContext ctx;
  for (const base::FlagRef& f : collector::flag::kAll) ctx.set_option(f, config::find_flag(f.name)->default_value);
  ctx.log = &log;
  return ctx;
}

void BM_EthtoolCycle(benchmark::State& state) {
  VethPairs veths(static_cast<int>(state.range(0)));
  base::Logger log(base::LogLevel::kError);
  auto c = collector::make_ethtool_with(live_context(log), collector::make_ioctl_ethtool_source());
  model::Snapshot snap;
  int64_t ts = 0;
  bool ok = true;
  for (auto _ : state) {
    model::SnapshotBuilder out(snap, ts += 1000);
    ok = c->collect(out).is_ok();
    out.finish();
  }
  if (!ok) state.SkipWithError("collect() failed");
  state.counters["interfaces"] = static_cast<double>(interfaces().size());
  state.counters["series"] = static_cast<double>(snap.series_count());
}

enum class Call { kDrvinfo, kGset, kStats, kNodeExporterSequence };

void BM_EthtoolCall(benchmark::State& state, Call call) {
  VethPairs veths(static_cast<int>(state.range(0)));
  auto src = collector::make_ioctl_ethtool_source();
  if (src->open() != 0) return state.SkipWithError("socket failed");
  const std::vector<std::string> devs = interfaces();
  std::vector<uint32_t> n_stats(devs.size(), 0);
  for (size_t i = 0; i < devs.size(); ++i) {
    collector::EthtoolDriverInfo info;
    if (src->driver_info(devs[i], info) == 0) n_stats[i] = info.n_stats;
  }
  collector::EthtoolDriverInfo info;
  collector::EthtoolLinkSettings link;
  std::string_view names;
  std::span<const uint64_t> values;
  double stats = 0;
  for (auto _ : state) {
    stats = 0;
    for (size_t i = 0; i < devs.size(); ++i) {
      switch (call) {
        case Call::kDrvinfo:
          src->driver_info(devs[i], info);
          break;
        case Call::kGset:
          src->link_settings(devs[i], link);
          break;
        case Call::kStats:
          if (n_stats[i] > 0 && src->stats(devs[i], n_stats[i], names, values) == 0) stats += values.size();
          break;
        case Call::kNodeExporterSequence:
          src->link_settings(devs[i], link);
          src->driver_info(devs[i], info);
          if (src->driver_info(devs[i], info) == 0 && src->stats(devs[i], info.n_stats, names, values) == 0)
            stats += values.size();
          break;
      }
      benchmark::DoNotOptimize(values.data());
    }
  }
  state.counters["interfaces"] = static_cast<double>(devs.size());
  state.counters["stats"] = stats;
}

BENCHMARK(BM_EthtoolCycle)->Arg(0)->Arg(8)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_EthtoolCall, drvinfo, Call::kDrvinfo)->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_EthtoolCall, gset, Call::kGset)->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_EthtoolCall, gstrings_gstats, Call::kStats)->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_EthtoolCall, node_exporter_sequence, Call::kNodeExporterSequence)
    ->Arg(0)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
