#include "summary/gpu_summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "summary/host_summary.h"
#include "gpu/labels.h"
#include "gpu/process_info.h"
#include "model/snapshot_builder.h"

namespace llmon::summary {
namespace {

using model::MetricType;
constexpr double kMiB = 1024.0 * 1024.0;

// Labels exactly as the NVIDIA collector writes them (gpu::LabelScheme).
const gpu::LabelScheme kNv(gpu::HostnameLabel::kUpper, "node1", "550.54.15");
const gpu::LabelScheme kAmd(gpu::HostnameLabel::kNone, "", "");

gpu::DeviceIdentity nv(int i) {
  gpu::DeviceIdentity id;
  id.gpu = std::to_string(i);
  id.uuid = "GPU-0000000" + std::to_string(i);
  id.pci_bus_id = "00000000:1" + std::to_string(i) + ":00.0";
  id.device = "nvidia" + std::to_string(i);
  id.model_name = "NVIDIA H100 80GB HBM3";
  return id;
}

gpu::DeviceIdentity mig(int parent, std::string profile, std::string gi) {
  gpu::DeviceIdentity id = nv(parent);
  id.mig_profile = std::move(profile);
  id.mig_instance_id = std::move(gi);
  return id;
}

std::vector<std::string> values(const gpu::LabelScheme& s, const gpu::DeviceIdentity& id,
                                std::initializer_list<std::string_view> extra = {}) {
  std::vector<std::string> v;
  s.values(id, v, extra);
  return v;
}

void gauge(model::SnapshotBuilder& b, std::string_view name, std::initializer_list<std::pair<int, double>> per_gpu) {
  auto f = b.family(name, "", MetricType::kGauge, kNv.names(false));
  for (const auto& [i, v] : per_gpu) f.add(values(kNv, nv(i)), v);
}

// Two H100s, emitted in the order 1, 0. GPU 0 busy and power capped; GPU 1
// lost (no values but info/up). One MIG instance on GPU 0. `k` advances the
// counters: CPU seconds of pid 100 grow by 1.5 s per step; pid 300 restarts.
void build_nvidia(model::Snapshot& s, int64_t ts, double k) {
  model::SnapshotBuilder b(s, ts);
  b.family("llmon_gpu_backend_up", "", MetricType::kGauge, {"backend", "reason"}).add({"nvml", ""}, 1);
  b.family("llmon_gpu_backend_info", "", MetricType::kGauge,
           {"backend", "driver_version", "nvml_version", "cuda_driver_version"})
      .add({"nvml", "550.54.15", "12.550.54.15", "12.4"}, 1);
  {
    auto up = b.family("llmon_gpu_up", "", MetricType::kGauge, kNv.names(false));
    up.add(values(kNv, nv(1)), 0);
    up.add(values(kNv, nv(0)), 1);
    auto info = b.family("llmon_gpu_info", "", MetricType::kGauge, kNv.names(false, {"backend"}));
    info.add(values(kNv, nv(1), {"nvml"}), 1);
    info.add(values(kNv, nv(0), {"nvml"}), 1);
  }
  gauge(b, "DCGM_FI_DEV_GPU_UTIL", {{0, 97}});
  gauge(b, "DCGM_FI_DEV_MEM_COPY_UTIL", {{0, 40}});
  gauge(b, "DCGM_FI_DEV_FB_USED", {{0, 72704}});  // MiB
  gauge(b, "DCGM_FI_DEV_FB_TOTAL", {{0, 81920}});
  gauge(b, "DCGM_FI_DEV_FB_RESERVED", {{0, 512}});
  {
    auto f = b.family("DCGM_FI_DEV_FB_USED", "", MetricType::kGauge, kNv.names(true));
    f.add(values(kNv, mig(0, "1g.10gb", "13")), 1024);
    f.add(values(kNv, mig(0, "3g.40gb", "2")), 2048);
    auto t = b.family("DCGM_FI_DEV_FB_TOTAL", "", MetricType::kGauge, kNv.names(true));
    t.add(values(kNv, mig(0, "3g.40gb", "2")), 40192);
  }
  gauge(b, "DCGM_FI_DEV_GPU_TEMP", {{0, 61}});
  gauge(b, "DCGM_FI_DEV_POWER_USAGE", {{0, 612.4}});
  gauge(b, "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", {{0, 700}});
  gauge(b, "DCGM_FI_DEV_SM_CLOCK", {{0, 1980}});
  gauge(b, "DCGM_FI_DEV_MEM_CLOCK", {{0, 2619}});
  gauge(b, "DCGM_FI_DEV_PSTATE", {{0, 0}});
  gauge(b, "DCGM_FI_DEV_PCIE_LINK_GEN", {{0, 5}});
  gauge(b, "DCGM_FI_DEV_PCIE_LINK_WIDTH", {{0, 16}});
  gauge(b, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", {{0, 0}});
  gauge(b, "DCGM_FI_DEV_XID_ERRORS", {{0, 79}});
  {
    auto f = b.family("llmon_gpu_clock_event_reason_active", "", MetricType::kGauge, kNv.names(false, {"reason"}));
    f.add(values(kNv, nv(0), {"gpu_idle"}), 0);
    f.add(values(kNv, nv(0), {"sw_power_cap"}), 1);
    f.add(values(kNv, nv(0), {"hw_slowdown"}), 0);
    f.add(values(kNv, nv(0), {"sw_thermal_slowdown"}), 1);
  }
  {
    auto st = b.family("llmon_gpu_health_state", "", MetricType::kGauge, kNv.names(false, {"state"}));
    st.add(values(kNv, nv(0), {"healthy"}), 0);
    st.add(values(kNv, nv(0), {"degraded"}), 0);
    st.add(values(kNv, nv(0), {"unhealthy"}), 1);
    auto ac = b.family("llmon_gpu_health_action", "", MetricType::kGauge, kNv.names(false, {"action"}));
    ac.add(values(kNv, nv(0), {"none"}), 0);
    ac.add(values(kNv, nv(0), {"reboot"}), 1);
  }
  std::vector<std::string_view> pl(gpu::kProcessLabelNames.begin(), gpu::kProcessLabelNames.end());
  auto proc = [&](const gpu::DeviceIdentity& id, std::string_view pid, std::string_view cmd) {
    std::vector<std::string> v;
    kNv.values(id, v, {pid, cmd, "alice", "0123456789abcdef0123", "trainer-0", "ml"});
    return v;
  };
  {
    auto mem = b.family("llmon_gpu_process_memory_bytes", "", MetricType::kGauge, kNv.names(false, pl));
    mem.add(proc(nv(0), "300", "python3"), 1 * kMiB);
    mem.add(proc(nv(0), "100", "python3"), 70000 * kMiB);
    auto sm = b.family("llmon_gpu_process_sm_utilization_ratio", "", MetricType::kGauge, kNv.names(false, pl));
    sm.add(proc(nv(0), "100", "python3"), 0.93);
    auto cpu = b.family("llmon_gpu_process_cpu_seconds_total", "", MetricType::kCounter, kNv.names(false, pl));
    cpu.add(proc(nv(0), "100", "python3"), 10 + 1.5 * k);
    cpu.add(proc(nv(0), "300", "python3"), 50 - k);        // went down: another process with this pid
    if (k > 0) cpu.add(proc(nv(0), "400", "python3"), 3);  // new: no earlier value
    auto rss = b.family("llmon_gpu_process_resident_memory_bytes", "", MetricType::kGauge, kNv.names(false, pl));
    rss.add(proc(nv(0), "100", "python3"), 8 * kMiB * 1024);
    auto mmem = b.family("llmon_gpu_process_memory_bytes", "", MetricType::kGauge, kNv.names(true, pl));
    mmem.add(proc(mig(0, "3g.40gb", "2"), "200", "vllm"), 2000 * kMiB);
  }
  b.finish();
}

GpuSummary nvidia_summary(double interval_s = 2) {
  model::Snapshot a, b;
  build_nvidia(a, 10'000, 0);
  build_nvidia(b, 12'000, 2);
  return summarize_gpus(a, b, interval_s);
}

TEST(GpuSummary, NvidiaRowsInIndexOrderWithUnitsConverted) {
  GpuSummary g = nvidia_summary();
  ASSERT_EQ(g.gpus.size(), 2u);
  const GpuRow& r = g.gpus[0];
  EXPECT_EQ(r.index, "0");
  EXPECT_EQ(g.gpus[1].index, "1");
  EXPECT_EQ(r.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.uuid, "GPU-00000000");
  EXPECT_EQ(r.pci_bus_id, "00000000:10:00.0");
  EXPECT_EQ(r.device, "nvidia0");
  EXPECT_EQ(r.backend, "nvml");
  EXPECT_FALSE(r.lost);
  EXPECT_EQ(r.util_pct, 97);
  EXPECT_EQ(r.mem_util_pct, 40);
  EXPECT_EQ(r.mem_used_bytes, 72704 * kMiB);
  EXPECT_EQ(r.mem_total_bytes, 81920 * kMiB);
  EXPECT_EQ(r.mem_reserved_bytes, 512 * kMiB);
  ASSERT_TRUE(r.mem_used_pct);
  EXPECT_NEAR(*r.mem_used_pct, 100.0 * 72704 / 81920, 1e-9);
  EXPECT_EQ(r.temp_c, 61);
  EXPECT_FALSE(r.mem_temp_c);  // not emitted: absent, not 0
  EXPECT_FALSE(r.fan_pct);
  EXPECT_EQ(r.power_w, 612.4);
  EXPECT_EQ(r.power_limit_w, 700);
  EXPECT_EQ(r.sm_clock_mhz, 1980);
  EXPECT_EQ(r.mem_clock_mhz, 2619);
  EXPECT_EQ(r.pstate, 0);
  EXPECT_EQ(r.pcie_gen, 5);
  EXPECT_EQ(r.pcie_width, 16);
  EXPECT_EQ(r.ecc_dbe_volatile, 0);
  EXPECT_EQ(r.last_xid, 79);
  EXPECT_TRUE(r.throttle_known);
  EXPECT_EQ(r.throttle_reasons, (std::vector<std::string>{"sw_power_cap", "sw_thermal_slowdown"}));
  EXPECT_EQ(r.health_state, "unhealthy");
  EXPECT_EQ(r.health_action, "reboot");
  EXPECT_EQ(g.gpus[1].health_state, "");  // not tracked for it
}

TEST(GpuSummary, LostGpuHasNoValues) {
  GpuSummary g = nvidia_summary();
  ASSERT_EQ(g.gpus.size(), 2u);
  const GpuRow& r = g.gpus[1];
  EXPECT_TRUE(r.lost);
  EXPECT_FALSE(r.util_pct);
  EXPECT_FALSE(r.mem_used_bytes);
  EXPECT_FALSE(r.mem_used_pct);
  EXPECT_FALSE(r.throttle_known);
}

TEST(GpuSummary, MigInstancesBelongToTheirParent) {
  GpuSummary g = nvidia_summary();
  ASSERT_EQ(g.gpus[0].mig.size(), 2u);
  EXPECT_EQ(g.gpus[0].mig[0].instance_id, "2");  // numeric order: 2 before 13
  EXPECT_EQ(g.gpus[0].mig[0].profile, "3g.40gb");
  EXPECT_EQ(g.gpus[0].mig[0].mem_used_bytes, 2048 * kMiB);
  EXPECT_EQ(g.gpus[0].mig[0].mem_total_bytes, 40192 * kMiB);
  EXPECT_EQ(g.gpus[0].mig[1].instance_id, "13");
  EXPECT_FALSE(g.gpus[0].mig[1].mem_total_bytes);
  // The parent's own memory is not overwritten by its instances'.
  EXPECT_EQ(g.gpus[0].mem_used_bytes, 72704 * kMiB);
  EXPECT_TRUE(g.gpus[1].mig.empty());
}

TEST(GpuSummary, ProcessesWithCpuRateFromCounterDelta) {
  GpuSummary g = nvidia_summary();
  ASSERT_EQ(g.processes.size(), 4u);
  // GPU 0 whole-GPU processes by pid, then the MIG instance's.
  EXPECT_EQ(g.processes[0].pid, "100");
  EXPECT_EQ(g.processes[1].pid, "300");
  EXPECT_EQ(g.processes[2].pid, "400");
  EXPECT_EQ(g.processes[3].pid, "200");
  const GpuProcess& p = g.processes[0];
  EXPECT_EQ(p.gpu, "0");
  EXPECT_EQ(p.gpu_uuid, "GPU-00000000");
  EXPECT_EQ(p.user, "alice");
  EXPECT_EQ(p.command, "python3");
  EXPECT_EQ(p.container, "0123456789abcdef0123");
  EXPECT_EQ(p.pod, "trainer-0");
  EXPECT_EQ(p.namespace_, "ml");
  EXPECT_EQ(p.gpu_mem_bytes, 70000 * kMiB);
  ASSERT_TRUE(p.sm_pct);
  EXPECT_NEAR(*p.sm_pct, 93, 1e-9);
  ASSERT_TRUE(p.cpu_pct);
  EXPECT_NEAR(*p.cpu_pct, 3.0 / 2 * 100, 1e-9);  // 3 CPU-seconds in 2 s
  EXPECT_EQ(p.rss_bytes, 8 * kMiB * 1024);
  EXPECT_FALSE(p.mem_pct);
  EXPECT_FALSE(p.engine_busy_pct);
  EXPECT_FALSE(g.processes[1].cpu_pct);  // counter went down: pid reused
  EXPECT_FALSE(g.processes[1].sm_pct);
  EXPECT_FALSE(g.processes[2].cpu_pct);  // no earlier value
  EXPECT_FALSE(g.processes[2].gpu_mem_bytes);
  EXPECT_EQ(g.processes[3].mig_instance_id, "2");
  EXPECT_EQ(g.processes[3].mig_profile, "3g.40gb");
  EXPECT_EQ(g.processes[3].gpu_mem_bytes, 2000 * kMiB);
}

TEST(GpuSummary, NoIntervalNoRates) {
  GpuSummary g = nvidia_summary(0);
  ASSERT_FALSE(g.processes.empty());
  for (const auto& p : g.processes) EXPECT_FALSE(p.cpu_pct) << p.pid;
}

TEST(GpuSummary, BackendsFromUpAndInfo) {
  GpuSummary g = nvidia_summary();
  ASSERT_EQ(g.backends.size(), 1u);
  EXPECT_EQ(g.backends[0].backend, "nvml");
  EXPECT_TRUE(g.backends[0].up);
  EXPECT_EQ(g.backends[0].driver_version, "550.54.15");
  EXPECT_EQ(g.backends[0].cuda_driver_version, "12.4");
}

TEST(GpuSummary, PowerLimitFallsBackToManagementLimit) {
  model::Snapshot a, b;
  {
    model::SnapshotBuilder w(b, 1000);
    gauge(w, "DCGM_FI_DEV_POWER_MGMT_LIMIT", {{0, 400}, {1, 450}});
    gauge(w, "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", {{1, 300}});
    w.finish();
  }
  GpuSummary g = summarize_gpus(a, b, 1);
  ASSERT_EQ(g.gpus.size(), 2u);
  EXPECT_EQ(g.gpus[0].power_limit_w, 400);
  EXPECT_EQ(g.gpus[1].power_limit_w, 300);  // enforced wins
  EXPECT_TRUE(g.gpus[0].backend.empty());   // no llmon_gpu_info
}

// An MI300X (junction and mem sensors only) next to an NVIDIA GPU whose
// collector emits llmon_gpu_info and llmon_gpu_process_memory_bytes too.
void build_mixed(model::Snapshot& s, int64_t ts, double k) {
  model::SnapshotBuilder b(s, ts);
  gpu::DeviceIdentity amd;
  amd.gpu = "0";
  amd.uuid = "0x5f2e5d1a8b2c3d4e";
  amd.pci_bus_id = "0000:03:00.0";
  amd.device = "card0";
  amd.model_name = "AMD Instinct MI300X";
  std::vector<std::string_view> pl(gpu::kProcessLabelNames.begin(), gpu::kProcessLabelNames.end());
  b.family("llmon_gpu_backend_up", "", MetricType::kGauge, {"backend", "reason"}).add({"nvml", ""}, 1);
  b.family("llmon_gpu_info", "", MetricType::kGauge, kNv.names(false, {"backend"}))
      .add(values(kNv, nv(0), {"nvml"}), 1);
  b.family("llmon_gpu_process_memory_bytes", "", MetricType::kGauge, kNv.names(false, pl))
      .add(values(kNv, nv(0), {"7", "a", "u", "", "", ""}), 5);
  b.family("llmon_gpu_info", "", MetricType::kGauge, kAmd.names(false, {"backend"}))
      .add(values(kAmd, amd, {"amdgpu"}), 1);
  auto g = [&](std::string_view name, double v) {
    b.family(name, "", MetricType::kGauge, kAmd.names(false)).add(values(kAmd, amd), v);
  };
  g("llmon_gpu_utilization_ratio", 0.42);
  g("llmon_gpu_memory_busy_ratio", 0.1);
  g("llmon_gpu_memory_total_bytes", 192.0 * 1024 * kMiB);
  g("llmon_gpu_memory_used_bytes", 96.0 * 1024 * kMiB);
  g("llmon_gpu_power_watts", 350);
  g("llmon_gpu_power_limit_watts", 750);
  g("llmon_gpu_fan_speed_ratio", 0.25);
  g("llmon_gpu_pcie_link_speed_gigatransfers_per_second", 32);
  g("llmon_gpu_pcie_link_width", 16);
  {
    auto t = b.family("llmon_gpu_temperature_celsius", "", MetricType::kGauge, kAmd.names(false, {"sensor"}));
    t.add(values(kAmd, amd, {"junction"}), 55);
    t.add(values(kAmd, amd, {"mem"}), 48);
    auto c = b.family("llmon_gpu_clock_hz", "", MetricType::kGauge, kAmd.names(false, {"clock"}));
    c.add(values(kAmd, amd, {"sclk"}), 2100e6);
    c.add(values(kAmd, amd, {"mclk"}), 1300e6);
  }
  auto amd_proc = [&](std::initializer_list<std::string_view> extra) {
    std::vector<std::string> v;
    kAmd.values(amd, v, extra);
    return v;
  };
  b.family("llmon_gpu_process_memory_bytes", "", MetricType::kGauge, kAmd.names(false, pl))
      .add(amd_proc({"42", "rocm-app", "bob", "", "", ""}), 3 * kMiB);
  std::vector<std::string_view> pe = pl;
  pe.push_back("engine");
  auto e = b.family("llmon_gpu_process_engine_seconds_total", "", MetricType::kCounter, kAmd.names(false, pe));
  e.add(amd_proc({"42", "rocm-app", "bob", "", "", "", "gfx"}), 100 + 0.5 * k);
  e.add(amd_proc({"42", "rocm-app", "bob", "", "", "", "compute"}), 7 + 0.25 * k);
  b.finish();
}

TEST(GpuSummary, AmdValuesAndBothCollectorsFamilies) {
  model::Snapshot a, b;
  build_mixed(a, 0, 0);
  build_mixed(b, 1000, 1);
  GpuSummary g = summarize_gpus(a, b, 1);
  ASSERT_EQ(g.gpus.size(), 2u);  // one per collector, though both wrote llmon_gpu_info
  const GpuRow& r = g.gpus[0];   // "amdgpu" sorts before "nvml"
  EXPECT_EQ(r.backend, "amdgpu");
  EXPECT_EQ(g.gpus[1].backend, "nvml");
  EXPECT_EQ(r.name, "AMD Instinct MI300X");
  ASSERT_TRUE(r.util_pct);
  EXPECT_NEAR(*r.util_pct, 42, 1e-9);
  EXPECT_NEAR(r.mem_util_pct.value_or(-1), 10, 1e-9);
  EXPECT_NEAR(r.mem_used_pct.value_or(-1), 50, 1e-9);
  EXPECT_EQ(r.temp_c, 55);  // no edge sensor: junction stands in
  EXPECT_EQ(r.hotspot_temp_c, 55);
  EXPECT_EQ(r.mem_temp_c, 48);
  EXPECT_EQ(r.power_w, 350);
  EXPECT_EQ(r.power_limit_w, 750);
  EXPECT_EQ(r.fan_pct, 25);
  EXPECT_EQ(r.sm_clock_mhz, 2100);
  EXPECT_EQ(r.mem_clock_mhz, 1300);
  EXPECT_EQ(r.pcie_gen, 5);
  EXPECT_EQ(r.pcie_width, 16);
  EXPECT_FALSE(r.pstate);
  EXPECT_FALSE(r.throttle_known);
  ASSERT_EQ(g.processes.size(), 2u);
  EXPECT_EQ(g.processes[0].pid, "42");
  EXPECT_EQ(g.processes[0].gpu_mem_bytes, 3 * kMiB);
  ASSERT_TRUE(g.processes[0].engine_busy_pct);
  EXPECT_NEAR(*g.processes[0].engine_busy_pct, 75, 1e-9);  // gfx 50% + compute 25%
  EXPECT_EQ(g.processes[1].pid, "7");
  EXPECT_FALSE(g.processes[1].engine_busy_pct);
  ASSERT_EQ(g.backends.size(), 2u);
  EXPECT_EQ(g.backends[0].backend, "amdgpu");  // no up series: up because it has a GPU
  EXPECT_TRUE(g.backends[0].up);
  EXPECT_EQ(g.backends[1].backend, "nvml");
}

void build_no_gpu(model::Snapshot& s, int64_t ts) {
  model::SnapshotBuilder b(s, ts);
  b.family("llmon_gpu_backend_up", "", MetricType::kGauge, {"backend", "reason"})
      .add({"nvml", "libnvidia-ml.so.1: cannot open shared object file"}, 0);
  b.family("node_memory_MemTotal_bytes", "", MetricType::kGauge).add(1000);
  b.finish();
}

TEST(GpuSummary, HostWithoutGpus) {
  model::Snapshot a, b;
  build_no_gpu(a, 0);
  build_no_gpu(b, 1000);
  HostSummary s = summarize(a, b);
  EXPECT_TRUE(s.gpus.gpus.empty());
  EXPECT_TRUE(s.gpus.processes.empty());
  ASSERT_EQ(s.gpus.backends.size(), 1u);
  EXPECT_FALSE(s.gpus.backends[0].up);
  std::string t = format_text(s);
  EXPECT_EQ(t.find("GPU"), std::string::npos) << t;
  auto j = nlohmann::json::parse(format_json(s));
  ASSERT_TRUE(j["gpus"].is_array());
  EXPECT_TRUE(j["gpus"].empty());
  ASSERT_TRUE(j["gpu_processes"].is_array());
  EXPECT_TRUE(j["gpu_processes"].empty());
  ASSERT_EQ(j["gpu_backends"].size(), 1u);
  EXPECT_EQ(j["gpu_backends"][0]["backend"], "nvml");
  EXPECT_EQ(j["gpu_backends"][0]["up"], false);
  EXPECT_EQ(j["gpu_backends"][0]["reason"], "libnvidia-ml.so.1: cannot open shared object file");
  EXPECT_TRUE(j["gpu_backends"][0]["driver_version"].is_null());
}

TEST(GpuSummary, EmptySnapshots) {
  model::Snapshot a, b;
  GpuSummary g = summarize_gpus(a, b, 1);
  EXPECT_TRUE(g.gpus.empty());
  EXPECT_TRUE(g.backends.empty());
  std::string t;
  format_gpu_text(g, t);
  EXPECT_TRUE(t.empty());
  nlohmann::json j = nlohmann::json::object();
  add_gpu_json(g, j);
  EXPECT_EQ(j.dump(), R"({"gpu_backends":[],"gpu_processes":[],"gpus":[]})");
}

TEST(GpuSummary, JsonAbsentIsNull) {
  nlohmann::json j = nlohmann::json::object();
  add_gpu_json(nvidia_summary(), j);
  ASSERT_EQ(j["gpus"].size(), 2u);
  const auto& g0 = j["gpus"][0];
  EXPECT_EQ(g0["index"], 0);
  EXPECT_TRUE(g0["index"].is_number_integer());
  EXPECT_EQ(g0["uuid"], "GPU-00000000");
  EXPECT_EQ(g0["backend"], "nvml");
  EXPECT_EQ(g0["lost"], false);
  EXPECT_DOUBLE_EQ(g0["utilization_percent"].get<double>(), 97);
  EXPECT_DOUBLE_EQ(g0["memory_used_bytes"].get<double>(), 72704 * kMiB);
  EXPECT_DOUBLE_EQ(g0["memory_reserved_bytes"].get<double>(), 512 * kMiB);
  EXPECT_TRUE(g0["memory_temperature_celsius"].is_null());
  EXPECT_TRUE(g0["fan_percent"].is_null());
  EXPECT_EQ(g0["pstate"], 0);
  EXPECT_TRUE(g0["pstate"].is_number_integer());
  EXPECT_EQ(g0["pcie_link_gen"], 5);
  EXPECT_EQ(g0["last_xid"], 79);
  EXPECT_EQ(g0["clock_event_reasons"], nlohmann::json({"sw_power_cap", "sw_thermal_slowdown"}));
  ASSERT_EQ(g0["mig_instances"].size(), 2u);
  EXPECT_EQ(g0["mig_instances"][0]["instance_id"], 2);
  EXPECT_EQ(g0["mig_instances"][0]["profile"], "3g.40gb");
  const auto& g1 = j["gpus"][1];
  EXPECT_EQ(g1["lost"], true);
  EXPECT_TRUE(g1["utilization_percent"].is_null());
  EXPECT_TRUE(g1["memory_used_percent"].is_null());
  EXPECT_TRUE(g1["clock_event_reasons"].is_null());  // unknown, unlike []
  ASSERT_EQ(j["gpu_processes"].size(), 4u);
  const auto& p = j["gpu_processes"][0];
  EXPECT_EQ(p["pid"], 100);
  EXPECT_EQ(p["gpu"], 0);
  EXPECT_TRUE(p["mig_instance_id"].is_null());
  EXPECT_DOUBLE_EQ(p["cpu_percent"].get<double>(), 150);
  EXPECT_TRUE(p["memory_percent"].is_null());
  EXPECT_TRUE(j["gpu_processes"][1]["cpu_percent"].is_null());
  EXPECT_EQ(j["gpu_processes"][3]["mig_instance_id"], 2);
}

TEST(GpuSummary, TextTables) {
  std::string t;
  format_gpu_text(nvidia_summary(), t);
  EXPECT_NE(t.find("\nGPU  name "), std::string::npos) << t;
  EXPECT_NE(t.find("  0  NVIDIA H100 80GB HBM3     97%  71.0/80.0 GiB (89%)   61C  612/700 W    1980/2619   P0  "
                   "sw_power_cap,sw_thermal_slowdown  unhealthy (reboot)  xid 79\n"),
            std::string::npos)
      << t;
  EXPECT_NE(
      t.find("  1  NVIDIA H100 80GB HBM3       -  -                       -  -            -           -   -  LOST\n"),
      std::string::npos)
      << t;
  EXPECT_NE(t.find("     mig 2    3g.40gb            2.0/39.2 GiB\n"), std::string::npos) << t;
  EXPECT_NE(t.find("     mig 13   1g.10gb            1.0/- GiB\n"), std::string::npos) << t;
  EXPECT_NE(t.find("\nGPU PROCESSES  gpu        pid user"), std::string::npos) << t;
  EXPECT_NE(t.find("0          100 alice        68.4 GiB    93  150.0    8.0 GiB 0123456789ab trainer-0/ml"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("0/2        200 alice"), std::string::npos) << t;
}

TEST(GpuSummary, HostTextPutsGpusAfterMemory) {
  model::Snapshot a, b;
  build_nvidia(a, 10'000, 0);
  build_nvidia(b, 12'000, 2);
  std::string t = format_text(summarize(a, b));
  size_t mem = t.find("\nMEM "), gpu = t.find("\nGPU  name"), procs = t.find("\nGPU PROCESSES");
  ASSERT_NE(mem, std::string::npos) << t;
  ASSERT_NE(gpu, std::string::npos) << t;
  ASSERT_NE(procs, std::string::npos) << t;
  EXPECT_LT(mem, gpu);
  EXPECT_LT(gpu, procs);
}

}  // namespace
}  // namespace llmon::summary
