// Findings cite the anomalous series of their subject and kind, as evidence
// only (docs/diagnosis.md "Baselines and anomalies").
#include "diagnose/anomaly_cite.h"

#include <gtest/gtest.h>

namespace llmon::diagnose {
namespace {

constexpr int64_t kMin = 60'000;

model::Labels gpu(std::string g) {
  return *model::Labels::make({{"gpu", std::move(g)}, {"job", "llmon"}});
}

// An hour of steady temperatures on GPUs 2 and 3 and steady CPU, then GPU 3 runs 15 degrees hot.
anomaly::Scorer hot_gpu3(int64_t& t) {
  anomaly::Scorer s;
  for (t = 0; t <= 60 * kMin; t += kMin) {
    s.observe("temp", gpu("2"), 1.5, t, 60 + (t / kMin) % 2);
    s.observe("temp", gpu("3"), 1.5, t, t == 60 * kMin ? 75 : 60 + (t / kMin) % 2);
    s.observe("cpu_busy", *model::Labels::make({{"job", "llmon"}}), 0.03, t, 0.2);
  }
  t -= kMin;
  return s;
}

Finding finding(std::string kind, std::string g) {
  Finding f;
  f.kind = std::move(kind);
  f.severity = Severity::kWarning;
  if (!g.empty()) f.subject["gpu"] = std::move(g);
  f.evidence.push_back({"x", 1, "the detector's own"});
  return f;
}

TEST(AnomalyCite, AFindingCitesItsGpusAnomalousSeriesOnly) {
  int64_t t;
  anomaly::Scorer s = hot_gpu3(t);
  Diagnosis d;
  d.options.t_ms = t;
  d.options.selector = "job=\"llmon\"";
  d.findings = {finding("straggler", "3"), finding("straggler", "2"), finding("memory_leak_gpu", "3"),
                finding("input_bound_cpu", "")};
  cite_anomalies(d, s);
  ASSERT_EQ(d.findings[0].evidence.size(), 2u);
  const Evidence& e = d.findings[0].evidence[1];
  EXPECT_EQ(e.expr, "avg_over_time(DCGM_FI_DEV_GPU_TEMP{job=\"llmon\",gpu=\"3\",GPU_I_ID=\"\"}[1m])");
  EXPECT_EQ(e.value, 75);
  EXPECT_EQ(e.note,
            "anomaly: temp peaked at score 0.69 (since 0 s before the end) against its baseline median 60.5, scale 1.5")
      << "75 against 60.5 at the 1.5-degree floor: z 9.7";
  EXPECT_EQ(d.findings[1].evidence.size(), 1u) << "GPU 2 is not anomalous";
  EXPECT_EQ(d.findings[2].evidence.size(), 1u) << "a GPU memory finding cites fb_used, not temp";
  EXPECT_EQ(d.findings[3].evidence.size(), 1u) << "the CPU was steady";
  EXPECT_EQ(d.findings.size(), 4u);
}

TEST(AnomalyCite, OutsideTheWindowNothingIsCited) {
  int64_t t;
  anomaly::Scorer s = hot_gpu3(t);
  Diagnosis d;
  d.options.t_ms = t + 30 * kMin;
  d.options.window_ms = 15 * kMin;
  d.findings = {finding("straggler", "3")};
  cite_anomalies(d, s);
  EXPECT_EQ(d.findings[0].evidence.size(), 1u);
}

}  // namespace
}  // namespace llmon::diagnose
