#include "logwatch/processor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "logwatch/rule_file.h"

namespace llmon::logwatch {
namespace {

std::vector<LogRule> rules(const std::string& yaml) {
  auto r = parse_log_rules(yaml, "test.yml");
  EXPECT_TRUE(r) << r.error();
  return r ? *r : std::vector<LogRule>{};
}

TEST(LogRules, ParsesEveryField) {
  auto r = rules(R"(
rules:
  - name: cuda_oom
    regex: 'CUDA out of memory\. Tried to allocate (?P<size>[0-9.]+ [KMGT]iB)'
    severity: error
    source: files
    labels: {category: memory}
    dedup: 1m
    dedup_by: [size]
  - name: xid
    regex: 'NVRM: Xid \(PCI:(?P<pci>[0-9a-fA-F:.]+)\): (?P<xid>\d+)'
    severity: critical
    source: kmsg
    counter_labels: [xid]
  - name: traceback
    literal: 'Traceback (most recent call last):'
    source: '/var/log/train/*.log'
    multiline: {continue: '^\s', include_end: true, max_lines: 50, timeout: 3s}
)");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].severity, Severity::kError);
  EXPECT_EQ(r[0].dedup_ms, 60000);
  EXPECT_EQ(r[0].labels.at("category"), "memory");
  EXPECT_EQ(r[1].source, SourceKind::kKmsg);
  EXPECT_EQ(r[1].counter_labels, std::vector<std::string>{"xid"});
  EXPECT_TRUE(r[2].literal);
  EXPECT_EQ(r[2].source, SourceKind::kGlob);
  EXPECT_TRUE(r[2].multiline.enabled);
  EXPECT_EQ(r[2].multiline.max_lines, 50u);
  EXPECT_EQ(r[2].multiline.timeout_ms, 3000);
  EXPECT_TRUE(source_selected(r[2], "/var/log/train/a.log", false));
  EXPECT_FALSE(source_selected(r[2], "/var/log/other.log", false));
  EXPECT_FALSE(source_selected(r[1], "/var/log/train/a.log", false));
}

TEST(LogRules, ErrorsNameTheFileLineAndField) {
  struct Case {
    const char* yaml;
    const char* want;
  } cases[] = {
      {"rules:\n  - name: a\n    regex: '('\n", "test.yml:3:12: rule a: missing )"},
      {"rules:\n  - name: a\n    regex: x\n    severity: loud\n", "test.yml:4:15: severity \"loud\""},
      {"rules:\n  - name: a\n    regex: x\n    colour: red\n", "test.yml:4:5: unknown field \"colour\""},
      {"rules:\n  - name: a\n    regex: x\n    literal: y\n", "give exactly one of regex and literal"},
      {"rules:\n  - name: a\n    regex: x\n    counter_labels: [pci]\n", "\"pci\" is not a named group"},
      {"rules:\n  - name: a\n    regex: x\n  - name: a\n    regex: y\n", "test.yml:4:5: rule a is defined twice"},
      {"rules:\n  - name: 'bad name'\n    regex: x\n", "letters, digits and _ only"},
      {"rules: [\n", "test.yml:2:1:"},
      {"rules:\n  - name: a\n    regex: x\n    dedup: often\n", "test.yml:4:12: dedup:"},
  };
  for (const auto& c : cases) {
    auto r = parse_log_rules(c.yaml, "test.yml");
    ASSERT_FALSE(r) << c.yaml;
    EXPECT_NE(r.error().find(c.want), std::string::npos) << r.error() << "\n  wanted: " << c.want;
  }
}

TEST(LogRules, MergingRefusesADuplicateNamingBothPlaces) {
  auto a = rules("rules:\n  - name: x\n    regex: a\n");
  auto b = parse_log_rules("rules:\n  - name: x\n    regex: b\n", "mine.yml");
  ASSERT_TRUE(b);
  Status s = merge_log_rules(a, *b);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("mine.yml:2: rule x is already defined at test.yml:2"), std::string::npos) << s.message();
}

class ProcessorTest : public ::testing::Test {
 protected:
  std::unique_ptr<Processor> build(const std::string& yaml) {
    auto p = Processor::build(rules(yaml));
    EXPECT_TRUE(p) << p.error();
    return p ? std::move(*p) : nullptr;
  }
  std::vector<Event> out_;
};

TEST_F(ProcessorTest, CountersStartAtZeroAndCountEveryOccurrence) {
  auto p = build("rules:\n  - name: oom\n    literal: 'CUDA out of memory'\n    severity: error\n");
  p->declare_source("/a.log", false);
  p->declare_source("kmsg", true);  // a files rule: no counter for kmsg
  ASSERT_EQ(p->counters().size(), 1u);
  EXPECT_EQ(p->counters().begin()->second, 0u);
  p->line("/a.log", false, "RuntimeError: CUDA out of memory. Tried", 10, out_);
  p->line("/a.log", false, "unrelated", 11, out_);
  p->line("/a.log", false, "CUDA out of memory again", 12, out_);
  EXPECT_EQ(p->counters().at(CounterKey{"oom", "/a.log", Severity::kError, {}}), 2u);
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[0].rule, "oom");
  EXPECT_EQ(out_[0].lines, std::vector<std::string>{"RuntimeError: CUDA out of memory. Tried"});
  EXPECT_NE(out_[0].id, out_[1].id);
}

TEST_F(ProcessorTest, NamedGroupsLabelEventsAndCounterLabelsLabelCounters) {
  auto p = build(R"(
rules:
  - name: xid
    regex: 'NVRM: Xid \(PCI:(?P<pci>[0-9a-f:.]+)\): (?P<xid>\d+)'
    source: kmsg
    severity: critical
    counter_labels: [xid]
)");
  p->line("kmsg", true, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.", 5, out_);
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].labels.at("pci"), "0000:3b:00");
  EXPECT_EQ(out_[0].labels.at("xid"), "79");
  EXPECT_EQ(p->counters().at(CounterKey{"xid", "kmsg", Severity::kCritical, {{"xid", "79"}}}), 1u);
  p->line("/a.log", false, "NVRM: Xid (PCI:0000:3b:00): 79", 6, out_);  // not a kmsg source
  EXPECT_EQ(out_.size(), 1u);
}

TEST_F(ProcessorTest, DedupFoldsRepeatsIntoOneEventUpdatedByTick) {
  auto p = build(R"(
rules:
  - name: xid
    regex: 'Xid \(PCI:(?P<pci>[^)]+)\): (?P<xid>\d+)'
    source: any
    dedup: 10s
    dedup_by: [pci, xid]
)");
  p->line("kmsg", true, "Xid (PCI:0000:3b:00): 13", 1000, out_);
  for (int i = 1; i <= 500; ++i) p->line("kmsg", true, "Xid (PCI:0000:3b:00): 13", 1000 + i, out_);
  p->line("kmsg", true, "Xid (PCI:0000:86:00): 13", 1600, out_);  // another GPU: its own event
  ASSERT_EQ(out_.size(), 2u);
  const uint64_t id = out_[0].id;
  out_.clear();
  p->tick(2000, out_);
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].id, id);
  EXPECT_EQ(out_[0].repeat, 501u);
  EXPECT_EQ(out_[0].first_ms, 1000);
  EXPECT_EQ(out_[0].time_ms, 1500);
  out_.clear();
  p->tick(3000, out_);
  EXPECT_TRUE(out_.empty());                                       // nothing new: no update
  p->line("kmsg", true, "Xid (PCI:0000:3b:00): 13", 11001, out_);  // the window is over: a new event
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_NE(out_[0].id, id);
}

TEST_F(ProcessorTest, TracebacksAreGroupedUntilTheExceptionLine) {
  auto p = build(R"(
rules:
  - name: python_traceback
    literal: 'Traceback (most recent call last):'
    severity: error
    multiline: {continue: '^\s'}
  - name: cuda_oom
    regex: 'CUDA out of memory\. Tried to allocate (?P<size>[0-9.]+ [KMGT]iB)'
    severity: error
)");
  const char* lines[] = {
      "step 100 loss 2.31",
      "Traceback (most recent call last):",
      "  File \"train.py\", line 10, in <module>",
      "    loss.backward()",
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
      "next line",
  };
  for (const char* l : lines) p->line("/t.log", false, l, 1, out_);
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[0].rule, "python_traceback");
  ASSERT_EQ(out_[0].lines.size(), 4u);
  EXPECT_EQ(out_[0].lines[3], lines[4]);
  EXPECT_EQ(out_[1].rule, "cuda_oom");
  EXPECT_EQ(out_[1].labels.at("size"), "2.00 GiB");
}

TEST_F(ProcessorTest, AnOpenGroupIsEmittedAfterItsTimeout) {
  auto p = build(R"(
rules:
  - name: tb
    literal: 'Traceback'
    multiline: {continue: '^\s', timeout: 2s}
)");
  p->line("/t.log", false, "Traceback", 1000, out_);
  p->line("/t.log", false, "  File x", 1100, out_);
  p->tick(2000, out_);
  EXPECT_TRUE(out_.empty());
  p->tick(3000, out_);
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].lines.size(), 2u);
}

}  // namespace
}  // namespace llmon::logwatch
