// Log-derived metrics (rule_file.h "Metrics"): the metrics: field of a rule
// file, good and bad (each error names the file, line and column), and the
// processor turning matched lines into counter, gauge and histogram samples.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "logwatch/processor.h"
#include "logwatch/rule_file.h"

namespace llmon::logwatch {
namespace {

std::vector<LogRule> rules(const std::string& yaml) {
  auto r = parse_log_rules(yaml, "m.yml");
  EXPECT_TRUE(r) << r.error();
  return r ? *r : std::vector<LogRule>{};
}

const char* kStep = R"(
rules:
  - name: step
    regex: 'step (?P<step>\d+) stage=(?P<stage>\w+) time_ms=(?P<ms>\S+)(?: loss=(?P<loss>\S+))?(?: tokens=(?P<tokens>\S+))?'
    source: files
    labels: {framework: mine}
    event: false
    metrics:
      - {name: steps_total, type: counter}
      - {name: tokens_total, type: counter, value: tokens}
      - {name: tokens_seen_total, type: counter, value: tokens, cumulative: true}
      - {name: train_loss, type: gauge, value: loss, help: 'Loss.'}
      - name: step_seconds
        type: histogram
        value: ms
        scale: 0.001
        labels: [stage]
        buckets: [0.5, 1, 2]
)";

TEST(LogRuleMetrics, ParsesEveryField) {
  auto r = rules(kStep);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].event);
  ASSERT_EQ(r[0].metrics.size(), 5u);
  const LogMetric& c = r[0].metrics[0];
  EXPECT_EQ(c.kind, MetricKind::kCounter);
  EXPECT_EQ(c.value, "");
  EXPECT_EQ(c.help, "Taken from log lines by the rule step.");  // the default help
  EXPECT_TRUE(r[0].metrics[2].cumulative);
  EXPECT_EQ(r[0].metrics[3].kind, MetricKind::kGauge);
  EXPECT_EQ(r[0].metrics[3].help, "Loss.");
  const LogMetric& h = r[0].metrics[4];
  EXPECT_EQ(h.kind, MetricKind::kHistogram);
  EXPECT_EQ(h.value, "ms");
  EXPECT_DOUBLE_EQ(h.scale, 0.001);
  EXPECT_EQ(h.labels, std::vector<std::string>{"stage"});
  EXPECT_EQ(h.buckets, (std::vector<double>{0.5, 1, 2}));
  EXPECT_EQ(h.origin, "m.yml:13:9");
}

TEST(LogRuleMetrics, AHistogramWithoutBucketsHasPrometheusDefaults) {
  auto r = rules(
      "rules:\n  - name: a\n    regex: 't=(?P<t>\\S+)'\n    metrics:\n      - {name: t_seconds, type: histogram, "
      "value: "
      "t}\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].metrics[0].buckets, (std::vector<double>{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}));
  EXPECT_TRUE(r[0].event);  // events by default, metrics or not
}

TEST(LogRuleMetrics, ErrorsNameTheFileLineAndColumn) {
  const std::string head = "rules:\n  - name: a\n    regex: 'v=(?P<v>\\S+) k=(?P<k>\\w+)'\n    metrics:\n";
  struct Case {
    std::string yaml;
    const char* want;
  } cases[] = {
      {head + "      - {name: m, type: gauge, value: nope}\n",
       "m.yml:5:9: metric m: value \"nope\" is not a named group of the pattern"},
      {head + "      - {name: m, type: gauge, value: v, labels: [zone]}\n",
       "m.yml:5:9: metric m: label \"zone\" is not a named group of the pattern"},
      {head + "      - {name: m, type: gauge}\n", "m.yml:5:9: metric m: a gauge needs a value group"},
      {head + "      - {name: m, value: v}\n", "m.yml:5:9: metric m: needs a type"},
      {head + "      - {name: m, type: summary, value: v}\n", "m.yml:5:25: metrics.type \"summary\""},
      {head + "      - {type: gauge, value: v}\n", "m.yml:5:9: metrics: an entry needs a name"},
      {head + "      - {name: 'bad-name', type: gauge, value: v}\n", "m.yml:5:16: metrics.name \"bad-name\""},
      {head + "      - {name: llmon_x, type: gauge, value: v}\n", "llmon_ names are the agent's own"},
      {head + "      - {name: m, type: gauge, value: v, colour: red}\n",
       "m.yml:5:42: metrics: unknown field \"colour\""},
      {head + "      - {name: m, type: histogram, value: v, buckets: [1, 0.5]}\n",
       "m.yml:5:59: metrics.buckets: must ascend"},
      {head + "      - {name: m, type: histogram, value: v, buckets: [1, x]}\n",
       "m.yml:5:59: metrics.buckets: expected a finite number"},
      {head + "      - {name: m, type: histogram, value: v, buckets: [1, +Inf]}\n",
       "m.yml:5:59: metrics.buckets: expected a finite number"},
      {head + "      - {name: m, type: histogram, value: v, buckets: []}\n",
       "m.yml:5:55: metrics.buckets: expected a list of numbers"},
      {head + "      - {name: m, type: gauge, value: v, buckets: [1]}\n",
       "m.yml:5:9: metric m: buckets are for histograms"},
      {head + "      - {name: m, type: gauge, value: v, scale: 0}\n", "m.yml:5:49: metrics.scale: must not be 0"},
      {head + "      - {name: m, type: gauge, value: v, scale: fast}\n", "metrics.scale: expected a finite number"},
      {head + "      - {name: m, type: counter, scale: 2}\n", "m.yml:5:9: metric m: scale needs a value group"},
      {head + "      - {name: m, type: gauge, value: v, cumulative: true}\n",
       "m.yml:5:9: metric m: cumulative is for counters with a value group"},
      {"rules:\n  - name: a\n    regex: 'v=(?P<v>\\S+) (?P<le>\\w+)'\n    metrics:\n      - {name: m, type: gauge, "
       "value: v, "
       "labels: [le]}\n",
       "m.yml:5:9: metric m: label \"le\" is reserved"},
      {head + "      - {name: m, type: gauge, value: v}\n      - {name: m, type: counter}\n",
       "m.yml:6:9: rule a: metric m is given twice"},
      {head + "      - {name: m, type: histogram, value: v}\n      - {name: m_count, type: counter}\n",
       "m.yml:6:9: metric m_count is a series of histogram m at m.yml:5:9"},
      {head + "      - m\n", "m.yml:5:9: metrics: an entry must be a mapping"},
      {"rules:\n  - name: a\n    regex: x\n    metrics: {name: m}\n", "m.yml:4:14: metrics: expected a list"},
      {"rules:\n  - name: a\n    regex: x\n    event: false\n    dedup: 1m\n",
       "m.yml:2:5: rule a: dedup and dedup_by need event: true"},
      {"rules:\n  - name: a\n    regex: x\n    event: maybe\n", "m.yml:4:12: event: expected true or false"},
      {"rules:\n  - name: a\n    regex: x\n    labels: {source: me}\n    metrics:\n      - {name: m, type: counter}\n",
       "m.yml:2:5: rule a: label \"source\" is reserved for the metrics' series"},
      // One name, one type, label set and bucket list across the rules of a file.
      {"rules:\n  - name: a\n    regex: 'v=(?P<v>\\S+)'\n    metrics: [{name: m, type: gauge, value: v}]\n"
       "  - name: b\n    regex: 'w=(?P<v>\\S+)'\n    metrics: [{name: m, type: counter, value: v}]\n",
       "m.yml:7:15: metric m (rule b) is a counter but a gauge at m.yml:4:15"},
      {"rules:\n  - name: a\n    regex: 'v=(?P<v>\\S+)'\n    metrics: [{name: m, type: gauge, value: v}]\n"
       "  - name: b\n    regex: 'w=(?P<v>\\S+)'\n    labels: {x: y}\n    metrics: [{name: m, type: gauge, value: v}]\n",
       "m.yml:8:15: metric m (rule b) has labels {x} but {} at m.yml:4:15"},
      {"rules:\n  - name: a\n    regex: 'v=(?P<v>\\S+)'\n    metrics: [{name: m, type: histogram, value: v}]\n"
       "  - name: b\n    regex: 'w=(?P<v>\\S+)'\n    metrics: [{name: m, type: histogram, value: v, buckets: [1]}]\n",
       "m.yml:7:15: metric m (rule b) has other buckets than at m.yml:4:15"},
  };
  for (const auto& c : cases) {
    auto r = parse_log_rules(c.yaml, "m.yml");
    ASSERT_FALSE(r) << c.yaml;
    EXPECT_NE(r.error().find(c.want), std::string::npos) << r.error() << "\n  wanted: " << c.want << "\n" << c.yaml;
  }
}

TEST(LogRuleMetrics, MergingRefusesAConflictingTypeNamingBothPlaces) {
  auto a = rules("rules:\n  - name: a\n    regex: 'v=(?P<v>\\S+)'\n    metrics: [{name: m, type: gauge, value: v}]\n");
  auto b = parse_log_rules(
      "rules:\n  - name: b\n    regex: 'w=(?P<w>\\S+)'\n    metrics: [{name: m, type: histogram, value: w}]\n",
      "mine.yml");
  ASSERT_TRUE(b) << b.error();
  Status s = merge_log_rules(a, *b);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("mine.yml:4:15: metric m (rule b) is a histogram but a gauge at m.yml:4:15"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(a.size(), 1u);  // nothing merged
}

class RuleMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = Processor::build(rules(kStep));
    ASSERT_TRUE(p) << p.error();
    p_ = std::move(*p);
  }
  void line(const std::string& text, const std::string& source = "/log/a.log") {
    p_->line(source, false, text, t_++, out_);
  }
  const MetricSeries* series(const std::string& name, std::vector<std::pair<std::string, std::string>> labels,
                             const std::string& source = "/log/a.log") const {
    auto it = p_->metric_series().find(MetricSeriesKey{name, source, std::move(labels)});
    return it == p_->metric_series().end() ? nullptr : &it->second;
  }
  std::unique_ptr<Processor> p_;
  std::vector<Event> out_;
  int64_t t_ = 1000;
};

TEST_F(RuleMetricsTest, LinesBecomeCounterGaugeAndHistogramSamples) {
  const uint64_t v0 = p_->metric_version();
  EXPECT_TRUE(p_->metric_series().empty());  // series appear at their first sample
  line("step 1 stage=fwd time_ms=400 loss=2.5 tokens=100");
  line("step 2 stage=fwd time_ms=1500 loss=2.25 tokens=300");
  line("step 3 stage=bwd time_ms=2500 loss=2 tokens=250");
  EXPECT_GT(p_->metric_version(), v0);
  EXPECT_TRUE(out_.empty());  // event: false
  const std::pair<std::string, std::string> fw{"framework", "mine"};
  // A counter without a value counts matches; with one it adds; cumulative takes it.
  ASSERT_NE(series("steps_total", {fw}), nullptr);
  EXPECT_EQ(series("steps_total", {fw})->value, 3);
  EXPECT_EQ(series("tokens_total", {fw})->value, 650);
  EXPECT_EQ(series("tokens_seen_total", {fw})->value, 250);  // a smaller total: the program restarted
  EXPECT_EQ(series("train_loss", {fw})->value, 2);           // the last value
  // The histogram observes ms * 0.001, one series per stage.
  const MetricSeries* fwd = series("step_seconds", {fw, {"stage", "fwd"}});
  ASSERT_NE(fwd, nullptr);
  EXPECT_EQ(fwd->count, 2u);
  EXPECT_DOUBLE_EQ(fwd->sum, 1.9);
  EXPECT_EQ(fwd->bucket, (std::vector<uint64_t>{1, 1, 2}));  // cumulative: <=0.5, <=1, <=2
  const MetricSeries* bwd = series("step_seconds", {fw, {"stage", "bwd"}});
  ASSERT_NE(bwd, nullptr);
  EXPECT_EQ(bwd->count, 1u);
  EXPECT_EQ(bwd->bucket, (std::vector<uint64_t>{0, 0, 0}));  // 2.5 is only in +Inf
  // Another file is another series.
  line("step 4 stage=fwd time_ms=10 loss=1", "/log/b.log");
  EXPECT_EQ(series("train_loss", {fw}, "/log/b.log")->value, 1);
  EXPECT_EQ(series("train_loss", {fw})->value, 2);
  EXPECT_EQ(p_->metric_parse_errors().at("step"), 0u);
  EXPECT_EQ(p_->counters().at(CounterKey{"step", "/log/a.log", Severity::kWarning, {}}), 3u);  // still counted
}

TEST_F(RuleMetricsTest, OptionalFieldsMissingLeaveTheirMetricsAlone) {
  line("step 1 stage=fwd time_ms=400 loss=2.5 tokens=100");
  line("step 2 stage=fwd time_ms=600");  // no loss, no tokens
  const std::pair<std::string, std::string> fw{"framework", "mine"};
  EXPECT_EQ(series("train_loss", {fw})->value, 2.5);
  EXPECT_EQ(series("tokens_total", {fw})->value, 100);
  EXPECT_EQ(series("steps_total", {fw})->value, 2);
  EXPECT_EQ(series("step_seconds", {fw, {"stage", "fwd"}})->count, 2u);
  EXPECT_EQ(p_->metric_parse_errors().at("step"), 0u);
}

TEST_F(RuleMetricsTest, NaNLossIsAGaugeValueNotAnError) {
  line("step 1 stage=fwd time_ms=400 loss=nan");
  const std::pair<std::string, std::string> fw{"framework", "mine"};
  EXPECT_TRUE(std::isnan(series("train_loss", {fw})->value));
  line("step 2 stage=fwd time_ms=400 loss=-Inf");
  EXPECT_TRUE(std::isinf(series("train_loss", {fw})->value));
  line("step 3 stage=fwd time_ms=400 loss=NAN");  // Python's '{:E}' of nan
  EXPECT_TRUE(std::isnan(series("train_loss", {fw})->value));
  EXPECT_EQ(p_->metric_parse_errors().at("step"), 0u);
}

TEST_F(RuleMetricsTest, ValuesThatDoNotParseAreCountedAndSkipped) {
  const std::pair<std::string, std::string> fw{"framework", "mine"};
  line("step 1 stage=fwd time_ms=400 loss=2.5 tokens=100");
  line("step 2 stage=fwd time_ms=fast loss=two tokens=-5");  // four bad values (-5 twice)
  line("step 3 stage=fwd time_ms=nan");                      // a histogram takes no NaN
  line(std::string("step 4 stage=fwd time_ms=\xff\xfe loss=1\x00", 35));
  EXPECT_EQ(p_->metric_parse_errors().at("step"), 7u);
  EXPECT_EQ(series("train_loss", {fw})->value, 2.5);
  EXPECT_EQ(series("tokens_total", {fw})->value, 100);
  EXPECT_EQ(series("step_seconds", {fw, {"stage", "fwd"}})->count, 1u);
  // A line with a bad value updates none of the rule's metrics.
  EXPECT_EQ(series("steps_total", {fw})->value, 1);
  EXPECT_EQ(p_->counters().at(CounterKey{"step", "/log/a.log", Severity::kWarning, {}}), 4u);  // the matches count
  line("step 5 stage=fwd time_ms=100 loss=1.5");  // and the next good line is read
  EXPECT_EQ(series("train_loss", {fw})->value, 1.5);
  EXPECT_EQ(series("steps_total", {fw})->value, 2);
}

TEST_F(RuleMetricsTest, InfoIsPerMetricNameWithTheRulesLabels) {
  const auto& info = p_->metric_info();
  ASSERT_EQ(info.size(), 5u);
  EXPECT_EQ(info.at("step_seconds").kind, MetricKind::kHistogram);
  EXPECT_EQ(info.at("step_seconds").labels, (std::vector<std::string>{"framework", "stage"}));
  EXPECT_EQ(info.at("step_seconds").buckets, (std::vector<double>{0.5, 1, 2}));
  EXPECT_EQ(info.at("train_loss").help, "Loss.");
  EXPECT_EQ(info.at("steps_total").labels, std::vector<std::string>{"framework"});
}

TEST(RuleMetricsEvents, ARuleWithMetricsAndEventsDoesBoth) {
  auto p =
      Processor::build(rules("rules:\n  - name: oom\n    regex: 'allocate (?P<mib>\\d+) MiB'\n    metrics:\n"
                             "      - {name: oom_requested_bytes, type: gauge, value: mib, scale: 1048576}\n"));
  ASSERT_TRUE(p) << p.error();
  std::vector<Event> out;
  (*p)->line("/log/a.log", false, "Tried to allocate 2 MiB", 1, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].labels.at("mib"), "2");
  auto it = (*p)->metric_series().find(MetricSeriesKey{"oom_requested_bytes", "/log/a.log", {}});
  ASSERT_NE(it, (*p)->metric_series().end());
  EXPECT_EQ(it->second.value, 2097152);
}

}  // namespace
}  // namespace llmon::logwatch
