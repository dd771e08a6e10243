// The built-in log rule packs (deploy/logwatch/*.yml, as compiled into the
// agent): every rule parses; each real-shaped line of the corpus matches
// exactly its rule with its groups; near misses match nothing; a Python
// traceback becomes one event.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/embedded_file.h"
#include "logwatch/matcher.h"
#include "logwatch/pack_corpus.h"
#include "logwatch/processor.h"
#include "logwatch/rule_file.h"

namespace llmon::logwatch {
namespace {

std::vector<LogRule> pack_rules() {
  std::vector<LogRule> all;
  for (const auto& f : app::default_logwatch_rule_files()) {
    auto r = parse_log_rules(f.content, std::string(f.name));
    EXPECT_TRUE(r) << r.error();
    if (!r) continue;
    Status s = merge_log_rules(all, std::move(*r));
    EXPECT_TRUE(s) << s.message();
  }
  return all;
}

std::unique_ptr<Matcher> pack_matcher(const std::vector<LogRule>& rules) {
  std::vector<Pattern> patterns;
  for (const LogRule& r : rules) patterns.push_back({r.pattern, r.literal, r.case_insensitive});
  auto m = Matcher::build(std::move(patterns));
  EXPECT_TRUE(m) << m.error();
  return m ? std::move(*m) : nullptr;
}

TEST(Packs, AreEmbeddedSortedAndEveryRuleParses) {
  auto files = app::default_logwatch_rule_files();
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].name, "kernel.yml");
  EXPECT_EQ(files[1].name, "training.yml");
  EXPECT_EQ(files[2].name, "training_metrics.yml");
  std::vector<LogRule> rules = pack_rules();
  std::set<std::string> names;
  for (const LogRule& r : rules) names.insert(r.name);
  const std::set<std::string> want = {"cuda_oom",
                                      "nan_inf_loss",
                                      "disk_quota",
                                      "no_space",
                                      "nccl_error",
                                      "nccl_timeout",
                                      "rpc_failure",
                                      "python_traceback",
                                      "killed_by_signal",
                                      "checkpoint_save_failed",
                                      "xid",
                                      "sxid",
                                      "gpu_fallen_off_bus",
                                      "aer_corrected",
                                      "aer_nonfatal",
                                      "aer_fatal",
                                      "oom_kill",
                                      "ib_link",
                                      "hung_task",
                                      "megatron_iteration",
                                      "deepspeed_pipe_steps",
                                      "deepspeed_step_lr",
                                      "deepspeed_throughput",
                                      "hf_trainer_log",
                                      "hf_trainer_summary"};
  EXPECT_EQ(names, want);
  for (const LogRule& r : rules) {
    const bool kernel = r.origin.rfind("kernel.yml", 0) == 0;
    EXPECT_EQ(r.source, kernel ? SourceKind::kKmsg : SourceKind::kFiles) << r.name;
    EXPECT_FALSE(r.labels.empty()) << r.name;
    const bool metrics_pack = r.origin.rfind("training_metrics.yml", 0) == 0;
    if (r.event) {
      EXPECT_FALSE(metrics_pack) << r.name << ": the metrics pack makes no events";
      EXPECT_GT(r.dedup_ms, 0) << r.name;  // an event rule folds its repeats
      continue;
    }
    // A rule without events exists for its metrics: progress lines of one
    // framework (the framework label), every metric a value of the line.
    EXPECT_TRUE(metrics_pack) << r.name;
    EXPECT_EQ(r.severity, Severity::kInfo) << r.name;
    EXPECT_FALSE(r.metrics.empty()) << r.name;
    EXPECT_TRUE(r.labels.count("framework")) << r.name;
    for (const LogMetric& m : r.metrics) {
      EXPECT_FALSE(m.value.empty()) << r.name << ": " << m.name;
      EXPECT_TRUE(m.labels.empty()) << r.name << ": " << m.name << " (series per file and framework only)";
      EXPECT_EQ(m.name.rfind("train_", 0), 0u) << r.name << ": " << m.name;
      EXPECT_EQ(m.kind == MetricKind::kCounter, m.name.size() > 6 && m.name.substr(m.name.size() - 6) == "_total")
          << r.name << ": " << m.name;
    }
    // Counters are labelled only by few-valued groups.
    for (const std::string& c : r.counter_labels)
      EXPECT_TRUE(c == "xid" || c == "sxid" || c == "pci" || c == "state") << r.name << ": " << c;
  }
  auto severity_of = [&](const std::string& n) {
    for (const LogRule& r : rules)
      if (r.name == n) return r.severity;
    return Severity::kInfo;
  };
  EXPECT_EQ(severity_of("cuda_oom"), Severity::kCritical);
  EXPECT_EQ(severity_of("nccl_timeout"), Severity::kCritical);
  EXPECT_EQ(severity_of("python_traceback"), Severity::kWarning);
  EXPECT_EQ(severity_of("no_space"), Severity::kError);
}

TEST(Packs, EachPositiveLineMatchesExactlyItsRuleWithItsGroups) {
  std::vector<LogRule> rules = pack_rules();
  auto m = pack_matcher(rules);
  ASSERT_TRUE(m);
  std::map<std::string, int> per_rule;
  std::vector<Match> out;
  for (const auto& c : testing::pack_positives()) {
    m->match(c.line, out);
    std::vector<std::string> got;
    for (const Match& x : out) got.push_back(rules[x.pattern].name);
    ASSERT_EQ(got, std::vector<std::string>{c.rule}) << c.line;
    std::map<std::string, std::string> groups(out[0].groups.begin(), out[0].groups.end());
    EXPECT_EQ(groups, c.groups) << c.line;
    ++per_rule[c.rule];
  }
  for (const LogRule& r : rules) EXPECT_GE(per_rule[r.name], r.name == "python_traceback" ? 2 : 3) << r.name;
  // Every metric of the metrics pack reads a group some corpus line gives.
  std::set<std::string> given;
  for (const auto& c : testing::pack_positives())
    for (const auto& [g, v] : c.groups) given.insert(c.rule + "." + g);
  for (const LogRule& r : rules)
    for (const LogMetric& m : r.metrics) EXPECT_TRUE(given.count(r.name + "." + m.value)) << r.name << ": " << m.name;
  EXPECT_GE(per_rule["xid"], 5);
}

TEST(Packs, NearMissesMatchNothing) {
  std::vector<LogRule> rules = pack_rules();
  auto m = pack_matcher(rules);
  ASSERT_TRUE(m);
  std::vector<Match> out;
  for (const std::string& line : testing::pack_negatives()) {
    m->match(line, out);
    for (const Match& x : out) ADD_FAILURE() << rules[x.pattern].name << " matched: " << line;
    EXPECT_TRUE(m->matches_none(line)) << line;
  }
}

// A progress line with a NaN is a metrics line and a nan_inf_loss event.
TEST(Packs, ANaNInAProgressLineFeedsTheMetricsAndMakesAnEvent) {
  auto p = Processor::build(pack_rules());
  ASSERT_TRUE(p) << p.error();
  std::vector<Event> ev;
  const std::string log = "/var/log/train/rank0.log";
  (*p)->line(log, false,
             " [2025-11-28 18:50:01] iteration       60/    5000 | consumed samples:        61440 | elapsed time per "
             "iteration (ms): 1250.0 | learning rate: 2.999980E-04 | global batch size:  1024 | lm loss: NAN | loss "
             "scale: 1.0 | grad norm: nan | number of skipped iterations:   0 | number of nan iterations:   1 |",
             1000, ev);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].rule, "nan_inf_loss");
  const MetricSeriesKey loss{"train_loss", log, {{"framework", "megatron"}}};
  ASSERT_TRUE((*p)->metric_series().count(loss));
  EXPECT_TRUE(std::isnan((*p)->metric_series().at(loss).value));
  const MetricSeriesKey nan{"train_nan_iterations_total", log, {{"framework", "megatron"}}};
  EXPECT_EQ((*p)->metric_series().at(nan).value, 1);
  EXPECT_EQ((*p)->metric_parse_errors().at("megatron_iteration"), 0u);
}

TEST(Packs, AKernelLineCountsByItsCounterLabels) {
  auto p = Processor::build(pack_rules());
  ASSERT_TRUE(p) << p.error();
  std::vector<Event> ev;
  (*p)->declare_source("kmsg", true);
  (*p)->line("kmsg", true, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.", 1000,
             ev);
  (*p)->line("kmsg", true, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1235, name=python3, GPU has fallen off the bus.", 2000,
             ev);
  ASSERT_EQ(ev.size(), 1u);  // the second folds into the first (dedup by pci and xid)
  EXPECT_EQ(ev[0].rule, "xid");
  EXPECT_EQ(ev[0].severity, Severity::kError);
  EXPECT_EQ(ev[0].labels.at("pid"), "1234");
  EXPECT_EQ(ev[0].labels.at("category"), "gpu");
  CounterKey key{"xid", "kmsg", Severity::kError, {{"xid", "79"}}};
  EXPECT_EQ((*p)->counters().at(key), 2u);
  // A file line of the same text is not a kernel line.
  (*p)->line("/var/log/dmesg.txt", false, "NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=x, Graphics", 3000, ev);
  EXPECT_EQ(ev.size(), 1u);
}

TEST(Packs, OneOomKillIsOneEventAcrossItsTwoLines) {
  auto p = Processor::build(pack_rules());
  ASSERT_TRUE(p) << p.error();
  std::vector<Event> ev;
  (*p)->line("kmsg", true,
             "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=c1,mems_allowed=0,oom_memcg=/k/p1,"
             "task_memcg=/k/p1/c1,task=python3,pid=4242,uid=0",
             1000, ev);
  (*p)->line("kmsg", true, "Memory cgroup out of memory: Killed process 4242 (python3) total-vm:9kB, anon-rss:8kB",
             1001, ev);
  (*p)->tick(2000, ev);
  ASSERT_EQ(ev.size(), 2u);  // the event, then its update
  EXPECT_EQ(ev[0].id, ev[1].id);
  EXPECT_EQ(ev[1].repeat, 2u);
  EXPECT_EQ(ev[1].labels.at("cgroup"), "/k/p1/c1");
  EXPECT_EQ(ev[1].labels.at("command"), "python3");
}

TEST(Packs, APythonTracebackIsOneEvent) {
  auto p = Processor::build(pack_rules());
  ASSERT_TRUE(p) << p.error();
  const std::vector<std::string> lines = {
      "[rank1]: Traceback (most recent call last):",
      "[rank1]:   File \"/opt/train.py\", line 88, in <module>",
      "[rank1]:     main()",
      "[rank1]:   File \"/opt/train.py\", line 61, in main",
      "[rank1]:     loss.backward()",
      "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 1 has a total capacity "
      "of 79.15 GiB of which 1.02 GiB is free.",
      "step 12 done",
  };
  std::vector<Event> ev;
  int64_t t = 1000;
  for (const std::string& l : lines) (*p)->line("/var/log/train/rank1.log", false, l, t++, ev);
  (*p)->tick(t + 10000, ev);
  ASSERT_EQ(ev.size(), 2u);
  const Event* tb = ev[0].rule == "python_traceback" ? &ev[0] : &ev[1];
  const Event* oom = ev[0].rule == "python_traceback" ? &ev[1] : &ev[0];
  EXPECT_EQ(tb->rule, "python_traceback");
  EXPECT_EQ(tb->severity, Severity::kWarning);
  ASSERT_EQ(tb->lines.size(), 6u);  // up to and with the exception line
  EXPECT_EQ(tb->lines.front(), lines[0]);
  EXPECT_EQ(tb->lines.back(), lines[5]);
  EXPECT_EQ(oom->rule, "cuda_oom");
  EXPECT_EQ(oom->labels.at("size"), "4.00 GiB");
  EXPECT_EQ(oom->labels.at("gpu"), "1");
}

}  // namespace
}  // namespace llmon::logwatch
