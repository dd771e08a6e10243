// The anomaly scoring hot path (docs/performance.md "Diagnosis cost"): one
// observation of a series against a ready baseline (score, and learning one
// feature a minute), and a whole 8-GPU node's round of curated series.
#include <benchmark/benchmark.h>

#include <string>

#include "anomaly/baseline.h"
#include "anomaly/curated.h"
#include "anomaly/scorer.h"

using namespace llmon;

namespace {

void BM_BaselineDeviation(benchmark::State& state) {
  anomaly::Baseline b(anomaly::BaselineOptions{});
  for (int i = 0; i < 120; ++i) b.add(i * 60'000LL, 90 + (i % 7));
  double x = 91;
  for (auto _ : state) {
    benchmark::DoNotOptimize(b.deviation(120 * 60'000LL, x));
    x += 0.001;
  }
}
BENCHMARK(BM_BaselineDeviation);

void BM_BaselineAdd(benchmark::State& state) {
  anomaly::Baseline b(anomaly::BaselineOptions{});
  int64_t t = 0;
  for (auto _ : state) {
    b.add(t, 90 + (t / 60'000) % 7);
    t += 60'000;
  }
}
BENCHMARK(BM_BaselineAdd);

// Every 15 s: 8 GPUs x 5 GPU metrics + 5 node series, as the agent observes them.
void BM_ScorerNodeRound(benchmark::State& state) {
  anomaly::Scorer s;
  std::vector<std::pair<std::string, model::Labels>> series;
  for (const char* m : {"gpu_util", "sm_active", "power", "temp", "fb_used"}) {
    for (int g = 0; g < 8; ++g)
      series.push_back({m, *model::Labels::make({{"gpu", std::to_string(g)}, {"job", "llmon"}})});
  }
  for (const char* m : {"cpu_busy", "iowait", "net_rx", "net_tx", "disk_bytes"})
    series.push_back({m, *model::Labels::make({{"device", m}, {"job", "llmon"}})});
  int64_t t = 0;
  for (; t < 3'600'000; t += 15'000)
    for (auto& [m, l] : series) s.observe(m, l, 1, t, 50 + (t / 60'000) % 5);
  for (auto _ : state) {
    for (auto& [m, l] : series) s.observe(m, l, 1, t, 50 + (t / 60'000) % 5);
    benchmark::DoNotOptimize(s.node_rate());
    t += 15'000;
  }
  state.counters["series"] = static_cast<double>(series.size());
}
BENCHMARK(BM_ScorerNodeRound);

}  // namespace

BENCHMARK_MAIN();
