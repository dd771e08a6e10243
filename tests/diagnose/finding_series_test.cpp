// Findings as llmon_diagnosis_finding series: one sample per finding with its
// kind, severity, subject and target labels; a staleness marker when it ends.
#include "diagnose/finding_series.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/sample.h"

namespace llmon::diagnose {
namespace {

struct Recorder final : storage::Appender {
  struct Row {
    std::string labels;
    int64_t t;
    double v;
  };
  std::vector<Row> rows;
  int commits = 0;
  Expected<storage::SeriesRef> append(storage::SeriesRef, const model::Labels& l, int64_t t, double v) override {
    rows.push_back({l.to_string(), t, v});
    return storage::SeriesRef{1};
  }
  Status commit() override {
    ++commits;
    return Status::ok();
  }
  Status rollback() override { return Status::ok(); }
};

Finding finding(std::string kind, std::string gpu) {
  Finding f;
  f.kind = std::move(kind);
  f.severity = Severity::kWarning;
  f.subject = {{"gpu", std::move(gpu)}, {"job", "not-this"}};
  return f;
}

TEST(FindingSeries, OneSamplePerFindingThenStale) {
  FindingSeries fs({{"instance", "n1:8747"}, {"job", "llmon"}});
  Diagnosis d;
  d.findings = {finding("idle_gpu", "3"), finding("idle_gpu", "3"), finding("straggler", "1")};
  Recorder a;
  ASSERT_TRUE(fs.write(d, a, 1000).is_ok());
  ASSERT_EQ(a.rows.size(), 2u) << "the same labels twice are one series";
  EXPECT_EQ(a.rows[0].labels,
            R"({__name__="llmon_diagnosis_finding", gpu="3", instance="n1:8747", job="llmon", kind="idle_gpu", )"
            R"(severity="warning"})")
      << "the target's job wins over a subject label of the same name";
  EXPECT_EQ(a.rows[0].v, 1);
  EXPECT_EQ(a.commits, 1);

  d.findings = {finding("straggler", "1")};
  Recorder b;
  ASSERT_TRUE(fs.write(d, b, 2000).is_ok());
  ASSERT_EQ(b.rows.size(), 2u);
  EXPECT_EQ(b.rows[0].v, 1);
  EXPECT_NE(b.rows[1].labels.find("idle_gpu"), std::string::npos);
  EXPECT_TRUE(model::is_stale(b.rows[1].v)) << "the ended finding gets a staleness marker";
  EXPECT_EQ(fs.active().size(), 1u);

  Recorder c;
  ASSERT_TRUE(fs.write(Diagnosis{}, c, 3000).is_ok());
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_TRUE(model::is_stale(c.rows[0].v));
  Recorder e;
  ASSERT_TRUE(fs.write(Diagnosis{}, e, 4000).is_ok());
  EXPECT_TRUE(e.rows.empty()) << "a marker once, not every cycle";
}

TEST(FindingSeries, SeveralGpusAreOneSeriesEach) {
  FindingSeries fs(std::vector<model::Label>{{"job", "llmon"}});
  Diagnosis d;
  d.findings = {finding("input_bound_cpu", "6,7")};
  Recorder a;
  ASSERT_TRUE(fs.write(d, a, 1000).is_ok());
  ASSERT_EQ(a.rows.size(), 2u);
  EXPECT_NE(a.rows[0].labels.find("gpu=\"6\""), std::string::npos) << a.rows[0].labels;
  EXPECT_NE(a.rows[1].labels.find("gpu=\"7\""), std::string::npos) << a.rows[1].labels;
}

}  // namespace
}  // namespace llmon::diagnose
