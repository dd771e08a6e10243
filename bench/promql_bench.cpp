// PromQL hot paths (docs/performance.md "PromQL"): parse throughput and
// engine evaluation of dashboard queries over an in-memory store. The
// whole-process comparison with Prometheus is bench/promql_compare.sh.
// Measurement code, not the product.
//
// Data (built once, in a tsdb::Head): one host's node_exporter-like series
// over 24 h at 15 s — node_cpu_seconds_total{cpu=0..15,mode=8 modes}
// (counters, 1/100 resolution), node_network_receive_bytes_total{device=4},
// 8 GPUs x DCGM_FI_DEV_FB_USED/FB_FREE/GPU_UTIL, and a step-time histogram
// (12 buckets) — 196 series, 1.13 M samples.
//
//   BM_Parse/<query>        parse() of a query (items/s = queries/s)
//   BM_Range2h/<query>      range query over the last 2 h, 15 s step
//   BM_Range24h/<query>     range query over 24 h, 60 s step
//   BM_Instant/<query>      instant query at the end
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "promql/engine.h"
#include "promql/parser.h"
#include "tsdb/head.h"

namespace {

using llmon::model::Label;
using llmon::model::Labels;

constexpr int64_t kStep = 15000;
constexpr int64_t kEnd = 86400000;  // 24 h of data from 0

const std::vector<std::string>& queries() {
  static const std::vector<std::string> q = {
      "rate(node_cpu_seconds_total[1m])",
      "sum by (mode) (rate(node_cpu_seconds_total[5m]))",
      "1 - avg(rate(node_cpu_seconds_total{mode=\"idle\"}[5m]))",
      "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)",
      "histogram_quantile(0.9, sum by (le) (rate(step_time_seconds_bucket[5m])))",
      "topk(3, rate(node_network_receive_bytes_total[5m]))",
      "avg_over_time(DCGM_FI_DEV_GPU_UTIL[10m]) < 30",
  };
  return q;
}

llmon::tsdb::Head& store() {
  static std::unique_ptr<llmon::tsdb::Head> head = [] {
    auto h = std::make_unique<llmon::tsdb::Head>();
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<std::pair<Labels, int>> series;  // labels, kind
    const char* modes[] = {"idle", "user", "system", "iowait", "irq", "softirq", "steal", "nice"};
    for (int cpu = 0; cpu < 16; ++cpu)
      for (const char* m : modes)
        series.push_back(
            {*Labels::make({{"__name__", "node_cpu_seconds_total"}, {"cpu", std::to_string(cpu)}, {"mode", m}}), 0});
    for (int d = 0; d < 4; ++d)
      series.push_back(
          {*Labels::make({{"__name__", "node_network_receive_bytes_total"}, {"device", "eth" + std::to_string(d)}}),
           1});
    for (int g = 0; g < 8; ++g)
      for (const char* n : {"DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_GPU_UTIL"})
        series.push_back({*Labels::make({{"__name__", n}, {"gpu", std::to_string(g)}}), 2});
    const char* les[] = {"0.05", "0.1", "0.2", "0.3", "0.4", "0.5", "0.75", "1", "2", "5", "10", "+Inf"};
    for (const char* le : les)
      series.push_back({*Labels::make({{"__name__", "step_time_seconds_bucket"}, {"le", le}}), 3});
    std::vector<double> value(series.size(), 0);
    for (int64_t t = 0; t <= kEnd; t += kStep) {
      auto app = h->appender();
      double obs = 0;
      for (size_t k = 0; k < series.size(); ++k) {
        double& v = value[k];
        switch (series[k].second) {
          case 0:
            v += std::round(u(rng) * 1500) / 100;  // ticks/100
            break;
          case 1:
            v += std::floor(u(rng) * 1e7);
            break;
          case 2:
            v = std::round(u(rng) * 100);
            break;
          default: {
            // Cumulative buckets: each adds the observations below its bound.
            if (k == series.size() - 12) obs = std::floor(u(rng) * 50);
            v += obs * (static_cast<double>(k - (series.size() - 12)) + 1) / 12;
            break;
          }
        }
        (void)app->append(0, series[k].first, t, v);
      }
      (void)app->commit();
    }
    return h;
  }();
  return *head;
}

void BM_Parse(benchmark::State& st) {
  const std::string& q = queries()[static_cast<size_t>(st.range(0))];
  for (auto _ : st) {
    auto r = llmon::promql::parse(q);
    benchmark::DoNotOptimize(r.expr);
  }
  st.SetItemsProcessed(st.iterations());
  st.SetLabel(q);
}

void run_query(benchmark::State& st, int64_t start, int64_t end, int64_t step) {
  const std::string& q = queries()[static_cast<size_t>(st.range(0))];
  llmon::promql::Engine e(store(), {});
  int64_t points = 0;
  for (auto _ : st) {
    auto r = step > 0 ? e.range(q, start, end, step) : e.instant(q, end);
    if (!r.ok()) {
      st.SkipWithError(r.error->message.c_str());
      return;
    }
    if (auto* m = std::get_if<llmon::promql::Matrix>(&r.value))
      for (const auto& s : *m) points += static_cast<int64_t>(s.samples.size());
    st.counters["samples_loaded"] = static_cast<double>(r.stats.samples_loaded);
  }
  st.counters["points_out"] = benchmark::Counter(static_cast<double>(points) / static_cast<double>(st.iterations()));
  st.SetLabel(q);
}

void BM_Range2h(benchmark::State& st) {
  run_query(st, kEnd - 7200000, kEnd, 15000);
}
void BM_Range24h(benchmark::State& st) {
  run_query(st, 0, kEnd, 60000);
}
void BM_Instant(benchmark::State& st) {
  run_query(st, kEnd, kEnd, 0);
}

void args(benchmark::internal::Benchmark* b) {
  for (size_t i = 0; i < queries().size(); ++i) b->Arg(static_cast<int64_t>(i));
}

BENCHMARK(BM_Parse)->Apply(args);
BENCHMARK(BM_Range2h)->Apply(args)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Range24h)->Apply(args)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Instant)->Apply(args)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
