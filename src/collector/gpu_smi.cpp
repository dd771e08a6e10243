#include "collector/gpu_smi.h"

#include <cmath>
#include <map>

#include "base/strings.h"
#include "gpu/nvml/metric_table.h"
#include "gpu/nvml/smi_table.h"

namespace llmon::collector {

using gpu::nvml::V;
using model::MetricType;

Expected<GpuNames> parse_gpu_names(std::string_view list) {
  GpuNames n{false, false};
  bool any = false;
  for (std::string_view part : base::split(list, ',')) {
    part = base::trim(part);
    if (part == "dcgm") {
      n.dcgm = true;
    } else if (part == "nvidia_smi") {
      n.nvidia_smi = true;
    } else {
      return Status::error("unknown GPU name set \"" + std::string(part) + "\" in \"" + std::string(list) +
                           "\" (want dcgm, nvidia_smi or both, comma separated)");
    }
    any = true;
  }
  if (!any) return Status::error("empty GPU name set (want dcgm, nvidia_smi or both, comma separated)");
  return n;
}

void SmiWriter::write(model::SnapshotBuilder& out, const gpu::nvml::Sample* s, double seconds, int64_t now_ms,
                      bool processes, std::span<const SmiApp> apps) {
  const bool ok = s && s->up;
  if (ok)
    last_success_s_ = static_cast<double>(now_ms) / 1000.0;
  else
    ++failed_;
  out.family("nvidia_smi_last_collect_success", "Whether the most recent collection succeeded (1) or not (0)",
             MetricType::kGauge)
      .add(ok ? 1 : 0);
  if (last_success_s_ > 0)
    out.family("nvidia_smi_last_collect_success_timestamp_seconds",
               "Unix timestamp of the most recent successful collection", MetricType::kGauge)
        .add(last_success_s_);
  out.family("nvidia_smi_last_collect_duration_seconds", "Duration of the most recent collection", MetricType::kGauge)
      .add(seconds);
  out.family("nvidia_smi_failed_scrapes_total", "Number of failed collections", MetricType::kCounter)
      .add(static_cast<double>(failed_));
  if (!ok) return;
  write_devices(out, *s);
  if (processes) write_apps(out, *s, apps);
}

void SmiWriter::write_devices(model::SnapshotBuilder& out, const gpu::nvml::Sample& s) {
  // The exporter's uuid of each device, recomputed only when the device list changes.
  uuids_.resize(s.devices.size());
  nvml_uuids_.resize(s.devices.size());
  for (size_t i = 0; i < s.devices.size(); ++i) {
    if (nvml_uuids_[i] == s.devices[i].id.uuid && !uuids_[i].empty()) continue;
    nvml_uuids_[i] = s.devices[i].id.uuid;
    uuids_[i] = gpu::nvml::smi_uuid(nvml_uuids_[i]);
  }

  auto info =
      out.family("nvidia_smi_gpu_info",
                 "A metric with a constant '1' value labeled by gpu uuid, name, driver_model_current, "
                 "driver_model_pending, vbios_version, driver_version, pci_bus_id, serial, compute_cap, "
                 "pci_sub_device_id, index, cuda_version.",
                 MetricType::kGauge,
                 {"uuid", "name", "driver_model_current", "driver_model_pending", "vbios_version", "driver_version",
                  "pci_bus_id", "serial", "compute_cap", "pci_sub_device_id", "index", "cuda_version"});
  // driver_model is a Windows notion: nvidia-smi prints [N/A] on Linux. vbios,
  // serial, compute capability and the PCI subsystem id are not read (empty).
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const auto& id = s.devices[i].id;
    info.add({uuids_[i], id.model_name, "[N/A]", "[N/A]", "", s.driver_version, id.pci_bus_id, "", "", "", id.gpu,
              s.cuda_driver_version},
             1);
  }
  {
    auto index = out.family("nvidia_smi_index", "index", MetricType::kGauge, {"uuid"});
    for (size_t i = 0; i < s.devices.size(); ++i) {
      if (auto v = base::parse_double(s.devices[i].id.gpu)) index.add({uuids_[i]}, *v);
    }
    auto count = out.family("nvidia_smi_count", "count", MetricType::kGauge, {"uuid"});
    for (size_t i = 0; i < s.devices.size(); ++i) count.add({uuids_[i]}, static_cast<double>(s.devices.size()));
  }

  for (const auto& def : gpu::nvml::smi_table()) {
    bool any = false;
    for (const auto& d : s.devices) any = any || (!d.lost && d.has(def.value));
    if (!any) continue;
    auto f = out.family(def.name, def.help, def.type, {"uuid"});
    for (size_t i = 0; i < s.devices.size(); ++i) {
      const auto& d = s.devices[i];
      if (!d.lost && d.has(def.value)) f.add({uuids_[i]}, d.get(def.value));
    }
  }

  // Clock event (throttle) reasons: one family per reason.
  bool any_reasons = false;
  for (const auto& d : s.devices) any_reasons = any_reasons || (!d.lost && d.has(V::kClockEventReasons));
  if (any_reasons) {
    if (reason_names_.empty() || reason_driver_ != s.driver_version) {
      // nvidia_smi_<stem>_<reason> and its HELP "<stem>.<reason>", built once per driver.
      reason_driver_ = s.driver_version;
      const std::string stem(gpu::nvml::smi_reason_stem(s.driver_version));
      const std::string field = stem.substr(std::string_view("nvidia_smi_").size());  // "clocks_event_reasons_"
      const std::string dotted = field.substr(0, field.size() - 1) + ".";
      reason_names_ = {stem + "active"};
      reason_helps_ = {dotted + "active"};
      reason_bits_ = {0};
      for (const auto& r : gpu::nvml::clock_event_reasons()) {
        if (r.name == "display_clock_setting") continue;  // not an nvidia-smi query field
        reason_names_.push_back(stem + std::string(r.name));
        reason_helps_.push_back(dotted + std::string(r.name));
        reason_bits_.push_back(r.bit);
      }
    }
    // Index 0, ..._active, is the bitmask itself (nvidia-smi's hex value); the others 1 active, 0 not.
    for (size_t k = 0; k < reason_names_.size(); ++k) {
      auto f = out.family(reason_names_[k], reason_helps_[k], MetricType::kGauge, {"uuid"});
      for (size_t i = 0; i < s.devices.size(); ++i) {
        const auto& d = s.devices[i];
        if (d.lost || !d.has(V::kClockEventReasons)) continue;
        auto bits = static_cast<unsigned long long>(d.get(V::kClockEventReasons));
        f.add({uuids_[i]}, k == 0 ? static_cast<double>(bits) : ((bits & reason_bits_[k]) ? 1.0 : 0.0));
      }
    }
  }

  // Xid events (the exporter's NVML backend): a counter per Xid seen.
  bool watched = false;
  for (const auto& d : s.devices) watched = watched || d.events_watched;
  if (watched) {
    auto f = out.family("nvidia_smi_xid_errors_total", "XID error events observed since the exporter started",
                        MetricType::kCounter, {"uuid", "xid"});
    for (size_t i = 0; i < s.devices.size(); ++i)
      for (const auto& [code, n] : s.devices[i].events.xid)
        f.add({uuids_[i], std::to_string(code)}, static_cast<double>(n));
  }

  // MIG inventory and memory per GPU instance.
  bool any_mig = false;
  for (const auto& d : s.devices) any_mig = any_mig || (!d.lost && !d.mig.empty());
  if (!any_mig) return;
  {
    auto f = out.family("nvidia_smi_mig_info", "A metric with a constant '1' value labeled by the MIG device identity.",
                        MetricType::kGauge, {"uuid", "mig_uuid", "gpu_instance_id", "compute_instance_id", "profile"});
    for (size_t i = 0; i < s.devices.size(); ++i) {
      if (s.devices[i].lost) continue;
      for (const auto& m : s.devices[i].mig)
        f.add({uuids_[i], m.mig_uuid, std::to_string(m.gpu_instance), std::to_string(m.compute_instance),
               m.id.mig_profile},
              1);
    }
  }
  struct MigMem {
    std::string_view name, help;
    double gpu::nvml::MigInstanceSample::*field;
  };
  static constexpr MigMem kMem[] = {
      {"nvidia_smi_mig_memory_total_bytes", "Total memory of the MIG GPU instance in bytes.",
       &gpu::nvml::MigInstanceSample::fb_total},
      {"nvidia_smi_mig_memory_used_bytes", "Used memory of the MIG GPU instance in bytes.",
       &gpu::nvml::MigInstanceSample::fb_used},
      {"nvidia_smi_mig_memory_free_bytes", "Free memory of the MIG GPU instance in bytes.",
       &gpu::nvml::MigInstanceSample::fb_free},
      {"nvidia_smi_mig_memory_reserved_bytes", "Reserved memory of the MIG GPU instance in bytes.",
       &gpu::nvml::MigInstanceSample::fb_reserved},
  };
  for (const auto& mm : kMem) {
    auto f = out.family(mm.name, mm.help, MetricType::kGauge, {"uuid", "gpu_instance_id"});
    for (size_t i = 0; i < s.devices.size(); ++i) {
      if (s.devices[i].lost) continue;
      // Memory belongs to the GPU instance: once per instance, however many compute slices it hosts.
      std::map<uint32_t, double> per_instance;
      for (const auto& m : s.devices[i].mig)
        if (!std::isnan(m.*mm.field)) per_instance.emplace(m.gpu_instance, m.*mm.field);
      for (const auto& [gi, v] : per_instance) f.add({uuids_[i], std::to_string(gi)}, v);
    }
  }
}

void SmiWriter::write_apps(model::SnapshotBuilder& out, const gpu::nvml::Sample& s, std::span<const SmiApp> apps) {
  // Each app's device (its index in the sample; apps come from the devices' own process lists).
  app_device_.clear();
  per_gpu_.assign(s.devices.size(), 0);
  bool any = false;
  for (const auto& a : apps) {
    size_t dev = s.devices.size();
    for (size_t i = 0; i < s.devices.size() && dev == s.devices.size(); ++i)
      if (s.devices[i].id.uuid == a.gpu_uuid) dev = i;
    app_device_.push_back(dev);
    if (a.type == 'G' || dev == s.devices.size()) continue;
    ++per_gpu_[dev];
    any = true;
  }
  auto count = out.family("nvidia_smi_compute_apps", "Number of processes with a compute context on the GPU.",
                          MetricType::kGauge, {"uuid"});
  for (size_t i = 0; i < s.devices.size(); ++i)
    if (!s.devices[i].lost) count.add({uuids_[i]}, static_cast<double>(per_gpu_[i]));
  if (!any) return;
  auto compute = [&](size_t k) { return apps[k].type != 'G' && app_device_[k] < s.devices.size(); };
  auto info = out.family(
      "nvidia_smi_compute_app_info",
      "A metric with a constant '1' value labeled by the identity of a process with a compute context on a GPU.",
      MetricType::kGauge, {"pid", "process_name", "uuid"});
  for (size_t k = 0; k < apps.size(); ++k)
    if (compute(k)) info.add({apps[k].pid, apps[k].process_name, uuids_[app_device_[k]]}, 1);
  auto mem = out.family("nvidia_smi_compute_app_used_memory_bytes",
                        "GPU memory used by the process. Absent when the driver cannot report it (e.g. Windows WDDM).",
                        MetricType::kGauge, {"pid", "process_name", "uuid"});
  for (size_t k = 0; k < apps.size(); ++k)
    if (compute(k) && !std::isnan(apps[k].memory_bytes))
      mem.add({apps[k].pid, apps[k].process_name, uuids_[app_device_[k]]}, apps[k].memory_bytes);
}

}  // namespace llmon::collector
