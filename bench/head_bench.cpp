// Head (in-memory store) measurements, docs/performance.md "Head (in memory)":
//   head_bench [benchmark flags]
// A synthetic cycle shaped like the agent's default page plus 8 GPUs: 1 300
// host series (node_exporter-like names and labels; ~60 % constant, counters,
// decimal gauges, noisy floats) and 8 x 30 GPU series, one timestamp per
// cycle, one commit per cycle. items_per_second = samples per second per core.
#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/metric.h"
#include "tsdb/head.h"
#include "ingest/snapshot_sink.h"

using llmon::model::Label;
using llmon::model::Labels;
using llmon::storage::SeriesRef;
using llmon::tsdb::Head;
using llmon::tsdb::HeadOptions;

namespace {

constexpr int kHostSeries = 1300, kGpus = 8, kGpuMetrics = 30;
constexpr int64_t kT0 = 1'700'000'000'000;

// prefix + n, built by appending (`"x" + std::to_string(n)` trips GCC 12's
// -Wrestrict false positive at -O3).
std::string numbered(std::string_view prefix, int n) {
  std::string out(prefix);
  out += std::to_string(n);
  return out;
}

// The cycle as a model::Snapshot: 65 host families of 20 series, 30 GPU families of 8.
llmon::model::Snapshot make_snapshot() {
  llmon::model::Snapshot snap;
  for (int f = 0; f < kHostSeries / 20; ++f) {
    llmon::model::Family fam;
    fam.name = numbered("node_metric_", f);
    if (f % 3 == 0) fam.name += "_total";
    fam.label_names = {"device", "mode"};
    for (int s = 0; s < 20; ++s) fam.series.push_back({{numbered("dev", s / 4), numbered("m", s % 4)}, 0});
    snap.families.push_back(std::move(fam));
  }
  for (int f = 0; f < kGpuMetrics; ++f) {
    llmon::model::Family fam;
    fam.name = numbered("DCGM_FI_DEV_METRIC_", f);
    fam.label_names = {"Hostname", "UUID", "gpu", "modelName"};
    for (int g = 0; g < kGpus; ++g) {
      fam.series.push_back({{"node1", numbered("GPU-", 1000 + g), std::to_string(g), "NVIDIA H200"}, 0});
    }
    snap.families.push_back(std::move(fam));
  }
  return snap;
}

// Advances every value one cycle: series i's class by i % 10.
void step(llmon::model::Snapshot& snap, std::mt19937_64& rng, int64_t cycle) {
  std::normal_distribution<double> noise(0, 1);
  size_t i = 0;
  for (auto& fam : snap.families) {
    for (auto& s : fam.series) {
      switch (i++ % 10) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4:
        case 5:  // constant
          s.value = static_cast<double>(i);
          break;
        case 6:
        case 7:  // counter
          s.value += static_cast<double>(rng() % 2000);
          break;
        case 8:  // decimal gauge (0.01 steps)
          s.value = static_cast<double>(static_cast<int64_t>(5000 + (cycle % 100) * (i % 7))) / 100;
          break;
        default:  // noisy float (timings)
          s.value = std::fabs(0.002 + 0.0005 * noise(rng));
      }
    }
  }
  snap.timestamp_ms = kT0 + cycle * 1000;
}

std::vector<Labels> labels_of(const llmon::model::Snapshot& snap) {
  std::vector<Labels> out;
  for (const auto& fam : snap.families) {
    for (const auto& s : fam.series) {
      std::vector<Label> pairs{{"__name__", fam.name}};
      for (size_t k = 0; k < fam.label_names.size(); ++k) pairs.push_back({fam.label_names[k], s.label_values[k]});
      out.push_back(*Labels::make(std::move(pairs)));
    }
  }
  return out;
}

// Steady-state cycle through the Appender with cached refs.
void BM_HeadAppendCycle(benchmark::State& state) {
  Head head;
  auto snap = make_snapshot();
  auto labels = labels_of(snap);
  std::vector<SeriesRef> refs(labels.size(), 0);
  std::mt19937_64 rng(1);
  int64_t cycle = 0;
  for (auto _ : state) {
    step(snap, rng, cycle);  // cheap next to the appends; kept inside for realism of values
    auto app = head.appender();
    size_t i = 0;
    for (const auto& fam : snap.families) {
      for (const auto& s : fam.series) {
        auto r = app->append(refs[i], labels[i], snap.timestamp_ms, s.value);
        refs[i++] = *r;
      }
    }
    benchmark::DoNotOptimize(app->commit());
    ++cycle;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * labels.size()));
  state.counters["series"] = static_cast<double>(labels.size());
  auto mem = head.memory();
  state.counters["B_per_sample"] = static_cast<double>(mem.chunk_bytes) / static_cast<double>(mem.samples);
}

// Baseline: generating the cycle's values alone (included in the two cycle benchmarks).
void BM_CycleValuesOnly(benchmark::State& state) {
  auto snap = make_snapshot();
  std::mt19937_64 rng(1);
  int64_t cycle = 0;
  for (auto _ : state) {
    step(snap, rng, cycle++);
    benchmark::DoNotOptimize(snap.families.front().series.front().value);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * snap.series_count()));
}

// Same cycle through SnapshotSink (label-set cache verification + stale scan).
void BM_SnapshotSinkCycle(benchmark::State& state) {
  Head head;
  llmon::ingest::SnapshotSink sink(head);
  auto snap = make_snapshot();
  std::mt19937_64 rng(1);
  int64_t cycle = 0;
  for (auto _ : state) {
    step(snap, rng, cycle++);
    benchmark::DoNotOptimize(sink.append_snapshot(snap));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * snap.series_count()));
  state.counters["labels_built"] = static_cast<double>(sink.stats().labels_built);
}

// First cycle: creates every series (index insertions, one exclusive lock each).
void BM_HeadCreateSeries(benchmark::State& state) {
  auto snap = make_snapshot();
  auto labels = labels_of(snap);
  for (auto _ : state) {
    Head head;
    auto app = head.appender();
    for (const auto& l : labels) benchmark::DoNotOptimize(app->append(0, l, kT0, 1));
    benchmark::DoNotOptimize(app->commit());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * labels.size()));
}

// A head holding `range(0)` cycles (1 s apart); chunk range `range(1)` s.
Head& filled_head(int64_t cycles, int64_t chunk_range_s) {
  static std::map<std::pair<int64_t, int64_t>, std::unique_ptr<Head>> heads;
  auto& h = heads[{cycles, chunk_range_s}];
  if (!h) {
    HeadOptions opt;
    opt.chunk_range_ms = chunk_range_s * 1000;
    h = std::make_unique<Head>(opt);
    llmon::ingest::SnapshotSink sink(*h);
    auto snap = make_snapshot();
    std::mt19937_64 rng(1);
    for (int64_t c = 0; c < cycles; ++c) {
      step(snap, rng, c);
      sink.append_snapshot(snap);
    }
  }
  return *h;
}

// Select all series over the whole range and decode every sample.
void BM_QueryDecodeAll(benchmark::State& state) {
  Head& head = filled_head(state.range(0), state.range(1));
  int64_t samples = 0;
  for (auto _ : state) {
    auto q = head.querier(kT0, kT0 + state.range(0) * 1000);
    auto set = (*q)->select(kT0, kT0 + state.range(0) * 1000, {{llmon::model::Matcher::Type::kRe, "__name__", ".+"}});
    while (set->next()) {
      auto it = set->at().iterator();
      while (it->next()) {
        benchmark::DoNotOptimize(it->at());
        ++samples;
      }
    }
  }
  state.SetItemsProcessed(samples);
  state.counters["MiB_held"] = static_cast<double>(head.memory().total()) / (1 << 20);
}

// One metric (8 GPU series), last 5 minutes: the typical dashboard panel.
void BM_QueryOneMetric5m(benchmark::State& state) {
  Head& head = filled_head(state.range(0), state.range(1));
  int64_t end = kT0 + (state.range(0) - 1) * 1000;
  int64_t samples = 0;
  for (auto _ : state) {
    auto q = head.querier(end - 300'000, end);
    auto set =
        (*q)->select(end - 300'000, end, {{llmon::model::Matcher::Type::kEq, "__name__", "DCGM_FI_DEV_METRIC_7"}});
    while (set->next()) {
      auto it = set->at().iterator();
      while (it->next()) ++samples;
    }
  }
  state.SetItemsProcessed(samples);
}

}  // namespace

BENCHMARK(BM_CycleValuesOnly);
BENCHMARK(BM_HeadAppendCycle);
BENCHMARK(BM_SnapshotSinkCycle);
BENCHMARK(BM_HeadCreateSeries);
// 1 h of 1 s cycles: all in the open chunk (2 h range) or in 10-min closed chunks.
BENCHMARK(BM_QueryDecodeAll)->Args({3600, 7200})->Args({3600, 600});
BENCHMARK(BM_QueryOneMetric5m)->Args({3600, 7200})->Args({3600, 600});

BENCHMARK_MAIN();
