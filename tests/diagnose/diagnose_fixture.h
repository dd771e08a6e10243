// The fixture of the diagnosis tests: a real store (tsdb::Db in a temporary
// directory) that a test fills with synthetic series (15 minutes and 5 before
// at 15 s unless told), diagnosed by the real PromQL engine. Shared by every
// *_test.cpp under tests/diagnose/.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <limits>

#include "diagnose/diagnose.h"
#include "tsdb/db.h"

namespace llmon::diagnose::fixture {

constexpr int64_t kEnd = 1'800'000'000'000;  // ms
constexpr int64_t kWindow = 15 * 60 * 1000;
constexpr double kGiB = 1024.0 * 1024 * 1024;

// The host's series: how idle its cores are, swapping, I/O stalls, disk busy.
struct Host {
  double idle_share = 0.8;
  double swap_pages_per_s = 0;
  double psi_io = 0.02;
  double disk_util = 0.1;
};

class DiagnoseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/diagnose_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    tsdb::DbOptions o;
    o.path = dir_ + "/data";
    o.background = false;
    o.min_free_bytes = 0;
    o.retention_ms = std::numeric_limits<int64_t>::max() / 4;
    auto db = tsdb::Db::open(o, log_, clock_);
    ASSERT_TRUE(db.has_value()) << db.error();
    db_ = std::move(*db);
  }
  void TearDown() override {
    engine_.reset();
    if (db_) (void)db_->close();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // One series over the window (and 5 minutes before it), every 15 s; f(i, n) with i the sample index.
  void series(const std::string& name, std::vector<model::Label> labels, std::function<double(int, int)> f,
              int64_t span_ms = kWindow + 5 * 60 * 1000) {
    labels.push_back({"__name__", name});
    labels.push_back({"job", "llmon"});
    labels.push_back({"instance", "node1:8747"});
    auto l = model::Labels::make(std::move(labels));
    ASSERT_TRUE(l) << l.error();
    auto app = db_->appender();
    const int n = static_cast<int>(span_ms / 15000) + 1;
    for (int i = 0; i < n; ++i) {
      int64_t t = kEnd - static_cast<int64_t>(n - 1 - i) * 15000;
      auto r = app->append(0, *l, t, f(i, n));
      ASSERT_TRUE(r) << r.error();
    }
    ASSERT_TRUE(app->commit().is_ok());
  }
  static std::function<double(int, int)> constant(double v) {
    return [v](int, int) { return v; };
  }
  std::vector<model::Label> gpu(const std::string& id) {
    return {{"gpu", id}, {"UUID", "GPU-" + id}, {"modelName", "NVIDIA H100 80GB HBM3"}};
  }
  // A busy, healthy GPU: 95 %, 60 of 80 GiB, cool, full clocks, no reason active.
  void healthy_gpu(const std::string& id, double util = 95) { busy_gpu(id, constant(util)); }
  // The same with utilisation f(i, n).
  void busy_gpu(const std::string& id, std::function<double(int, int)> util) {
    series("DCGM_FI_DEV_GPU_UTIL", gpu(id), std::move(util));
    series("DCGM_FI_DEV_FB_USED", gpu(id), constant(60000));
    series("DCGM_FI_DEV_FB_FREE", gpu(id), constant(20000));
    series("DCGM_FI_DEV_SM_CLOCK", gpu(id), constant(1980));
    series("DCGM_FI_DEV_MAX_SM_CLOCK", gpu(id), constant(1980));
    series("DCGM_FI_DEV_GPU_TEMP", gpu(id), constant(60));
    series("DCGM_FI_DEV_SLOWDOWN_TEMP", gpu(id), constant(89));
    series("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", gpu(id), constant(0));
    series("DCGM_FI_DEV_PCIE_LINK_GEN", gpu(id), constant(5));
    series("DCGM_FI_DEV_PCIE_MAX_LINK_GEN", gpu(id), constant(5));
    series("DCGM_FI_DEV_PCIE_LINK_WIDTH", gpu(id), constant(16));
    series("DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", gpu(id), constant(16));
    auto thermal = gpu(id);
    thermal.push_back({"reason", "sw_thermal_slowdown"});
    series("llmon_gpu_clock_event_reason_active", thermal, constant(0));
    process(id, "41" + id, 55 * kGiB, 0.3);
  }
  void process(const std::string& id, const std::string& pid, double bytes, double cores) {
    auto p = gpu(id);
    p.push_back({"pid", pid});
    p.push_back({"command", "python"});
    series("llmon_gpu_process_memory_bytes", p, constant(bytes));
    series("llmon_gpu_process_cpu_seconds_total", p, [cores](int i, int) { return 1000 + i * 15 * cores; });
  }
  void host(Host h = {}) {
    const double idle_share = h.idle_share;
    for (const char* cpu : {"0", "1"}) {
      series("node_cpu_seconds_total", {{"cpu", cpu}, {"mode", "idle"}},
             [idle_share](int i, int) { return 5000 + i * 15 * idle_share; });
      series("node_cpu_seconds_total", {{"cpu", cpu}, {"mode", "iowait"}}, [](int i, int) { return 10 + i * 0.15; });
    }
    series("node_memory_MemTotal_bytes", {}, constant(64 * kGiB));
    series("node_memory_MemAvailable_bytes", {}, constant(40 * kGiB));
    series("node_vmstat_pswpin", {}, [h](int i, int) { return i * 15 * h.swap_pages_per_s; });
    series("node_vmstat_pswpout", {}, constant(0));
    series("node_pressure_cpu_waiting_seconds_total", {}, [](int i, int) { return i * 0.15; });
    series("node_pressure_memory_waiting_seconds_total", {}, constant(3));
    series("node_pressure_io_waiting_seconds_total", {}, [h](int i, int) { return i * 15 * h.psi_io; });
    series("node_disk_io_time_seconds_total", {{"device", "nvme0n1"}},
           [h](int i, int) { return i * 15 * h.disk_util; });
  }

  Diagnosis diagnose() {
    engine_ = std::make_unique<promql::Engine>(*db_, promql::EngineOptions{});
    EngineSource src(*engine_);
    Options o;
    o.t_ms = kEnd;
    o.window_ms = kWindow;
    o.selector = "job=\"llmon\"";
    o.gpu_price = default_gpu_prices();
    return run(src, o);
  }
  static const Finding* find(const Diagnosis& d, std::string_view kind) {
    for (const auto& f : d.findings)
      if (f.kind == kind) return &f;
    return nullptr;
  }
  static std::string kinds(const Diagnosis& d) {
    std::string s;
    for (const auto& f : d.findings) s += f.kind + "(" + f.summary + ") ";
    return s;
  }

  std::string dir_;
  base::Logger log_{base::LogLevel::kError};
  base::ManualClock clock_{kEnd};
  std::unique_ptr<tsdb::Db> db_;
  std::unique_ptr<promql::Engine> engine_;
};

}  // namespace llmon::diagnose::fixture
