// The log rules' metrics as the agent exposes and stores them
// (app/log_rule_metrics.h): counters and gauges under their names, a
// histogram as _bucket (le), _sum and _count, HELP and TYPE on each; and the
// built-in training_metrics.yml applied to real-shaped Megatron-LM, DeepSpeed
// and HF Trainer lines (tests/fixtures/logwatch/training_progress.log),
// compared with tests/golden/logwatch_training_metrics.txt
// (LLMON_UPDATE_GOLDEN=1 rewrites it; review the diff).
#include "app/log_rule_metrics.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "app/embedded_file.h"
#include "base/file_reader.h"
#include "exposition/text_writer.h"
#include "logwatch/rule_file.h"
#include "support/test_paths.h"

namespace llmon::app {
namespace {

std::unique_ptr<logwatch::Processor> processor(std::vector<logwatch::LogRule> rules) {
  auto p = logwatch::Processor::build(std::move(rules));
  EXPECT_TRUE(p) << p.error();
  return p ? std::move(*p) : nullptr;
}

std::string page(const logwatch::Processor& p) {
  model::Snapshot snap;
  model::SnapshotBuilder b(snap, 1'700'000'000'000);
  LogRuleMetricsWriter w;
  w.write(b, p.metric_info(), p.metric_series(), p.metric_parse_errors());
  b.finish();
  std::string out;
  exposition::write_page(snap, exposition::Format::kText004, out);
  return out;
}

TEST(LogRuleMetricsPage, HistogramsAreBucketSumAndCountWithHelpAndType) {
  auto rules = logwatch::parse_log_rules(R"(
rules:
  - name: step
    regex: 'step stage=(?P<stage>\w+) ms=(?P<ms>\S+)(?: loss=(?P<loss>\S+))?'
    labels: {framework: mine}
    event: false
    metrics:
      - {name: steps_total, type: counter, help: 'Steps.'}
      - {name: my_loss, type: gauge, value: loss}
      - {name: step_seconds, type: histogram, value: ms, scale: 0.001, labels: [stage], buckets: [0.5, 1], help: 'Step time.'}
)",
                                         "t.yml");
  ASSERT_TRUE(rules) << rules.error();
  auto p = processor(*rules);
  ASSERT_TRUE(p);
  EXPECT_EQ(page(*p),
            "# HELP llmon_log_metric_parse_errors_total Values of log-derived metrics that did not parse as "
            "numbers (or that the metric's type refuses: a negative counter, a NaN observation), by rule; "
            "skipped.\n# TYPE llmon_log_metric_parse_errors_total counter\n"
            "llmon_log_metric_parse_errors_total{rule=\"step\"} 0\n");  // nothing matched yet
  std::vector<logwatch::Event> ev;
  p->line("/l/a.log", false, "step stage=fwd ms=400 loss=nan", 1, ev);
  p->line("/l/a.log", false, "step stage=fwd ms=750", 2, ev);
  p->line("/l/a.log", false, "step stage=bwd ms=1200 loss=2.5", 3, ev);
  p->line("/l/a.log", false, "step stage=bwd ms=slow loss=2", 4, ev);
  EXPECT_EQ(page(*p),
            "# HELP llmon_log_metric_parse_errors_total Values of log-derived metrics that did not parse as numbers "
            "(or that the metric's type refuses: a negative counter, a NaN observation), by rule; skipped.\n"
            "# TYPE llmon_log_metric_parse_errors_total counter\n"
            "llmon_log_metric_parse_errors_total{rule=\"step\"} 1\n"
            "# HELP my_loss Taken from log lines by the rule step.\n"
            "# TYPE my_loss gauge\n"
            "my_loss{framework=\"mine\",source=\"/l/a.log\"} 2.5\n"  // ms=slow: that line counts for nothing
            "# HELP step_seconds_bucket Step time.\n"
            "# TYPE step_seconds_bucket untyped\n"
            "step_seconds_bucket{framework=\"mine\",le=\"0.5\",source=\"/l/a.log\",stage=\"bwd\"} 0\n"
            "step_seconds_bucket{framework=\"mine\",le=\"1\",source=\"/l/a.log\",stage=\"bwd\"} 0\n"
            "step_seconds_bucket{framework=\"mine\",le=\"+Inf\",source=\"/l/a.log\",stage=\"bwd\"} 1\n"
            "step_seconds_bucket{framework=\"mine\",le=\"0.5\",source=\"/l/a.log\",stage=\"fwd\"} 1\n"
            "step_seconds_bucket{framework=\"mine\",le=\"1\",source=\"/l/a.log\",stage=\"fwd\"} 2\n"
            "step_seconds_bucket{framework=\"mine\",le=\"+Inf\",source=\"/l/a.log\",stage=\"fwd\"} 2\n"
            "# HELP step_seconds_count Step time.\n"
            "# TYPE step_seconds_count untyped\n"
            "step_seconds_count{framework=\"mine\",source=\"/l/a.log\",stage=\"bwd\"} 1\n"
            "step_seconds_count{framework=\"mine\",source=\"/l/a.log\",stage=\"fwd\"} 2\n"
            "# HELP step_seconds_sum Step time.\n"
            "# TYPE step_seconds_sum untyped\n"
            "step_seconds_sum{framework=\"mine\",source=\"/l/a.log\",stage=\"bwd\"} 1.2\n"
            "step_seconds_sum{framework=\"mine\",source=\"/l/a.log\",stage=\"fwd\"} 1.15\n"
            "# HELP steps_total Steps.\n"
            "# TYPE steps_total counter\n"
            "steps_total{framework=\"mine\",source=\"/l/a.log\"} 3\n");  // not the line with ms=slow
}

// The built-in packs on a corpus of real-shaped training logs: every value
// the page shows is one the lines give (NaN losses included); the eval line
// and the garbage line give nothing, and the values that are not numbers
// are counted per rule.
TEST(LogRuleMetricsPage, BuiltInPackOnTrainingLogsMatchesGolden) {
  std::vector<logwatch::LogRule> all;
  for (const auto& f : default_logwatch_rule_files()) {
    auto r = logwatch::parse_log_rules(f.content, std::string(f.name));
    ASSERT_TRUE(r) << r.error();
    ASSERT_TRUE(logwatch::merge_log_rules(all, std::move(*r)));
  }
  auto p = processor(std::move(all));
  ASSERT_TRUE(p);
  auto corpus = base::read_file(testing::fixture("logwatch/training_progress.log"));
  ASSERT_TRUE(corpus) << corpus.status().message();
  std::vector<logwatch::Event> ev;
  std::istringstream in(*corpus);
  int64_t t = 1000;
  for (std::string line; std::getline(in, line);) p->line("/var/log/train/rank0.log", false, line, t++, ev);
  // Only the NaN lines are news: nan_inf_loss (the Megatron one; deduplicated).
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].rule, "nan_inf_loss");

  const std::string got = page(*p);
  const std::string path = testing::source_dir() + "/tests/golden/logwatch_training_metrics.txt";
  if (testing::update_golden()) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr) << "cannot write " << path;
    ASSERT_EQ(std::fwrite(got.data(), 1, got.size(), f), got.size());
    std::fclose(f);
    GTEST_SKIP() << "rewrote " << path << "; review its diff";
  }
  auto want = base::read_file(path);
  ASSERT_TRUE(want) << want.status().message() << " (generate it with LLMON_UPDATE_GOLDEN=1 and review it)";
  EXPECT_EQ(*want, got) << "rerun with LLMON_UPDATE_GOLDEN=1 if the change is intended, and review the diff";
}

}  // namespace
}  // namespace llmon::app
