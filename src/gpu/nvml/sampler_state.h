// NvmlSampler's per-GPU state and the helpers its .cpp files share
// (nvml_sampler.cpp: enumeration and the per-cycle reads; sampler_fields.cpp:
// the nvmlDeviceGetFieldValues batch; sampler_processes.cpp; sampler_mig.cpp;
// sampler_gpm.cpp). Internal to src/gpu/nvml: include nowhere else.
#pragma once

#include <bitset>
#include <string>
#include <vector>

#include "gpu/nvml/nvml_sampler.h"

namespace llmon::gpu::nvml {

inline constexpr size_t kMaxFields = 40;  // entries of the field batch (sampler_fields.cpp)

struct NvmlSampler::Dev {
  unsigned index = 0;
  Device h = nullptr;
  bool present = false;  // handle acquired at least once
  bool lost = false;
  DeviceIdentity id;
  std::bitset<kFnCount> off;          // calls not to make again
  std::bitset<kMaxFields> field_off;  // fields not to ask again
  // Static values read at enumeration.
  double sm_max = kNa, mem_max = kNa, gen_max = kNa, width_max = kNa;
  double graphics_max = kNa, video_max = kNa, limit_default = kNa;
  double temp_slowdown = kNa, temp_shutdown = kNa, temp_gpu_max = kNa, temp_mem_max = kNa;
  // Graphics and video clocks: asked with the same nvmlDeviceGetClockInfo as
  // SM and memory, so a GPU without them must not switch that call off.
  bool no_graphics_clock = false, no_video_clock = false;
  // Slow values.
  double limit_enforced = kNa, limit_mgmt = kNa;
  double ecc_agg[2] = {kNa, kNa};
  // Counter unfolding: last raw value and the unfolded total, per counter field.
  struct Counter {
    bool seen = false;
    double raw = 0, total = 0;
  };
  Counter pcie[2];
  double pcie_rate_base[2] = {kNa, kNa};
  int64_t pcie_rate_ms = 0;
  // Processes.
  unsigned long long last_util_ts = 0;
  unsigned stride = 0;  // detected process entry stride of the _v3 calls
  // MIG.
  unsigned mig_mode = 0;
  struct Mig {
    Device h;
    MigInstanceSample s;
  };
  std::vector<Mig> migs;
  std::bitset<kFnCount> logged;  // capability losses already logged
  // GPM: checked once; two samples used alternately.
  bool gpm_checked = false;
  bool gpm_ok = false;
  GpmSample gpm[2] = {nullptr, nullptr};
  int gpm_cur = 0;
  bool gpm_have_prev = false;
};

namespace detail {
// Drops values no working driver reports (garbage must not reach a dashboard).
double sane(V k, double x);
// A NUL-terminated string from a fixed-size NVML buffer.
std::string c_string(const char* buf, size_t cap);
// "NVIDIA A100-SXM4-80GB MIG 3g.40gb" -> "3g.40gb".
std::string mig_profile_from_name(const std::string& name);
}  // namespace detail

}  // namespace llmon::gpu::nvml
