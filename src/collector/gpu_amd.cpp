// amdgpu collector (see gpu_amd.h). Device series carry the gpu::LabelScheme
// labels (gpu, UUID, pci_bus_id, device, modelName[, Hostname]); process series
// add pid, command, user, container, pod, namespace. Per-process scanning of
// /proc happens only while an amdgpu card exists and collector.gpu.processes
// is on. Options shared with the NVIDIA collector: collector.gpu.hostname-label,
// collector.gpu.hostname (overrides the uname node name), collector.gpu.processes.
#include "collector/gpu_amd.h"

#include <optional>
#include <string_view>
#include <vector>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector/uname.h"
#include "gpu/amd/amdgpu.h"
#include "gpu/amd/fdinfo.h"
#include "gpu/labels.h"
#include "gpu/process_info.h"

namespace llmon::collector {
namespace {

using gpu::amd::AmdGpuSample;
using model::MetricType;

struct DeviceGauge {
  std::string_view name;
  std::string_view help;
  std::optional<double> AmdGpuSample::*value;
};

constexpr DeviceGauge kDeviceGauges[] = {
    {"llmon_gpu_utilization_ratio", "Fraction of time the GPU was busy (0-1).", &AmdGpuSample::utilization_ratio},
    {"llmon_gpu_memory_busy_ratio", "Fraction of time the GPU memory controller was busy (0-1).",
     &AmdGpuSample::memory_busy_ratio},
    {"llmon_gpu_memory_total_bytes", "Total GPU memory (VRAM) in bytes.", &AmdGpuSample::vram_total_bytes},
    {"llmon_gpu_memory_used_bytes", "GPU memory (VRAM) in use in bytes.", &AmdGpuSample::vram_used_bytes},
    {"llmon_gpu_visible_memory_total_bytes", "CPU-visible GPU memory (VRAM behind the PCIe BAR) in bytes.",
     &AmdGpuSample::vis_vram_total_bytes},
    {"llmon_gpu_visible_memory_used_bytes", "CPU-visible GPU memory (VRAM behind the PCIe BAR) in use in bytes.",
     &AmdGpuSample::vis_vram_used_bytes},
    {"llmon_gpu_gtt_total_bytes", "Host memory the GPU can map through its GTT in bytes.",
     &AmdGpuSample::gtt_total_bytes},
    {"llmon_gpu_gtt_used_bytes", "Host memory mapped through the GPU's GTT in use in bytes.",
     &AmdGpuSample::gtt_used_bytes},
    {"llmon_gpu_power_watts", "GPU power draw in watts (averaged by the driver where it provides an average).",
     &AmdGpuSample::power_watts},
    {"llmon_gpu_power_limit_watts", "GPU power cap in watts.", &AmdGpuSample::power_limit_watts},
    {"llmon_gpu_fan_speed_rpm", "GPU fan speed in revolutions per minute.", &AmdGpuSample::fan_rpm},
    {"llmon_gpu_fan_speed_ratio", "GPU fan PWM duty cycle (0-1).", &AmdGpuSample::fan_ratio},
    {"llmon_gpu_pcie_link_speed_gigatransfers_per_second",
     "Current PCIe link speed of the GPU in gigatransfers per second per lane.", &AmdGpuSample::pcie_link_speed_gts},
    {"llmon_gpu_pcie_link_width", "Current PCIe link width of the GPU in lanes.", &AmdGpuSample::pcie_link_width},
};

constexpr std::string_view kInfoHelp = "GPU identity; the value is always 1.";
constexpr std::string_view kTemperatureHelp = "GPU temperature in degrees Celsius, by sensor (edge, junction, mem).";
constexpr std::string_view kClockHelp = "Current GPU clock in hertz, by clock domain (sclk: shader, mclk: memory).";
constexpr std::string_view kProcessMemoryHelp = "GPU memory (VRAM) used by the process on this GPU in bytes.";
constexpr std::string_view kProcessGttHelp = "Host memory mapped through the GTT by the process on this GPU in bytes.";
constexpr std::string_view kProcessEngineHelp =
    "GPU engine time used by the process on this GPU in seconds, by engine (gfx, compute, enc, dec).";

class AmdGpuCollector final : public Collector {
 public:
  AmdGpuCollector(const CollectorContext& ctx, std::string hostname)
      : reader_(ctx.fs),
        scanner_(ctx.fs),
        resolver_(ctx.fs),
        processes_(ctx.option(flag::kCollectorGpuProcesses)) {
    if (const std::string& h = ctx.option(flag::kCollectorGpuHostname); !h.empty()) hostname = h;
    auto mode = gpu::parse_hostname_label(ctx.option(flag::kCollectorGpuHostnameLabel));
    if (!mode) {
      config_error_ = mode.status().with_context(std::string(flag::kCollectorGpuHostnameLabel.name));
      return;
    }
    labels_ = gpu::LabelScheme(*mode, std::move(hostname), "");
    device_names_ = labels_.names(false);
    info_names_ = labels_.names(false, {"backend"});
    sensor_names_ = labels_.names(false, {"sensor"});
    clock_names_ = labels_.names(false, {"clock"});
    process_names_ = labels_.names(false, gpu::kProcessLabelNames);
    std::vector<std::string_view> engine(gpu::kProcessLabelNames.begin(), gpu::kProcessLabelNames.end());
    engine.push_back("engine");
    engine_names_ = labels_.names(false, engine);
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!config_error_.is_ok()) return config_error_;
    Status s = reader_.read(out.timestamp_ms(), samples_);
    if (samples_.empty()) return s;  // no amdgpu card: no series, no /proc scan
    emit_devices(out);
    if (!processes_) return s;
    Status p = emit_processes(out);
    return s.is_ok() ? p : s;
  }

 private:
  void emit_devices(model::SnapshotBuilder& out) {
    {
      auto w = out.family("llmon_gpu_info", kInfoHelp, MetricType::kGauge, info_names_);
      for (const auto& smp : samples_) {
        labels_.values(smp.id, values_, {"amdgpu"});
        w.add(values_, 1);
      }
    }
    for (const auto& g : kDeviceGauges) {
      auto w = out.family(g.name, g.help, MetricType::kGauge, device_names_);
      for (const auto& smp : samples_) {
        const auto& v = smp.*g.value;
        if (!v) continue;
        labels_.values(smp.id, values_);
        w.add(values_, *v);
      }
    }
    {
      auto w = out.family("llmon_gpu_temperature_celsius", kTemperatureHelp, MetricType::kGauge, sensor_names_);
      for (const auto& smp : samples_)
        for (const auto& t : smp.temperatures) {
          labels_.values(smp.id, values_, {t.sensor});
          w.add(values_, t.celsius);
        }
    }
    {
      auto w = out.family("llmon_gpu_clock_hz", kClockHelp, MetricType::kGauge, clock_names_);
      for (const auto& smp : samples_) {
        if (smp.sclk_hz) {
          labels_.values(smp.id, values_, {"sclk"});
          w.add(values_, *smp.sclk_hz);
        }
        if (smp.mclk_hz) {
          labels_.values(smp.id, values_, {"mclk"});
          w.add(values_, *smp.mclk_hz);
        }
      }
    }
  }

  // One process on one card, with its labels resolved.
  struct Row {
    const gpu::amd::DrmProcessUsage* usage = nullptr;
    std::vector<std::string> labels;  // device labels, then the process labels
  };

  Status emit_processes(model::SnapshotBuilder& out) {
    Status s = scanner_.scan(usage_);
    size_t n = 0;
    for (const auto& u : usage_) {
      const AmdGpuSample* card = nullptr;
      for (const auto& smp : samples_)
        if (smp.id.pci_bus_id == u.pdev) card = &smp;
      if (!card) continue;  // a device this collector does not report
      const gpu::ProcessInfo& p = resolver_.lookup(u.pid);
      if (!p.alive) continue;  // exited since its fdinfo was read
      if (n == rows_.size()) rows_.emplace_back();
      Row& row = rows_[n++];
      row.usage = &u;
      const std::string pid = std::to_string(u.pid);
      labels_.values(card->id, row.labels, {pid, p.command, p.user, p.container, p.pod, p.namespace_});
    }
    rows_.resize(n);
    resolver_.end_cycle();

    {
      auto w = out.family("llmon_gpu_process_memory_bytes", kProcessMemoryHelp, MetricType::kGauge, process_names_);
      for (const auto& r : rows_)
        if (r.usage->vram_bytes) w.add(r.labels, static_cast<double>(*r.usage->vram_bytes));
    }
    {
      auto w = out.family("llmon_gpu_process_gtt_bytes", kProcessGttHelp, MetricType::kGauge, process_names_);
      for (const auto& r : rows_)
        if (r.usage->gtt_bytes) w.add(r.labels, static_cast<double>(*r.usage->gtt_bytes));
    }
    {
      auto w =
          out.family("llmon_gpu_process_engine_seconds_total", kProcessEngineHelp, MetricType::kCounter, engine_names_);
      for (auto& r : rows_)
        for (size_t e = 0; e < gpu::amd::kDrmEngineCount; ++e) {
          const auto& ns = r.usage->engine_ns[e];
          if (!ns) continue;
          r.labels.emplace_back(gpu::amd::kDrmEngineNames[e]);
          w.add(r.labels, static_cast<double>(*ns) / 1e9);
          r.labels.pop_back();
        }
    }
    return s.with_context("amdgpu per-process usage");
  }

  gpu::amd::AmdGpuReader reader_;
  gpu::amd::DrmFdinfoScanner scanner_;
  gpu::ProcessResolver resolver_;
  const bool processes_;  // collector.gpu.processes
  gpu::LabelScheme labels_;
  Status config_error_;
  std::vector<std::string> device_names_, info_names_, sensor_names_, clock_names_, process_names_, engine_names_;
  std::vector<AmdGpuSample> samples_;
  std::vector<gpu::amd::DrmProcessUsage> usage_;
  std::vector<Row> rows_;
  std::vector<std::string> values_;
};

std::string uname_hostname() {
  UnameInfo info;
  if (!system_uname(info)) return {};
  return info.nodename;
}

}  // namespace

std::unique_ptr<Collector> make_amdgpu_with_hostname(const CollectorContext& ctx, std::string hostname) {
  return std::make_unique<AmdGpuCollector>(ctx, std::move(hostname));
}

std::unique_ptr<Collector> make_amdgpu(const CollectorContext& ctx) {
  return make_amdgpu_with_hostname(ctx, uname_hostname());
}

}  // namespace llmon::collector
