// The store's append + commit path as scrape loops drive it (docs/performance.md "Scraping
// applications (issue 19)"): TARGETS series sets of 5 000 series, shaped like
// bench/scrape_cost.sh's pages (counters, gauges, histogram buckets; model_name, le, and
// the target's instance/job/target labels), one appender per target and scrape: every series
// appended with its cached ref and labels, then one commit. One thread; the targets take
// turns, so the series of one commit are not in cache from the previous one, and their
// series were created interleaved (refs of one target not consecutive), as with 10 scrape
// loops. items_per_second = samples per second per core.
//
//   tsdb_append_bench [benchmark flags]
//
//   BM_HeadAppendCommit/T  tsdb::Head alone (no WAL)
//   BM_DbAppendCommit/T    tsdb::Db: series log, WAL record (encoding, CRC, write()), head;
//                          fsync every 1 s, background thread on (as in the agent)
//   BM_HeadMemoryWalk      Head::memory() over 10 targets' series
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "model/labels.h"
#include "storage/storage.h"
#include "tsdb/db.h"
#include "tsdb/head.h"

using llmon::model::Label;
using llmon::model::Labels;
using llmon::storage::SeriesRef;

namespace {

constexpr size_t kSeriesPerTarget = 5000;
constexpr int64_t kStepMs = 1000;

std::string numbered(std::string_view prefix, int n) {
  std::string out(prefix);
  out += std::to_string(n);
  return out;
}

// One target's series (the scrape_cost.sh page: per m, a counter, a gauge, 12 buckets, sum, count).
std::vector<Labels> target_series(int target) {
  static const char* kBuckets[] = {"0.001", "0.005", "0.01", "0.02", "0.04", "0.06",
                                   "0.08",  "0.1",   "0.25", "0.5",  "1.0",  "+Inf"};
  std::vector<Labels> out;
  const std::string instance = numbered("127.0.0.1:", 9000 + target);
  const std::string tname = numbered("t", target);
  auto add = [&](std::string name, std::vector<Label> extra) {
    extra.push_back({"__name__", std::move(name)});
    extra.push_back({"instance", instance});
    extra.push_back({"job", "apps"});
    extra.push_back({"target", tname});
    out.push_back(*Labels::make(std::move(extra)));
  };
  for (int m = 0; out.size() < kSeriesPerTarget; ++m) {
    const std::string model = numbered("model-", m % 7);
    add(numbered("app_requests_", m) + "_total", {{"model_name", model}, {"code", "200"}});
    add(numbered("app_queue_", m), {{"model_name", model}});
    const std::string h = numbered("app_latency_seconds_", m);
    for (const char* le : kBuckets) add(h + "_bucket", {{"model_name", model}, {"le", le}});
    add(h + "_sum", {{"model_name", model}});
    add(h + "_count", {{"model_name", model}});
  }
  out.resize(kSeriesPerTarget);
  return out;
}

struct Target {
  std::vector<Labels> labels;
  std::vector<SeriesRef> refs;
};

std::vector<Target> make_targets(int n) {
  std::vector<Target> out(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) {
    out[static_cast<size_t>(t)].labels = target_series(t);
    out[static_cast<size_t>(t)].refs.assign(kSeriesPerTarget, 0);
  }
  return out;
}

// One scrape of target `t` at cycle `c`: counters grow, gauges move, a few stay constant.
void scrape_once(llmon::storage::Storage& store, Target& t, int64_t c, int64_t t0) {
  auto app = store.appender();
  const int64_t ts = t0 + c * kStepMs;
  for (size_t i = 0; i < t.labels.size(); ++i) {
    const double v = i % 3 == 0 ? static_cast<double>(c * 7 + static_cast<int64_t>(i))
                                : (i % 3 == 1 ? static_cast<double>(i % 13) : static_cast<double>(i) * 1.5);
    auto r = app->append(t.refs[i], t.labels[i], ts, v);
    if (r) t.refs[i] = *r;
  }
  benchmark::DoNotOptimize(app->commit());
}

void run_cycles(benchmark::State& state, llmon::storage::Storage& store, std::vector<Target>& targets, int64_t t0) {
  // The first scrapes create the series (not measured), all targets at once
  // as concurrent scrape loops do: their refs interleave.
  {
    std::vector<std::unique_ptr<llmon::storage::Appender>> apps;
    for (size_t k = 0; k < targets.size(); ++k) apps.push_back(store.appender());
    for (size_t i = 0; i < kSeriesPerTarget; ++i) {
      for (size_t k = 0; k < targets.size(); ++k) {
        auto r = apps[k]->append(0, targets[k].labels[i], t0, 1);
        if (r) targets[k].refs[i] = *r;
      }
    }
    for (auto& app : apps) benchmark::DoNotOptimize(app->commit());
  }
  int64_t c = 1;
  for (auto _ : state) {
    for (auto& t : targets) scrape_once(store, t, c, t0);
    ++c;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(targets.size()) * kSeriesPerTarget);
}

void BM_HeadAppendCommit(benchmark::State& state) {
  llmon::tsdb::Head head;
  auto targets = make_targets(static_cast<int>(state.range(0)));
  run_cycles(state, head, targets, 1'700'000'000'000);
}

void BM_DbAppendCommit(benchmark::State& state) {
  std::string dir = (std::filesystem::temp_directory_path() / ("tsdb_append_bench." + std::to_string(getpid())));
  std::filesystem::remove_all(dir);
  llmon::base::SystemClock clock;
  llmon::base::Logger log(llmon::base::LogLevel::kError);
  llmon::tsdb::DbOptions opt;
  opt.path = dir;
  opt.min_free_bytes = 0;
  auto db = llmon::tsdb::Db::open(opt, log, clock);
  if (!db) {
    state.SkipWithError(db.error().c_str());
    return;
  }
  auto targets = make_targets(static_cast<int>(state.range(0)));
  // Recent timestamps (retention rejects old ones); 1 s apart per cycle.
  const int64_t t0 = clock.now_ms() - 3'600'000;
  run_cycles(state, **db, targets, t0);
  state.counters["wal_B_per_sample"] =
      static_cast<double>((*db)->stats().wal_bytes) / static_cast<double>((*db)->stats().samples_committed);
  (void)(*db)->close();
  db->reset();
  std::filesystem::remove_all(dir);
}

// Head::memory() (Db::stats() every 10 s, for llmon_tsdb_* metrics) over the 10 targets'
// series after 120 scrapes; items = series walked.
void BM_HeadMemoryWalk(benchmark::State& state) {
  llmon::tsdb::Head head;
  auto targets = make_targets(10);
  for (int64_t c = 0; c < 120; ++c) {
    for (auto& t : targets) scrape_once(head, t, c, 1'700'000'000'000);
  }
  for (auto _ : state) benchmark::DoNotOptimize(head.memory());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(head.num_series()));
}

}  // namespace

BENCHMARK(BM_HeadMemoryWalk)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HeadAppendCommit)->Arg(1)->Arg(10)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DbAppendCommit)->Arg(1)->Arg(10)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
