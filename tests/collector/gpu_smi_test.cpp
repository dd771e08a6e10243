// The nvidia_smi name set (utkuozdemir/nvidia_gpu_exporter's families) from a
// hand-made NVML sample: names, units, the uuid label, throttle-reason stems
// by driver, MIG memory per GPU instance, compute apps, health families.
#include "collector/gpu_smi.h"

#include <gtest/gtest.h>

#include "collector_test_util.h"
#include "gpu/nvml/smi_table.h"

namespace llmon::collector {
namespace {

using gpu::nvml::V;
using testing::expect_family;
using testing::value_of;

gpu::nvml::Sample two_gpus(std::string driver = "550.54.15") {
  gpu::nvml::Sample s;
  s.up = true;
  s.driver_version = std::move(driver);
  s.cuda_driver_version = "12.4";
  for (int i = 0; i < 2; ++i) {
    gpu::nvml::DeviceSample d;
    d.v.fill(gpu::nvml::kNa);
    d.id.gpu = std::to_string(i);
    d.id.uuid = i == 0 ? "GPU-4F6C2A1E-9b3d" : "GPU-b81d05c3";
    d.id.pci_bus_id = i == 0 ? "00000000:18:00.0" : "00000000:2A:00.0";
    d.id.model_name = "NVIDIA H100 80GB HBM3";
    d.set(V::kGpuUtil, i == 0 ? 0.97 : 0.05);
    d.set(V::kFbUsedBytes, 76235669504);
    d.set(V::kSmClockHz, 1.98e9);
    d.set(V::kPowerW, 652);
    d.set(V::kClockEventReasons, i == 0 ? 0x4 : 0x1);  // sw_power_cap / gpu_idle
    d.set(V::kEnergyJ, 48213377);
    s.devices.push_back(d);
  }
  return s;
}

model::Snapshot run(SmiWriter& w, const gpu::nvml::Sample* s, bool processes = false,
                    std::span<const SmiApp> apps = {}) {
  model::Snapshot snap;
  model::SnapshotBuilder b(snap, 5000);
  w.write(b, s, 0.012, 5000, processes, apps);
  b.finish();
  return snap;
}

TEST(GpuSmiNames, ParsesTheNameSets) {
  EXPECT_TRUE(parse_gpu_names("dcgm")->dcgm);
  EXPECT_FALSE(parse_gpu_names("dcgm")->nvidia_smi);
  auto both = parse_gpu_names(" nvidia_smi , dcgm");
  ASSERT_TRUE(both);
  EXPECT_TRUE(both->dcgm && both->nvidia_smi);
  auto smi = parse_gpu_names("nvidia_smi");
  EXPECT_FALSE(smi->dcgm);
  auto bad = parse_gpu_names("dcgm,nvidia-smi");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("\"nvidia-smi\""), std::string::npos) << bad.error();
  EXPECT_FALSE(parse_gpu_names(""));
}

TEST(GpuSmiNames, UuidIsLowerCaseWithoutPrefix) {
  EXPECT_EQ(gpu::nvml::smi_uuid("GPU-4F6C2A1E-9B3D"), "4f6c2a1e-9b3d");
  EXPECT_EQ(gpu::nvml::smi_uuid("abc"), "abc");
}

TEST(GpuSmiNames, DeviceFamiliesInTheExportersUnits) {
  SmiWriter w;
  auto s = two_gpus();
  auto snap = run(w, &s);
  EXPECT_DOUBLE_EQ(value_of(snap, "nvidia_smi_utilization_gpu_ratio", {{"uuid", "4f6c2a1e-9b3d"}}), 0.97);
  EXPECT_DOUBLE_EQ(value_of(snap, "nvidia_smi_utilization_gpu_ratio", {{"uuid", "b81d05c3"}}), 0.05);
  EXPECT_EQ(value_of(snap, "nvidia_smi_memory_used_bytes", {{"uuid", "b81d05c3"}}), 76235669504);
  EXPECT_EQ(value_of(snap, "nvidia_smi_clocks_current_sm_clock_hz", {{"uuid", "b81d05c3"}}), 1.98e9);
  expect_family(snap, "nvidia_smi_utilization_gpu_ratio", model::MetricType::kGauge, "utilization.gpu [%]");
  expect_family(snap, "nvidia_smi_power_draw_watts", model::MetricType::kGauge, "power.draw [W]");
  expect_family(snap, "nvidia_smi_energy_joules_total", model::MetricType::kCounter,
                "Total energy consumed by the GPU in joules since the driver was last loaded.");
  // Only values the sample has: no temperature family at all.
  EXPECT_EQ(snap.find("nvidia_smi_temperature_gpu"), nullptr);
  EXPECT_EQ(value_of(snap, "nvidia_smi_gpu_info",
                     {{"uuid", "4f6c2a1e-9b3d"},
                      {"name", "NVIDIA H100 80GB HBM3"},
                      {"driver_version", "550.54.15"},
                      {"cuda_version", "12.4"},
                      {"index", "0"},
                      {"pci_bus_id", "00000000:18:00.0"},
                      {"driver_model_current", "[N/A]"}}),
            1);
  EXPECT_EQ(value_of(snap, "nvidia_smi_index", {{"uuid", "b81d05c3"}}), 1);
  EXPECT_EQ(value_of(snap, "nvidia_smi_count", {{"uuid", "b81d05c3"}}), 2);
  // No DCGM names or labels in this set.
  for (const auto& f : snap.families) {
    EXPECT_EQ(f.name.rfind("nvidia_smi_", 0), 0u) << f.name;
    for (const auto& l : f.label_names) EXPECT_NE(l, "UUID") << f.name;
  }
}

TEST(GpuSmiNames, ThrottleReasonsFollowTheDriversFieldNames) {
  SmiWriter w;
  auto s = two_gpus("550.54.15");
  auto snap = run(w, &s);
  EXPECT_EQ(value_of(snap, "nvidia_smi_clocks_event_reasons_sw_power_cap", {{"uuid", "4f6c2a1e-9b3d"}}), 1);
  EXPECT_EQ(value_of(snap, "nvidia_smi_clocks_event_reasons_gpu_idle", {{"uuid", "4f6c2a1e-9b3d"}}), 0);
  EXPECT_EQ(value_of(snap, "nvidia_smi_clocks_event_reasons_gpu_idle", {{"uuid", "b81d05c3"}}), 1);
  EXPECT_EQ(value_of(snap, "nvidia_smi_clocks_event_reasons_active", {{"uuid", "4f6c2a1e-9b3d"}}), 4);
  expect_family(snap, "nvidia_smi_clocks_event_reasons_sw_power_cap", model::MetricType::kGauge,
                "clocks_event_reasons.sw_power_cap");
  EXPECT_EQ(snap.find("nvidia_smi_clocks_event_reasons_display_clock_setting"), nullptr);

  SmiWriter old;
  auto r470 = two_gpus("470.223.02");
  auto snap470 = run(old, &r470);
  EXPECT_EQ(value_of(snap470, "nvidia_smi_clocks_throttle_reasons_sw_power_cap", {{"uuid", "4f6c2a1e-9b3d"}}), 1);
  EXPECT_EQ(snap470.find("nvidia_smi_clocks_event_reasons_sw_power_cap"), nullptr);
  expect_family(snap470, "nvidia_smi_clocks_throttle_reasons_gpu_idle", model::MetricType::kGauge,
                "clocks_throttle_reasons.gpu_idle");
}

TEST(GpuSmiNames, MigMemoryOncePerGpuInstance) {
  SmiWriter w;
  auto s = two_gpus();
  auto& d = s.devices[0];
  for (uint32_t ci : {0u, 1u}) {
    gpu::nvml::MigInstanceSample m;
    m.id = d.id;
    m.id.mig_profile = "2g.20gb";
    m.id.mig_instance_id = "3";
    m.mig_uuid = "MIG-" + std::to_string(ci);
    m.gpu_instance = 3;
    m.compute_instance = ci;
    m.fb_total = 20e9;
    m.fb_used = 5e9;
    d.mig.push_back(m);
  }
  auto snap = run(w, &s);
  EXPECT_EQ(testing::series_count(snap, "nvidia_smi_mig_info"), 2u);
  EXPECT_EQ(value_of(snap, "nvidia_smi_mig_info",
                     {{"uuid", "4f6c2a1e-9b3d"},
                      {"mig_uuid", "MIG-1"},
                      {"gpu_instance_id", "3"},
                      {"compute_instance_id", "1"},
                      {"profile", "2g.20gb"}}),
            1);
  EXPECT_EQ(testing::series_count(snap, "nvidia_smi_mig_memory_used_bytes"), 1u);
  EXPECT_EQ(value_of(snap, "nvidia_smi_mig_memory_used_bytes", {{"uuid", "4f6c2a1e-9b3d"}, {"gpu_instance_id", "3"}}),
            5e9);
  EXPECT_EQ(testing::series_count(snap, "nvidia_smi_mig_memory_free_bytes"), 0u);  // NaN: not reported
}

TEST(GpuSmiNames, ComputeAppsSkipGraphicsOnlyProcesses) {
  SmiWriter w;
  auto s = two_gpus();
  const SmiApp apps[] = {
      {"GPU-4F6C2A1E-9b3d", "4101", "python3", 'C', 7.5e10},
      {"GPU-4F6C2A1E-9b3d", "900", "Xorg", 'G', 1e7},
      {"GPU-b81d05c3", "4102", "pt_main_thread", 'B', gpu::nvml::kNa},
  };
  auto snap = run(w, &s, true, apps);
  EXPECT_EQ(value_of(snap, "nvidia_smi_compute_apps", {{"uuid", "4f6c2a1e-9b3d"}}), 1);
  EXPECT_EQ(value_of(snap, "nvidia_smi_compute_apps", {{"uuid", "b81d05c3"}}), 1);
  EXPECT_EQ(value_of(snap, "nvidia_smi_compute_app_info",
                     {{"pid", "4101"}, {"process_name", "python3"}, {"uuid", "4f6c2a1e-9b3d"}}),
            1);
  EXPECT_EQ(testing::series_count(snap, "nvidia_smi_compute_app_info"), 2u);
  EXPECT_EQ(testing::series_count(snap, "nvidia_smi_compute_app_used_memory_bytes"), 1u);
}

TEST(GpuSmiNames, HealthFamiliesCountFailedCollections) {
  SmiWriter w;
  auto s = two_gpus();
  auto ok = run(w, &s);
  EXPECT_EQ(value_of(ok, "nvidia_smi_last_collect_success", {}), 1);
  EXPECT_EQ(value_of(ok, "nvidia_smi_last_collect_success_timestamp_seconds", {}), 5);
  EXPECT_EQ(value_of(ok, "nvidia_smi_failed_scrapes_total", {}), 0);
  auto timed_out = run(w, nullptr);
  EXPECT_EQ(value_of(timed_out, "nvidia_smi_last_collect_success", {}), 0);
  EXPECT_EQ(value_of(timed_out, "nvidia_smi_failed_scrapes_total", {}), 1);
  EXPECT_EQ(value_of(timed_out, "nvidia_smi_last_collect_success_timestamp_seconds", {}), 5);
  EXPECT_EQ(timed_out.find("nvidia_smi_utilization_gpu_ratio"), nullptr);
  expect_family(timed_out, "nvidia_smi_failed_scrapes_total", model::MetricType::kCounter,
                "Number of failed collections");
}

}  // namespace
}  // namespace llmon::collector
