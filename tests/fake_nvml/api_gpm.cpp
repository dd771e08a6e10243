// Exported GPM ("GPU performance monitoring", Hopper and newer) functions of the fake: nvmlGpmQueryDeviceSupport,
// nvmlGpmSampleAlloc/Free, nvmlGpmSampleGet, nvmlGpmMigSampleGet and nvmlGpmMetricsGet. A sample remembers the GPU
// (and GPU instance) and the tick it was taken at; a metric is the scenario's "gpm" value at the later sample's
// tick. Not in the legacy build: older drivers lack every nvmlGpm* symbol. See README.md "GPM".
#ifndef FAKE_NVML_LEGACY

#include "fake_state.h"

using fake_nvml::Call;
using fake_nvml::GpmKey;

namespace {

struct MetricInfo {
  unsigned id;
  GpmKey key;
  const char* short_name;  // made up: NVIDIA's strings are not documented
  const char* long_name;
  const char* unit;
};

constexpr MetricInfo kMetrics[] = {
    {NVML_GPM_METRIC_GRAPHICS_UTIL, GpmKey::kGraphicsUtil, "gr_util", "Graphics engine utilization", "%"},
    {NVML_GPM_METRIC_SM_UTIL, GpmKey::kSmUtil, "sm_util", "SM utilization", "%"},
    {NVML_GPM_METRIC_SM_OCCUPANCY, GpmKey::kSmOccupancy, "sm_occupancy", "SM occupancy", "%"},
    {NVML_GPM_METRIC_ANY_TENSOR_UTIL, GpmKey::kTensorUtil, "any_tensor_util", "Tensor pipe utilization, any type", "%"},
    {NVML_GPM_METRIC_DRAM_BW_UTIL, GpmKey::kDramBwUtil, "dram_bw_util", "DRAM bandwidth utilization", "%"},
    {NVML_GPM_METRIC_FP64_UTIL, GpmKey::kFp64Util, "fp64_util", "FP64 pipe utilization", "%"},
    {NVML_GPM_METRIC_FP32_UTIL, GpmKey::kFp32Util, "fp32_util", "FP32 pipe utilization", "%"},
    {NVML_GPM_METRIC_FP16_UTIL, GpmKey::kFp16Util, "fp16_util", "FP16 pipe utilization", "%"},
    {NVML_GPM_METRIC_PCIE_TX_PER_SEC, GpmKey::kPcieTxMibPerSec, "pcie_tx", "PCIe transmit throughput", "MiB/s"},
    {NVML_GPM_METRIC_PCIE_RX_PER_SEC, GpmKey::kPcieRxMibPerSec, "pcie_rx", "PCIe receive throughput", "MiB/s"},
    {NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, GpmKey::kNvlinkRxMibPerSec, "nvlink_rx",
     "NVLink receive throughput, all links", "MiB/s"},
    {NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, GpmKey::kNvlinkTxMibPerSec, "nvlink_tx",
     "NVLink transmit throughput, all links", "MiB/s"},
};

const MetricInfo* find_metric(unsigned id) {
  for (const auto& m : kMetrics)
    if (m.id == id) return &m;
  return nullptr;
}

bool known_sample(const fake_nvml::State& st, nvmlGpmSample_t s) {
  return s && st.gpm_samples.count(s);
}

// The "gpm" values a sample reads: the GPU's, or those of the first MIG instance with the sample's gi.
const fake_nvml::GpmValues* sample_values(const fake_nvml::Device& d, std::optional<unsigned> gpu_instance) {
  if (!gpu_instance) return &d.gpm;
  for (const auto& in : d.mig.instances)
    if (in.gi == *gpu_instance) return &in.gpm;
  return nullptr;
}

// Sample buffers are host memory: allocating and freeing one needs no initialised library (NVIDIA documents only
// INVALID_ARGUMENT and MEMORY for them). While initialised, top-level hangs and error injections apply.
nvmlReturn_t sample_buffer_call(Call& c) {
  return c.initialized() == NVML_SUCCESS ? c.system() : NVML_SUCCESS;
}

}  // namespace

FAKE_NVML_API nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t* support) {
  Call c("nvmlGpmQueryDeviceSupport");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!support) return NVML_ERROR_INVALID_ARGUMENT;
  if (support->version != NVML_GPM_SUPPORT_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  support->isSupportedDevice = c.dev().gpm_supported ? 1 : 0;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t* sample) {
  Call c("nvmlGpmSampleAlloc");
  if (nvmlReturn_t r = sample_buffer_call(c)) return r;
  if (!sample) return NVML_ERROR_INVALID_ARGUMENT;
  auto* s = new nvmlGpmSample_st;
  c.st.gpm_samples.insert(s);
  *sample = s;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample) {
  Call c("nvmlGpmSampleFree");
  if (nvmlReturn_t r = sample_buffer_call(c)) return r;
  if (!known_sample(c.st, sample)) return NVML_ERROR_INVALID_ARGUMENT;  // also a second free
  c.st.gpm_samples.erase(sample);
  delete sample;
  return NVML_SUCCESS;
}

// A failed call leaves the sample as it was.
static nvmlReturn_t sample_get(const char* fn, nvmlDevice_t device, std::optional<unsigned> gpu_instance,
                               nvmlGpmSample_t sample) {
  Call c(fn);
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!known_sample(c.st, sample)) return NVML_ERROR_INVALID_ARGUMENT;
  if (!c.dev().gpm_supported) return NVML_ERROR_NOT_SUPPORTED;
  if (gpu_instance) {
    if (c.dev().mig.mode == 0) return NVML_ERROR_NOT_SUPPORTED;
    if (!sample_values(c.dev(), gpu_instance)) return NVML_ERROR_INVALID_ARGUMENT;
  }
  sample->filled = true;
  sample->device = c.st.gpu_handles[c.gpu()];
  sample->gpu_instance = gpu_instance;
  sample->tick = c.tick();
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t sample) {
  return sample_get("nvmlGpmSampleGet", device, std::nullopt, sample);
}

FAKE_NVML_API nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpu_instance_id,
                                               nvmlGpmSample_t sample) {
  return sample_get("nvmlGpmMigSampleGet", device, gpu_instance_id, sample);
}

// Order of checks: UNINITIALIZED; NULL, version, numMetrics; the samples (unknown, never filled, taken on different
// GPUs or GPU instances, or sample2 older than sample1: INVALID_ARGUMENT), which name the device; then, as for every
// device call, hang, lost and injected errors of that device at the current tick; then one status per entry.
FAKE_NVML_API nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t* get) {
  Call c("nvmlGpmMetricsGet");
  if (nvmlReturn_t r = c.initialized()) return r;
  if (!get) return NVML_ERROR_INVALID_ARGUMENT;
  if (get->version != NVML_GPM_METRICS_GET_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  if (get->numMetrics > NVML_GPM_METRIC_MAX) return NVML_ERROR_INVALID_ARGUMENT;
  if (!known_sample(c.st, get->sample1) || !known_sample(c.st, get->sample2)) return NVML_ERROR_INVALID_ARGUMENT;
  // Copies: a hang below releases the lock.
  const nvmlGpmSample_st s1 = *get->sample1, s2 = *get->sample2;
  if (!s1.filled || !s2.filled) return NVML_ERROR_INVALID_ARGUMENT;
  if (s1.device != s2.device || s1.gpu_instance != s2.gpu_instance) return NVML_ERROR_INVALID_ARGUMENT;
  if (s2.tick < s1.tick) return NVML_ERROR_INVALID_ARGUMENT;
  if (nvmlReturn_t r = c.device(s1.device)) return r;
  const fake_nvml::GpmValues* values = sample_values(c.dev(), s1.gpu_instance);
  // Only the caller's numMetrics entries are touched: its struct may be the 98-entry one of an older header.
  for (unsigned i = 0; i < get->numMetrics; ++i) {
    nvmlGpmMetric_t& m = get->metrics[i];
    const MetricInfo* info = find_metric(m.metricId);
    m.value = 0.0;
    m.metricInfo.shortName = info ? const_cast<char*>(info->short_name) : nullptr;
    m.metricInfo.longName = info ? const_cast<char*>(info->long_name) : nullptr;
    m.metricInfo.unit = info ? const_cast<char*>(info->unit) : nullptr;
    if (auto e = c.field_error(m.metricId)) {
      m.nvmlReturn = *e;
      continue;
    }
    const std::optional<double> v =
        info && values ? fake_nvml::gpm_value(*values, info->key, s2.tick) : std::optional<double>();
    if (!v) {
      m.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      continue;
    }
    m.nvmlReturn = NVML_SUCCESS;
    m.value = s2.tick > s1.tick ? *v : 0.0;  // no time between the samples: nothing happened
  }
  return NVML_SUCCESS;
}

#endif  // FAKE_NVML_LEGACY
