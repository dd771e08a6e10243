// Exported NVML process and MIG queries of the fake: {Compute,Graphics,MPSCompute}RunningProcesses (plain 16-byte,
// _v2 24-byte and _v3 24- or, with "process_stride": 32, the R535 32-byte entries), ProcessUtilization and the MIG
// handle functions.
#include <cstring>

#include "fake_state.h"

using fake_nvml::Call;
using fake_nvml::Process;

namespace {

bool active_on(const Call& c, const Process& p) {
  if (!p.ticks.contains(c.tick())) return false;
  const auto* m = c.mig();
  return !m || (p.gi == m->gi && (p.ci == UINT_MAX || p.ci == m->ci));
}

nvmlReturn_t running(const char* fn, nvmlDevice_t device, char type, int version, unsigned* count, void* infos) {
  Call c(fn);
  if (nvmlReturn_t r = c.device(device, /*mig_ok=*/true)) return r;
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  std::vector<const Process*> list;
  for (const auto& p : c.dev().processes)
    if (p.types.find(type) != std::string::npos && active_on(c, p)) list.push_back(&p);
  const unsigned n = static_cast<unsigned>(list.size());
  if (*count < n) {
    *count = n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  if (n && !infos) return NVML_ERROR_INVALID_ARGUMENT;
  const size_t stride = version == 1 ? 16 : version == 2 ? 24 : c.st.scenario.process_stride;
  auto* base = static_cast<unsigned char*>(infos);
  for (unsigned i = 0; i < n; ++i) {
    const Process& p = *list[i];
    unsigned char* e = base + i * stride;
    std::memset(e, 0, stride);
    unsigned long long used = static_cast<unsigned long long>(NVML_VALUE_NOT_AVAILABLE);
    if (p.used_memory)
      if (auto v = p.used_memory->at(c.tick())) used = *v;
    std::memcpy(e + 0, &p.pid, 4);
    std::memcpy(e + 8, &used, 8);
    if (version >= 2) {
      std::memcpy(e + 16, &p.gi, 4);
      std::memcpy(e + 20, &p.ci, 4);
    }
    // stride 32: usedGpuCcProtectedMemory at 24 stays 0 (no confidential computing).
  }
  *count = n;
  return NVML_SUCCESS;
}

}  // namespace

#define FAKE_NVML_PROCESSES(Kind, type)                                                              \
  FAKE_NVML_API nvmlReturn_t nvmlDeviceGet##Kind##RunningProcesses(nvmlDevice_t d, unsigned* n,      \
                                                                   nvmlProcessInfo_v1_t* infos) {    \
    return running("nvmlDeviceGet" #Kind "RunningProcesses", d, type, 1, n, infos);                  \
  }                                                                                                  \
  FAKE_NVML_API nvmlReturn_t nvmlDeviceGet##Kind##RunningProcesses_v2(nvmlDevice_t d, unsigned* n,   \
                                                                      nvmlProcessInfo_v2_t* infos) { \
    return running("nvmlDeviceGet" #Kind "RunningProcesses_v2", d, type, 2, n, infos);               \
  }
#define FAKE_NVML_PROCESSES_V3(Kind, type)                                                         \
  FAKE_NVML_API nvmlReturn_t nvmlDeviceGet##Kind##RunningProcesses_v3(nvmlDevice_t d, unsigned* n, \
                                                                      nvmlProcessInfo_t* infos) {  \
    return running("nvmlDeviceGet" #Kind "RunningProcesses_v3", d, type, 3, n, infos);             \
  }

FAKE_NVML_PROCESSES(Compute, 'C')
FAKE_NVML_PROCESSES(Graphics, 'G')
FAKE_NVML_PROCESSES(MPSCompute, 'M')
#ifndef FAKE_NVML_LEGACY
FAKE_NVML_PROCESSES_V3(Compute, 'C')
FAKE_NVML_PROCESSES_V3(Graphics, 'G')
FAKE_NVML_PROCESSES_V3(MPSCompute, 'M')
#endif

// Timestamps are µs: 1'700'000'000'000'000 + tick * 1'000'000 + pid % 1000, so each tick yields fresh samples.
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                                           nvmlProcessUtilizationSample_t* utilization,
                                                           unsigned int* count, unsigned long long last_seen) {
  Call c("nvmlDeviceGetProcessUtilization");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  if (c.dev().mig.mode != 0) return NVML_ERROR_NOT_SUPPORTED;
  std::vector<nvmlProcessUtilizationSample_t> samples;
  const auto at = [&](const std::optional<fake_nvml::Series>& s) {
    return s ? static_cast<unsigned>(s->at(c.tick()).value_or(0)) : 0u;
  };
  for (const auto& p : c.dev().processes) {
    if (!p.ticks.contains(c.tick())) continue;
    bool dup = false;
    for (const auto& s : samples) dup = dup || s.pid == p.pid;
    if (dup) continue;
    nvmlProcessUtilizationSample_t s{};
    s.pid = p.pid;
    s.timeStamp = 1'700'000'000'000'000ULL + c.tick() * 1'000'000ULL + p.pid % 1000;
    s.smUtil = at(p.sm);
    s.memUtil = at(p.mem);
    s.encUtil = at(p.enc);
    s.decUtil = at(p.dec);
    // The driver reports only processes that were active in the last sample period.
    if (s.smUtil == 0 && s.memUtil == 0 && s.encUtil == 0 && s.decUtil == 0) continue;
    if (s.timeStamp <= last_seen) continue;
    samples.push_back(s);
  }
  const unsigned n = static_cast<unsigned>(samples.size());
  if (n == 0) {
    *count = 0;
    return NVML_ERROR_NOT_FOUND;
  }
  if (!utilization || *count < n) {
    *count = n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  std::memcpy(utilization, samples.data(), n * sizeof(nvmlProcessUtilizationSample_t));
  *count = n;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* current, unsigned int* pending) {
  Call c("nvmlDeviceGetMigMode");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
  if (!c.dev().mig_capable) return NVML_ERROR_NOT_SUPPORTED;
  *current = c.dev().mig.mode;
  *pending = c.dev().mig.pending_mode;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int* count) {
  Call c("nvmlDeviceGetMaxMigDeviceCount");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  *count = c.dev().mig.max_devices;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                               nvmlDevice_t* mig) {
  Call c("nvmlDeviceGetMigDeviceHandleByIndex");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!mig) return NVML_ERROR_INVALID_ARGUMENT;
  if (!c.dev().mig_capable) return NVML_ERROR_NOT_SUPPORTED;
  if (index >= c.dev().mig.max_devices) return NVML_ERROR_INVALID_ARGUMENT;
  const auto& instances = c.dev().mig.instances;
  for (size_t i = 0; i < instances.size(); ++i) {
    if (instances[i].slot != index) continue;
    *mig = c.st.mig_handles[c.gpu()][i];
    return NVML_SUCCESS;
  }
  return NVML_ERROR_NOT_FOUND;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig, nvmlDevice_t* device) {
  Call c("nvmlDeviceGetDeviceHandleFromMigDeviceHandle");
  if (nvmlReturn_t r = c.device(mig, /*mig_ok=*/true)) return r;
  if (!device || !c.mig()) return NVML_ERROR_INVALID_ARGUMENT;
  *device = c.st.gpu_handles[c.gpu()];
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int* is_mig) {
  Call c("nvmlDeviceIsMigDeviceHandle");
  if (nvmlReturn_t r = c.device(device, /*mig_ok=*/true)) return r;
  if (!is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  *is_mig = c.mig() ? 1 : 0;
  return NVML_SUCCESS;
}

static nvmlReturn_t instance_id(const char* fn, nvmlDevice_t device, unsigned* id, bool gpu_instance) {
  Call c(fn);
  if (nvmlReturn_t r = c.device(device, /*mig_ok=*/true)) return r;
  if (!id) return NVML_ERROR_INVALID_ARGUMENT;
  if (!c.mig()) return NVML_ERROR_NOT_SUPPORTED;
  *id = gpu_instance ? c.mig()->gi : c.mig()->ci;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int* id) {
  return instance_id("nvmlDeviceGetGpuInstanceId", device, id, true);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int* id) {
  return instance_id("nvmlDeviceGetComputeInstanceId", device, id, false);
}
