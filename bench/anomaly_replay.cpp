// The anomaly baselines replayed over a store (docs/diagnosis.md "Baselines
// and anomalies", measurement): opens DIR read-only, observes the curated
// features every STEP from START to END as the agent would (anomaly::Tracker),
// and prints one line per scored series and time:
//   t_ms metric gpu device ready score
// Usage: anomaly_replay DIR START_MS END_MS [--method mad|std] [--ring N] [--step-s S]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "anomaly/tracker.h"
#include "base/clock.h"
#include "base/log.h"
#include "promql/engine.h"
#include "tsdb/db.h"

using namespace llmon;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: anomaly_replay DIR START_MS END_MS [--method mad|std] [--ring N] [--step-s S]\n");
    return 2;
  }
  anomaly::ScorerOptions so;
  int64_t step_ms = 60'000;
  for (int i = 4; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--method") so.baseline.method = v == "std" ? anomaly::Method::kMeanStd : anomaly::Method::kMedianMad;
    if (k == "--ring") so.baseline.ring = std::atoi(v.c_str());
    if (k == "--min") so.baseline.min_features = std::atoi(v.c_str());
    if (k == "--step-s") step_ms = std::atoll(v.c_str()) * 1000;
  }
  base::Logger log(base::LogLevel::kError, stderr);
  base::SystemClock clock;
  tsdb::DbOptions o;
  o.path = argv[1];
  o.read_only = true;
  auto db = tsdb::Db::open(o, log, clock);
  if (!db) {
    std::fprintf(stderr, "anomaly_replay: %s\n", db.error().c_str());
    return 2;
  }
  promql::Engine engine(**db, promql::EngineOptions{});
  anomaly::Tracker tracker(engine, "job=\"llmon\"", so);
  int64_t start = std::atoll(argv[2]), end = std::atoll(argv[3]);
  for (int64_t t = start; t <= end; t += step_ms) {
    tracker.update(t);
    for (const anomaly::SeriesScore* s : tracker.scorer().series()) {
      if (s->t_ms != t) continue;
      std::string gpu(s->labels.get("gpu")), dev(s->labels.get("device"));
      std::printf("%lld %s %s %s %d %.4f\n", static_cast<long long>(t), s->metric.c_str(),
                  gpu.empty() ? "-" : gpu.c_str(), dev.empty() ? "-" : dev.c_str(), s->ready ? 1 : 0, s->score);
    }
  }
  for (const auto& e : tracker.errors()) std::fprintf(stderr, "%s\n", e.c_str());
  return 0;
}
