// The diagnosis engine and its detectors over a real store (tsdb::Db in a
// temporary directory) filled with 15 minutes of synthetic series at 15 s,
// and PromQL evaluated by the real engine: each test injects one problem and
// checks the kind, subject, severity and evidence, and that a healthy node
// has no finding. The labelled scenario evaluation is docs/diagnosis.md's.
#include "diagnose/diagnose.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "diagnose/report.h"
#include "diagnose_fixture.h"
#include "nlohmann/json.hpp"

namespace llmon::diagnose {
namespace {

using fixture::DiagnoseTest;
using fixture::kEnd;
using fixture::kGiB;

TEST_F(DiagnoseTest, HealthyNodeHasNoFindingsAndASummary) {
  healthy_gpu("0");
  healthy_gpu("1");
  host();
  Diagnosis d = diagnose();
  EXPECT_TRUE(d.findings.empty()) << kinds(d);
  EXPECT_TRUE(d.errors.empty()) << d.errors.front();
  EXPECT_EQ(d.summary.gpus, 2);
  EXPECT_NEAR(d.summary.gpu_utilization_avg, 95, 1e-9);
  EXPECT_NEAR(d.summary.gpu_hours, 0.5, 1e-9);
  EXPECT_NEAR(d.summary.cost, 0.5 * 2.5, 1e-9) << "H100 at the default $2.5/h";
  EXPECT_NE(format_text(d).find("healthy: 2 GPUs at 95 %"), std::string::npos) << format_text(d);
}

TEST_F(DiagnoseTest, IdleGpuHoldingMemoryNamesTheProcessAndTheCost) {
  healthy_gpu("0");
  series("DCGM_FI_DEV_GPU_UTIL", gpu("1"), constant(2));
  series("DCGM_FI_DEV_FB_USED", gpu("1"), constant(41000));
  series("DCGM_FI_DEV_FB_FREE", gpu("1"), constant(39000));
  process("1", "5150", 40 * kGiB, 0.01);
  host();
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kIdleGpu);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->subject.at("gpu"), "1");
  EXPECT_EQ(f->subject.at("pid"), "5150");
  EXPECT_GE(f->confidence, 0.99);
  EXPECT_NE(f->summary.find("averaged 2 % busy"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("40.0 GiB"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("$0.61 of GPU time unused"), std::string::npos) << f->summary;  // 0.25 h x 2.5 x 0.98
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_NE(f->evidence[0].expr.find("DCGM_FI_DEV_GPU_UTIL{job=\"llmon\",GPU_I_ID=\"\"}"), std::string::npos);
  EXPECT_EQ(find(d, kind::kInputBoundCpu), nullptr) << "2 % with no CPU signal is idle, not starved";
}

TEST_F(DiagnoseTest, ThermalThrottlingOfABusyGpu) {
  healthy_gpu("1");
  series("DCGM_FI_DEV_GPU_UTIL", gpu("0"), constant(90));
  series("DCGM_FI_DEV_SM_CLOCK", gpu("0"), constant(1500));
  series("DCGM_FI_DEV_MAX_SM_CLOCK", gpu("0"), constant(1980));
  series("DCGM_FI_DEV_GPU_TEMP", gpu("0"), constant(88));
  series("DCGM_FI_DEV_SLOWDOWN_TEMP", gpu("0"), constant(89));
  auto r = gpu("0");
  r.push_back({"reason", "sw_thermal_slowdown"});
  series("llmon_gpu_clock_event_reason_active", r, [](int i, int) { return i % 5 < 3 ? 1 : 0; });  // 60 %
  host();
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kThermalThrottling);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_EQ(f->subject.at("gpu"), "0");
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->summary.find("SM clock at 76 %"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("(slows down at 89 °C)"), std::string::npos) << f->summary;
  EXPECT_EQ(find(d, kind::kPowerThrottling), nullptr);
}

TEST_F(DiagnoseTest, GpuMemoryNearFullAndFillingIsCritical) {
  healthy_gpu("0");
  series("DCGM_FI_DEV_GPU_UTIL", gpu("1"), constant(90));
  series("DCGM_FI_DEV_FB_USED", gpu("1"), [](int i, int) { return 78000 + i * 10; });
  series("DCGM_FI_DEV_FB_FREE", gpu("1"), [](int i, int) { return 2000 - i * 10; });
  host();
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kGpuMemoryPressure);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_EQ(f->subject.at("gpu"), "1");
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_NE(f->summary.find("full in about"), std::string::npos) << f->summary;
  EXPECT_EQ(d.findings.front().kind, kind::kGpuMemoryPressure) << "critical first: " << kinds(d);
}

TEST_F(DiagnoseTest, HardwareFaultsFromEccXidAndPcie) {
  healthy_gpu("0");
  healthy_gpu("1");
  series("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", gpu("2"), constant(2));
  auto x = gpu("1");
  x.push_back({"xid", "79"});
  // Born at the first event with value 1, as llmon's event counter is.
  {
    auto l = x;
    l.push_back({"__name__", "llmon_gpu_xid_errors_total"});
    l.push_back({"job", "llmon"});
    l.push_back({"instance", "node1:8747"});
    auto labels = model::Labels::make(l);
    auto app = db_->appender();
    for (int i = 9; i >= 0; --i) ASSERT_TRUE(app->append(0, *labels, kEnd - i * 15000, 1));
    ASSERT_TRUE(app->commit().is_ok());
  }
  series("DCGM_FI_DEV_PCIE_LINK_GEN", gpu("3"), constant(3));
  series("DCGM_FI_DEV_PCIE_MAX_LINK_GEN", gpu("3"), constant(5));
  host();
  Diagnosis d = diagnose();
  int critical = 0, pcie = 0;
  for (const auto& f : d.findings) {
    if (f.kind != kind::kHardwareFault) continue;
    if (f.severity == Severity::kCritical) ++critical;
    if (f.summary.find("PCIe link never above gen 3") != std::string::npos) {
      ++pcie;
      EXPECT_EQ(f.subject.at("gpu"), "3");
    }
  }
  EXPECT_EQ(critical, 2) << kinds(d);  // the DBE errors and Xid 79
  EXPECT_EQ(pcie, 1) << kinds(d);
}

TEST_F(DiagnoseTest, DataLoaderPinnedToOneCoreStarvesTheGpu) {
  series("DCGM_FI_DEV_GPU_UTIL", gpu("0"), [](int i, int) { return i % 2 ? 70 : 10; });  // ~40 %
  series("DCGM_FI_DEV_FB_USED", gpu("0"), constant(30000));
  series("DCGM_FI_DEV_FB_FREE", gpu("0"), constant(50000));
  process("0", "777", 30 * kGiB, 1.0);
  host();
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kInputBoundCpu);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_EQ(f->subject.at("pid"), "777");
  EXPECT_NE(f->summary.find("process 777 at 100 % of a core"), std::string::npos) << f->summary;
  EXPECT_EQ(find(d, kind::kInputBoundIo), nullptr) << kinds(d);
  EXPECT_EQ(find(d, kind::kIdleGpu), nullptr) << kinds(d);
}

TEST_F(DiagnoseTest, StorageStallsStarveTheGpu) {
  series("DCGM_FI_DEV_GPU_UTIL", gpu("0"), constant(35));
  series("DCGM_FI_DEV_FB_USED", gpu("0"), constant(30000));
  series("DCGM_FI_DEV_FB_FREE", gpu("0"), constant(50000));
  process("0", "778", 30 * kGiB, 0.3);
  host({.psi_io = 0.5, .disk_util = 0.98});
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kInputBoundIo);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_NE(f->summary.find("I/O stalls 50 %, busiest disk 98 %"), std::string::npos) << f->summary;
  EXPECT_GE(f->confidence, 0.69) << "two signals";
}

TEST_F(DiagnoseTest, HostSwappingIsMemoryPressure) {
  healthy_gpu("0");
  host({.swap_pages_per_s = 400});
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kHostMemoryPressure);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_NE(f->summary.find("swapping 400 pages/s"), std::string::npos) << f->summary;
}

TEST_F(DiagnoseTest, OneHotGpuIsAStragglerFirst) {
  for (const char* id : {"0", "1", "2"}) healthy_gpu(id, 90);
  series("DCGM_FI_DEV_GPU_UTIL", gpu("3"), constant(70));
  series("DCGM_FI_DEV_MAX_SM_CLOCK", gpu("3"), constant(1980));
  series("DCGM_FI_DEV_SM_CLOCK", gpu("3"), constant(1700));
  auto r = gpu("3");
  r.push_back({"reason", "sw_thermal_slowdown"});
  series("llmon_gpu_clock_event_reason_active", r, [](int i, int) { return i % 2; });
  host();
  Diagnosis d = diagnose();
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].kind, kind::kStraggler) << kinds(d);
  EXPECT_EQ(d.findings[0].subject.at("gpu"), "3");
  EXPECT_NE(d.findings[0].summary.find("throttles for heat"), std::string::npos) << d.findings[0].summary;
  ASSERT_GE(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[1].kind, kind::kThermalThrottling) << "the symptom right after its cause: " << kinds(d);
}

TEST_F(DiagnoseTest, SteadyGrowthIsALeakAStepIsNot) {
  healthy_gpu("0");
  host();
  const int64_t span = 80 * 60 * 1000;
  auto leak = gpu("0");
  leak.push_back({"pid", "9001"});
  leak.push_back({"command", "train.py"});
  series(
      "llmon_gpu_process_resident_memory_bytes", leak, [](int i, int) { return 8 * kGiB * (1 + i * 0.0005); },
      span);  // +12 %/h of the start, 11 %/h of the mean
  auto step = gpu("0");
  step.push_back({"pid", "9002"});
  step.push_back({"command", "serve.py"});
  series(
      "llmon_gpu_process_resident_memory_bytes", step, [](int i, int n) { return i < n / 4 ? 2 * kGiB : 6 * kGiB; },
      span);  // warm-up, then flat
  Diagnosis d = diagnose();
  int leaks = 0;
  for (const auto& f : d.findings) {
    if (f.kind != kind::kMemoryLeakHost) continue;
    ++leaks;
    EXPECT_EQ(f.subject.at("pid"), "9001");
    EXPECT_NE(f.summary.find("grows 11 % an hour over 1h"), std::string::npos) << f.summary;
  }
  EXPECT_EQ(leaks, 1) << kinds(d);
}

TEST_F(DiagnoseTest, JsonCarriesEveryField) {
  healthy_gpu("0");
  series("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", gpu("1"), constant(1));
  host();
  auto j = nlohmann::json::parse(format_json(diagnose()));
  EXPECT_EQ(j["schema"], "llmon.diagnosis.v1");
  EXPECT_EQ(j["window_seconds"], 900);
  EXPECT_EQ(j["end"], "2027-01-15T08:00:00.000Z");
  EXPECT_FALSE(j["healthy"]);
  ASSERT_EQ(j["findings"].size(), 1u) << j.dump(1);
  const auto& f = j["findings"][0];
  EXPECT_EQ(f["kind"], "hardware_fault");
  EXPECT_EQ(f["severity"], "critical");
  EXPECT_EQ(f["subject"]["gpu"], "1");
  EXPECT_EQ(f["evidence"][0]["value"], 1);
  EXPECT_TRUE(f["advice"].is_string());
}

TEST_F(DiagnoseTest, JsonRoundTrips) {
  healthy_gpu("0");
  series("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", gpu("1"), constant(1));
  host();
  Diagnosis d = diagnose();
  std::string json = format_json(d);
  auto back = parse_json(json);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(format_json(*back), json);
  EXPECT_EQ(format_text(*back), format_text(d));
  auto wrapped = parse_json(R"({"status":"success","data":)" + json + "}");
  ASSERT_TRUE(wrapped) << wrapped.error();
  EXPECT_EQ(wrapped->findings.size(), 1u);
  EXPECT_FALSE(parse_json("{\"schema\":\"other\"}"));
  EXPECT_FALSE(parse_json("not json"));
  EXPECT_FALSE(parse_json(R"({"schema":"llmon.diagnosis.v1"})"));
}

// A source whose every query fails: the diagnosis still completes, listing them.
class Broken final : public QuerySource {
 public:
  Expected<promql::Vector> instant(std::string_view expr, int64_t) override {
    return Status::error(std::string(expr) + ": storage read error");
  }
};

TEST(Diagnose, FailingQueriesAreReportedNotFatal) {
  Broken b;
  Options o;
  o.t_ms = kEnd;
  Diagnosis d = run(b, o);
  EXPECT_TRUE(d.findings.empty());
  EXPECT_FALSE(d.errors.empty());
  EXPECT_NE(format_text(d).find("query failed: "), std::string::npos);
}

TEST(Diagnose, GpuPrices) {
  auto p = parse_gpu_prices("H100=3,MI300X=2.2");
  ASSERT_TRUE(p) << p.error();
  Options o;
  o.gpu_price = *p;
  EXPECT_DOUBLE_EQ(gpu_price_for(o, "NVIDIA H100 80GB HBM3"), 3);
  EXPECT_DOUBLE_EQ(gpu_price_for(o, "AMD Instinct MI300X"), 2.2);
  EXPECT_DOUBLE_EQ(gpu_price_for(o, "NVIDIA A100-SXM4-80GB"), 1.8) << "defaults stay";
  EXPECT_DOUBLE_EQ(gpu_price_for(o, "NVIDIA L40S"), 1.6) << "the longest key wins over L4";
  EXPECT_DOUBLE_EQ(gpu_price_for(o, "Tesla T4"), o.default_gpu_price);
  EXPECT_FALSE(parse_gpu_prices("H100"));
  EXPECT_FALSE(parse_gpu_prices("H100=cheap"));
  EXPECT_FALSE(parse_gpu_prices("=2"));
  auto e = parse_gpu_prices("H100=-1");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("H100=-1"), std::string::npos);
}

TEST(Diagnose, EveryKindIsDocumented) {
  std::ifstream in(std::string(LLMON_SOURCE_DIR) + "/docs/diagnosis.md");
  std::stringstream doc;
  doc << in.rdbuf();
  for (const auto& d : builtin_detectors())
    for (std::string_view k : d->kinds())
      EXPECT_NE(doc.str().find("`" + std::string(k) + "`"), std::string::npos)
          << k << " missing from docs/diagnosis.md";
}

}  // namespace
}  // namespace llmon::diagnose
