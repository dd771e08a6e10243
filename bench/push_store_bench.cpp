// Push store cost (src/scrape/push_store.h):
//   push_store_bench [benchmark flags]
// A store of G groups (job=batch_<i>, instance=host<i>) holding 100 gauge
// series each (20 families x 5 label values), then one more PUT of such a
// 100-series body into one of the groups, over and over: parse, grouping
// labels, the consistency check against the whole store (the cost grows with
// the store, as in the Pushgateway), the write. items_per_second = pushes.
// BM_PushPage: the merged families and their page text for the same store.
#include <benchmark/benchmark.h>

#include <string>

#include "base/clock.h"
#include "scrape/push_store.h"

using llmon::scrape::GroupingKey;
using llmon::scrape::PushMode;
using llmon::scrape::PushStore;

namespace {

std::string body() {
  std::string b;
  for (int f = 0; f < 20; ++f) {
    b += "# HELP batch_metric_" + std::to_string(f) + " A batch job metric.\n";
    b += "# TYPE batch_metric_" + std::to_string(f) + " gauge\n";
    for (int v = 0; v < 5; ++v) {
      b += "batch_metric_" + std::to_string(f) + "{stage=\"s" + std::to_string(v) + "\"} " +
           std::to_string(f * 10 + v) + ".5\n";
    }
  }
  return b;
}

GroupingKey group(int i) {
  return GroupingKey{{{"instance", "host" + std::to_string(i)}, {"job", "batch_" + std::to_string(i)}}};
}

void fill(PushStore& s, int groups, const std::string& b) {
  for (int i = 0; i < groups; ++i) (void)s.push(group(i), b, PushMode::kReplaceGroup);
}

void BM_Push(benchmark::State& state) {
  llmon::base::ManualClock clock(1'700'000'000'000);
  PushStore s(clock);
  const std::string b = body();
  fill(s, static_cast<int>(state.range(0)), b);
  for (auto _ : state) {
    clock.advance_ms(1);
    auto st = s.push(group(0), b, PushMode::kReplaceGroup);
    if (!st) state.SkipWithError(st.message().c_str());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Push)->Arg(1)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

void BM_PushPage(benchmark::State& state) {
  llmon::base::ManualClock clock(1'700'000'000'000);
  PushStore s(clock);
  fill(s, static_cast<int>(state.range(0)), body());
  for (auto _ : state) {
    std::string page;
    write_push_page(s.families(), page);
    benchmark::DoNotOptimize(page.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PushPage)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
