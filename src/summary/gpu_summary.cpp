// Series names and units: docs/metrics.md, src/gpu/nvml/metric_table.cpp
// (NVIDIA, dcgm-exporter names) and src/collector/gpu_amd.cpp (AMD).
// Output layout: docs/snapshot.md.
#include "summary/gpu_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

namespace llmon::summary {
namespace {

using model::Family;
using model::Series;
using model::Snapshot;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr char kSep = '\x1f';

// Where the identity labels sit in one family (-1: absent).
struct Labels {
  explicit Labels(const Family& f) : fam(f) {
    gpu = index("gpu");
    uuid = index("UUID");
    bus = index("pci_bus_id");
    device = index("device");
    model = index("modelName");
    gi_profile = index("GPU_I_PROFILE");
    gi_id = index("GPU_I_ID");
  }
  int index(std::string_view name) const {
    for (size_t i = 0; i < fam.label_names.size(); ++i)
      if (fam.label_names[i] == name) return static_cast<int>(i);
    return -1;
  }
  // A GPU series carries at least one of UUID / pci_bus_id / device.
  bool is_device() const { return uuid >= 0 || bus >= 0 || device >= 0; }
  std::string get(const Series& s, int i) const { return i >= 0 ? s.label_values[i] : std::string(); }
  std::string get(const Series& s, std::string_view name) const { return get(s, index(name)); }
  // The GPU (not the MIG instance) a series is about.
  std::string device_key(const Series& s) const {
    return get(s, uuid) + kSep + get(s, bus) + kSep + get(s, device) + kSep + get(s, gpu);
  }
  bool is_mig(const Series& s) const { return !get(s, gi_id).empty() || !get(s, gi_profile).empty(); }

  const Family& fam;
  int gpu, uuid, bus, device, model, gi_profile, gi_id;
};

// Calls fn(labels, series) for every series of every family called `name`
// (a name may be emitted by both collectors, or with and without MIG labels).
template <class Fn>
void each_series(const Snapshot& snap, std::string_view name, Fn&& fn) {
  for (const auto& f : snap.families) {
    if (f.name != name) continue;
    Labels l(f);
    if (!l.is_device()) continue;
    for (const auto& s : f.series)
      if (std::isfinite(s.value)) fn(l, s);
  }
}

bool numeric_less(const std::string& a, const std::string& b) {
  char* ea = nullptr;
  char* eb = nullptr;
  long na = std::strtol(a.c_str(), &ea, 10), nb = std::strtol(b.c_str(), &eb, 10);
  if (a.empty() || b.empty()) return a.empty() && !b.empty();  // "" (e.g. not a MIG instance) first
  bool a_num = *ea == 0, b_num = *eb == 0;
  if (a_num && b_num) return na < nb;
  if (a_num != b_num) return a_num;
  return a < b;
}

// PCIe generation from the per-lane transfer rate (AMD reports GT/s).
std::optional<double> pcie_gen_from_gts(double gts) {
  static const double kRates[] = {2.5, 5, 8, 16, 32, 64};
  for (size_t i = 0; i < std::size(kRates); ++i)
    if (std::fabs(gts - kRates[i]) < 0.1) return static_cast<double>(i + 1);
  return std::nullopt;
}

struct DeviceGauge {
  std::string_view name;
  double scale;
  std::optional<double> GpuRow::*field;
};

constexpr DeviceGauge kDeviceGauges[] = {
    // NVIDIA (dcgm-exporter names and units)
    {"DCGM_FI_DEV_GPU_UTIL", 1, &GpuRow::util_pct},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", 1, &GpuRow::mem_util_pct},
    {"DCGM_FI_DEV_FB_USED", kMiB, &GpuRow::mem_used_bytes},
    {"DCGM_FI_DEV_FB_TOTAL", kMiB, &GpuRow::mem_total_bytes},
    {"DCGM_FI_DEV_FB_RESERVED", kMiB, &GpuRow::mem_reserved_bytes},
    {"DCGM_FI_DEV_GPU_TEMP", 1, &GpuRow::temp_c},
    {"DCGM_FI_DEV_MEMORY_TEMP", 1, &GpuRow::mem_temp_c},
    {"DCGM_FI_DEV_POWER_USAGE", 1, &GpuRow::power_w},
    {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", 1, &GpuRow::power_limit_w},
    {"DCGM_FI_DEV_SM_CLOCK", 1, &GpuRow::sm_clock_mhz},
    {"DCGM_FI_DEV_MEM_CLOCK", 1, &GpuRow::mem_clock_mhz},
    {"DCGM_FI_DEV_PSTATE", 1, &GpuRow::pstate},
    {"DCGM_FI_DEV_FAN_SPEED", 1, &GpuRow::fan_pct},
    {"DCGM_FI_DEV_PCIE_LINK_GEN", 1, &GpuRow::pcie_gen},
    {"DCGM_FI_DEV_PCIE_LINK_WIDTH", 1, &GpuRow::pcie_width},
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, &GpuRow::ecc_dbe_volatile},
    {"DCGM_FI_DEV_XID_ERRORS", 1, &GpuRow::last_xid},
    // AMD (llmon names, base units)
    {"llmon_gpu_utilization_ratio", 100, &GpuRow::util_pct},
    {"llmon_gpu_memory_busy_ratio", 100, &GpuRow::mem_util_pct},
    {"llmon_gpu_memory_used_bytes", 1, &GpuRow::mem_used_bytes},
    {"llmon_gpu_memory_total_bytes", 1, &GpuRow::mem_total_bytes},
    {"llmon_gpu_power_watts", 1, &GpuRow::power_w},
    {"llmon_gpu_power_limit_watts", 1, &GpuRow::power_limit_w},
    {"llmon_gpu_fan_speed_ratio", 100, &GpuRow::fan_pct},
    {"llmon_gpu_pcie_link_width", 1, &GpuRow::pcie_width},
};

struct ProcessGauge {
  std::string_view name;
  double scale;
  std::optional<double> GpuProcess::*field;
};

constexpr ProcessGauge kProcessGauges[] = {
    {"llmon_gpu_process_memory_bytes", 1, &GpuProcess::gpu_mem_bytes},
    {"llmon_gpu_process_sm_utilization_ratio", 100, &GpuProcess::sm_pct},
    {"llmon_gpu_process_memory_utilization_ratio", 100, &GpuProcess::mem_pct},
    {"llmon_gpu_process_encoder_utilization_ratio", 100, &GpuProcess::enc_pct},
    {"llmon_gpu_process_decoder_utilization_ratio", 100, &GpuProcess::dec_pct},
    {"llmon_gpu_process_resident_memory_bytes", 1, &GpuProcess::rss_bytes},
};

class Builder {
 public:
  GpuRow& gpu(const Labels& l, const Series& s) {
    auto [it, fresh] = gpu_at_.try_emplace(l.device_key(s), gpus_.size());
    if (fresh) {
      GpuRow r;
      r.index = l.get(s, l.gpu);
      r.name = l.get(s, l.model);
      r.uuid = l.get(s, l.uuid);
      r.pci_bus_id = l.get(s, l.bus);
      r.device = l.get(s, l.device);
      gpus_.push_back(std::move(r));
    }
    return gpus_[it->second];
  }

  MigInstance& mig(GpuRow& g, const Labels& l, const Series& s) {
    std::string profile = l.get(s, l.gi_profile), id = l.get(s, l.gi_id);
    for (auto& m : g.mig)
      if (m.instance_id == id && m.profile == profile) return m;
    g.mig.push_back({profile, id, std::nullopt, std::nullopt});
    return g.mig.back();
  }

  GpuProcess& process(const Labels& l, const Series& s) {
    std::string key = process_key(l, s);
    auto [it, fresh] = proc_at_.try_emplace(key, procs_.size());
    if (fresh) {
      GpuProcess p;
      p.gpu = l.get(s, l.gpu);
      p.gpu_uuid = l.get(s, l.uuid);
      p.mig_profile = l.get(s, l.gi_profile);
      p.mig_instance_id = l.get(s, l.gi_id);
      p.pid = l.get(s, "pid");
      p.user = l.get(s, "user");
      p.command = l.get(s, "command");
      p.container = l.get(s, "container");
      p.pod = l.get(s, "pod");
      p.namespace_ = l.get(s, "namespace");
      procs_.push_back(std::move(p));
      proc_device_.push_back(l.device_key(s));
    }
    return procs_[it->second];
  }

  static std::string process_key(const Labels& l, const Series& s) {
    return l.device_key(s) + kSep + l.get(s, l.gi_id) + kSep + l.get(s, "pid");
  }

  // Sorts and hands out the result.
  void finish(GpuSummary& out) {
    std::map<std::string, size_t> order;  // device key -> position after sorting
    std::vector<size_t> idx(gpus_.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      const GpuRow &x = gpus_[a], &y = gpus_[b];
      if (x.backend != y.backend) return x.backend < y.backend;
      if (x.index != y.index) return numeric_less(x.index, y.index);
      return x.uuid < y.uuid;
    });
    for (const auto& [key, i] : gpu_at_)
      order[key] = static_cast<size_t>(std::find(idx.begin(), idx.end(), i) - idx.begin());
    for (size_t i : idx) {
      GpuRow& g = gpus_[i];
      std::sort(g.mig.begin(), g.mig.end(),
                [](const MigInstance& a, const MigInstance& b) { return numeric_less(a.instance_id, b.instance_id); });
      out.gpus.push_back(std::move(g));
    }
    std::vector<size_t> pidx(procs_.size());
    for (size_t i = 0; i < pidx.size(); ++i) pidx[i] = i;
    auto gpu_pos = [&](size_t p) {
      auto it = order.find(proc_device_[p]);
      return it == order.end() ? order.size() : it->second;  // processes of unknown GPUs last
    };
    std::stable_sort(pidx.begin(), pidx.end(), [&](size_t a, size_t b) {
      const GpuProcess &x = procs_[a], &y = procs_[b];
      size_t ga = gpu_pos(a), gb = gpu_pos(b);
      if (ga != gb) return ga < gb;
      if (x.gpu != y.gpu) return numeric_less(x.gpu, y.gpu);
      if (x.mig_instance_id != y.mig_instance_id) return numeric_less(x.mig_instance_id, y.mig_instance_id);
      return numeric_less(x.pid, y.pid);
    });
    for (size_t i : pidx) out.processes.push_back(std::move(procs_[i]));
  }

 private:
  std::vector<GpuRow> gpus_;
  std::map<std::string, size_t> gpu_at_;
  std::vector<GpuProcess> procs_;
  std::vector<std::string> proc_device_;
  std::map<std::string, size_t> proc_at_;
};

void read_backends(const Snapshot& after, const std::vector<GpuRow>& gpus, GpuSummary& out) {
  std::map<std::string, GpuBackendState> by_name;
  for (const auto& f : after.families) {
    if (f.name != "llmon_gpu_backend_up" && f.name != "llmon_gpu_backend_info") continue;
    Labels l(f);
    int b = l.index("backend");
    if (b < 0) continue;
    for (const auto& s : f.series) {
      GpuBackendState& st = by_name[s.label_values[b]];
      st.backend = s.label_values[b];
      if (f.name == "llmon_gpu_backend_up") {
        st.up = s.value > 0;
        st.reason = l.get(s, "reason");
      } else {
        st.up = true;  // the NVIDIA collector writes info only while up
        st.driver_version = l.get(s, "driver_version");
        st.nvml_version = l.get(s, "nvml_version");
        st.cuda_driver_version = l.get(s, "cuda_driver_version");
      }
    }
  }
  // Back ends without an up series (amdgpu): up when they report a GPU.
  for (const auto& g : gpus) {
    if (g.backend.empty() || by_name.count(g.backend)) continue;
    GpuBackendState& st = by_name[g.backend];
    st.backend = g.backend;
    st.up = true;
  }
  for (auto& [name, st] : by_name) out.backends.push_back(std::move(st));
}

}  // namespace

GpuSummary summarize_gpus(const Snapshot& before, const Snapshot& after, double interval_s) {
  Builder b;
  GpuSummary out;
  // GPUs: every device series creates its row; info and up add backend and state.
  each_series(after, "llmon_gpu_info", [&](const Labels& l, const Series& s) {
    if (!l.is_mig(s)) b.gpu(l, s).backend = l.get(s, "backend");
  });
  each_series(after, "llmon_gpu_up", [&](const Labels& l, const Series& s) {
    if (!l.is_mig(s)) b.gpu(l, s).lost = s.value == 0;
  });
  for (const auto& g : kDeviceGauges) {
    each_series(after, g.name, [&](const Labels& l, const Series& s) {
      GpuRow& row = b.gpu(l, s);
      if (!l.is_mig(s)) {
        row.*g.field = s.value * g.scale;
        return;
      }
      if (g.field == &GpuRow::mem_used_bytes) b.mig(row, l, s).mem_used_bytes = s.value * g.scale;
      if (g.field == &GpuRow::mem_total_bytes) b.mig(row, l, s).mem_total_bytes = s.value * g.scale;
    });
  }
  // NVIDIA: the management limit stands in when the enforced one is unknown.
  each_series(after, "DCGM_FI_DEV_POWER_MGMT_LIMIT", [&](const Labels& l, const Series& s) {
    GpuRow& row = b.gpu(l, s);
    if (!l.is_mig(s) && !row.power_limit_w) row.power_limit_w = s.value;
  });
  each_series(after, "llmon_gpu_temperature_celsius", [&](const Labels& l, const Series& s) {
    GpuRow& row = b.gpu(l, s);
    std::string sensor = l.get(s, "sensor");
    if (sensor == "edge") row.temp_c = s.value;
    if (sensor == "junction") row.hotspot_temp_c = s.value;
    if (sensor == "mem") row.mem_temp_c = s.value;
  });
  each_series(after, "llmon_gpu_clock_hz", [&](const Labels& l, const Series& s) {
    GpuRow& row = b.gpu(l, s);
    std::string clock = l.get(s, "clock");
    if (clock == "sclk") row.sm_clock_mhz = s.value / 1e6;
    if (clock == "mclk") row.mem_clock_mhz = s.value / 1e6;
  });
  each_series(after, "llmon_gpu_pcie_link_speed_gigatransfers_per_second",
              [&](const Labels& l, const Series& s) { b.gpu(l, s).pcie_gen = pcie_gen_from_gts(s.value); });
  each_series(after, "llmon_gpu_clock_event_reason_active", [&](const Labels& l, const Series& s) {
    if (l.is_mig(s)) return;
    GpuRow& row = b.gpu(l, s);
    row.throttle_known = true;
    if (s.value > 0) row.throttle_reasons.push_back(l.get(s, "reason"));
  });

  each_series(after, "llmon_gpu_health_state", [&](const Labels& l, const Series& s) {
    if (!l.is_mig(s) && s.value == 1) b.gpu(l, s).health_state = l.get(s, "state");
  });
  each_series(after, "llmon_gpu_health_action", [&](const Labels& l, const Series& s) {
    if (!l.is_mig(s) && s.value == 1) b.gpu(l, s).health_action = l.get(s, "action");
  });

  // Processes.
  for (const auto& g : kProcessGauges)
    each_series(after, g.name, [&](const Labels& l, const Series& s) { b.process(l, s).*g.field = s.value * g.scale; });
  {
    std::map<std::string, double> cpu_before;
    each_series(before, "llmon_gpu_process_cpu_seconds_total",
                [&](const Labels& l, const Series& s) { cpu_before[Builder::process_key(l, s)] = s.value; });
    each_series(after, "llmon_gpu_process_cpu_seconds_total", [&](const Labels& l, const Series& s) {
      GpuProcess& p = b.process(l, s);
      auto it = cpu_before.find(Builder::process_key(l, s));
      // A pid whose CPU time went down is another process: no rate.
      if (interval_s > 0 && it != cpu_before.end() && s.value >= it->second)
        p.cpu_pct = (s.value - it->second) / interval_s * 100;
    });
  }
  {
    std::map<std::string, double> engine_before;
    auto key = [](const Labels& l, const Series& s) { return Builder::process_key(l, s) + kSep + l.get(s, "engine"); };
    each_series(before, "llmon_gpu_process_engine_seconds_total",
                [&](const Labels& l, const Series& s) { engine_before[key(l, s)] = s.value; });
    each_series(after, "llmon_gpu_process_engine_seconds_total", [&](const Labels& l, const Series& s) {
      GpuProcess& p = b.process(l, s);
      auto it = engine_before.find(key(l, s));
      if (interval_s > 0 && it != engine_before.end() && s.value >= it->second)
        p.engine_busy_pct = p.engine_busy_pct.value_or(0) + (s.value - it->second) / interval_s * 100;
    });
  }

  b.finish(out);
  for (auto& g : out.gpus) {
    if (!g.temp_c) g.temp_c = g.hotspot_temp_c;                           // MI300 has no edge sensor
    if (g.pstate && (*g.pstate < 0 || *g.pstate > 15)) g.pstate.reset();  // 32: unknown
    if (g.mem_used_bytes && g.mem_total_bytes && *g.mem_total_bytes > 0)
      g.mem_used_pct = 100.0 * *g.mem_used_bytes / *g.mem_total_bytes;
  }
  read_backends(after, out.gpus, out);
  return out;
}

// ---- text -------------------------------------------------------------------

namespace {

void appendf(std::string& out, const char* fmt, auto... args) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, fmt, args...);
  out += buf;
}

std::string fmt(const std::optional<double>& v, const char* f, const char* absent = "-") {
  if (!v) return absent;
  char buf[64];
  std::snprintf(buf, sizeof buf, f, *v);
  return buf;
}

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

// "71.0/80.0 GiB (89%)": both in the unit of the larger one.
std::string memory_cell(const std::optional<double>& used, const std::optional<double>& total,
                        const std::optional<double>& pct) {
  if (!used && !total) return "-";
  double ref = std::max(used.value_or(0), total.value_or(0));
  double div = ref >= kMiB * 1024 ? kMiB * 1024 : kMiB;
  const char* unit = div == kMiB ? "MiB" : "GiB";
  const char* f = div == kMiB ? "%.0f" : "%.1f";
  auto part = [&](const std::optional<double>& v) { return v ? fmt(*v / div, f) : std::string("-"); };
  std::string s = part(used) + "/" + part(total) + " " + unit;
  if (pct) s += " (" + fmt(pct, "%.0f") + "%)";
  return s;
}

std::string pair_cell(const std::optional<double>& a, const std::optional<double>& b, const char* suffix) {
  if (!a && !b) return "-";
  return fmt(a, "%.0f") + "/" + fmt(b, "%.0f") + suffix;
}

std::string throttle_cell(const GpuRow& g) {
  if (!g.throttle_known) return "-";
  if (g.throttle_reasons.empty()) return "none";
  std::string s;
  for (const auto& r : g.throttle_reasons) s += (s.empty() ? "" : ",") + r;
  return s;
}

std::string short_container(const std::string& c) {
  return c.size() > 12 ? c.substr(0, 12) : or_dash(c);
}

}  // namespace

void format_gpu_text(const GpuSummary& g, std::string& out) {
  if (g.gpus.empty()) return;
  appendf(out, "\nGPU  %-24s %4s  %-20s %4s  %-12s %-11s %-3s %s\n", "name", "util", "mem used/total", "temp",
          "power/limit", "sm/mem MHz", "P", "throttle");
  for (const auto& r : g.gpus) {
    std::string name = r.name.size() > 24 ? r.name.substr(0, 24) : or_dash(r.name);
    std::string flags;
    if (r.lost) flags += "  LOST";
    if (!r.health_state.empty() && r.health_state != "healthy")
      flags += "  " + r.health_state + " (" + r.health_action + ")";
    if (r.last_xid && *r.last_xid > 0) flags += "  xid " + fmt(r.last_xid, "%.0f");
    if (r.ecc_dbe_volatile && *r.ecc_dbe_volatile > 0) flags += "  ecc-dbe " + fmt(r.ecc_dbe_volatile, "%.0f");
    appendf(out, "%3s  %-24s %4s  %-20s %4s  %-12s %-11s %-3s %s%s\n", or_dash(r.index).c_str(), name.c_str(),
            fmt(r.util_pct, "%.0f%%").c_str(), memory_cell(r.mem_used_bytes, r.mem_total_bytes, r.mem_used_pct).c_str(),
            fmt(r.temp_c, "%.0fC").c_str(), pair_cell(r.power_w, r.power_limit_w, " W").c_str(),
            pair_cell(r.sm_clock_mhz, r.mem_clock_mhz, "").c_str(), fmt(r.pstate, "P%.0f").c_str(),
            throttle_cell(r).c_str(), flags.c_str());
    for (const auto& m : r.mig)
      appendf(out, "     mig %-4s %-18s %s\n", or_dash(m.instance_id).c_str(), or_dash(m.profile).c_str(),
              memory_cell(m.mem_used_bytes, m.mem_total_bytes, std::nullopt).c_str());
  }
  if (g.processes.empty()) return;
  appendf(out, "\nGPU PROCESSES  %-5s %8s %-10s %10s %5s %6s %10s %-12s %-24s %s\n", "gpu", "pid", "user", "gpu-mem",
          "sm%", "cpu%", "rss", "container", "pod/namespace", "command");
  auto mem = [](const std::optional<double>& v) {
    if (!v) return std::string("-");
    return *v >= kMiB * 1024 ? fmt(*v / (kMiB * 1024), "%.1f GiB") : fmt(*v / kMiB, "%.0f MiB");
  };
  for (const auto& p : g.processes) {
    std::string gpu = or_dash(p.gpu) + (p.mig_instance_id.empty() ? "" : "/" + p.mig_instance_id);
    std::string pod = p.pod.empty() && p.namespace_.empty() ? "-" : or_dash(p.pod) + "/" + or_dash(p.namespace_);
    const auto& busy = p.sm_pct ? p.sm_pct : p.engine_busy_pct;
    appendf(out, "               %-5s %8s %-10s %10s %5s %6s %10s %-12s %-24s %s\n", gpu.c_str(),
            or_dash(p.pid).c_str(), or_dash(p.user).c_str(), mem(p.gpu_mem_bytes).c_str(), fmt(busy, "%.0f").c_str(),
            fmt(p.cpu_pct, "%.1f").c_str(), mem(p.rss_bytes).c_str(), short_container(p.container).c_str(), pod.c_str(),
            or_dash(p.command).c_str());
  }
}

// ---- JSON -------------------------------------------------------------------

namespace {

nlohmann::json num(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
nlohmann::json integer(const std::optional<double>& v) {
  return v ? nlohmann::json(static_cast<int64_t>(std::llround(*v))) : nlohmann::json(nullptr);
}
// A label that holds a number ("0", "1234") as a JSON integer, else null.
nlohmann::json label_int(const std::string& s) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != 0) return nullptr;
  return v;
}

}  // namespace

void add_gpu_json(const GpuSummary& g, nlohmann::json& j) {
  using nlohmann::json;
  json backends = json::array();
  for (const auto& b : g.backends)
    backends.push_back(
        {{"backend", b.backend},
         {"up", b.up},
         {"reason", b.reason},
         {"driver_version", b.driver_version.empty() ? json(nullptr) : json(b.driver_version)},
         {"nvml_version", b.nvml_version.empty() ? json(nullptr) : json(b.nvml_version)},
         {"cuda_driver_version", b.cuda_driver_version.empty() ? json(nullptr) : json(b.cuda_driver_version)}});
  j["gpu_backends"] = backends;
  json gpus = json::array();
  for (const auto& r : g.gpus) {
    json mig = json::array();
    for (const auto& m : r.mig)
      mig.push_back({{"profile", m.profile},
                     {"instance_id", label_int(m.instance_id)},
                     {"memory_used_bytes", num(m.mem_used_bytes)},
                     {"memory_total_bytes", num(m.mem_total_bytes)}});
    json reasons = nullptr;
    if (r.throttle_known) reasons = r.throttle_reasons;
    gpus.push_back({{"index", label_int(r.index)},
                    {"name", r.name},
                    {"uuid", r.uuid},
                    {"pci_bus_id", r.pci_bus_id},
                    {"device", r.device},
                    {"backend", r.backend},
                    {"lost", r.lost},
                    {"utilization_percent", num(r.util_pct)},
                    {"memory_utilization_percent", num(r.mem_util_pct)},
                    {"memory_used_bytes", num(r.mem_used_bytes)},
                    {"memory_total_bytes", num(r.mem_total_bytes)},
                    {"memory_reserved_bytes", num(r.mem_reserved_bytes)},
                    {"memory_used_percent", num(r.mem_used_pct)},
                    {"temperature_celsius", num(r.temp_c)},
                    {"hotspot_temperature_celsius", num(r.hotspot_temp_c)},
                    {"memory_temperature_celsius", num(r.mem_temp_c)},
                    {"power_watts", num(r.power_w)},
                    {"power_limit_watts", num(r.power_limit_w)},
                    {"sm_clock_mhz", num(r.sm_clock_mhz)},
                    {"memory_clock_mhz", num(r.mem_clock_mhz)},
                    {"pstate", integer(r.pstate)},
                    {"fan_percent", num(r.fan_pct)},
                    {"pcie_link_gen", integer(r.pcie_gen)},
                    {"pcie_link_width", integer(r.pcie_width)},
                    {"clock_event_reasons", reasons},
                    {"last_xid", integer(r.last_xid)},
                    {"ecc_dbe_volatile_total", integer(r.ecc_dbe_volatile)},
                    {"health_state", r.health_state.empty() ? json(nullptr) : json(r.health_state)},
                    {"health_action", r.health_action.empty() ? json(nullptr) : json(r.health_action)},
                    {"mig_instances", mig}});
  }
  j["gpus"] = gpus;
  json procs = json::array();
  for (const auto& p : g.processes)
    procs.push_back({{"gpu", label_int(p.gpu)},
                     {"gpu_uuid", p.gpu_uuid},
                     {"mig_profile", p.mig_profile},
                     {"mig_instance_id", label_int(p.mig_instance_id)},
                     {"pid", label_int(p.pid)},
                     {"user", p.user},
                     {"command", p.command},
                     {"container", p.container},
                     {"pod", p.pod},
                     {"namespace", p.namespace_},
                     {"gpu_memory_bytes", num(p.gpu_mem_bytes)},
                     {"sm_percent", num(p.sm_pct)},
                     {"memory_percent", num(p.mem_pct)},
                     {"encoder_percent", num(p.enc_pct)},
                     {"decoder_percent", num(p.dec_pct)},
                     {"engine_busy_percent", num(p.engine_busy_pct)},
                     {"cpu_percent", num(p.cpu_pct)},
                     {"resident_memory_bytes", num(p.rss_bytes)}});
  j["gpu_processes"] = procs;
}

}  // namespace llmon::summary
