// Exported NVML entry points of the fake libnvidia-ml.so.1: init/shutdown, error strings, system queries,
// enumeration and identity. Metrics, processes/MIG and events are in api_*.cpp. Built twice: the full current-driver
// symbol set, and with FAKE_NVML_LEGACY an older driver's (see README.md "Builds").
#include <cstdio>

#include "fake_state.h"

using fake_nvml::Call;
using fake_nvml::copy_string;

FAKE_NVML_API nvmlReturn_t nvmlInit_v2(void) {
  Call c("nvmlInit_v2");
  return c.st.init();
}

FAKE_NVML_API nvmlReturn_t nvmlInit(void) {
  Call c("nvmlInit");
  return c.st.init();
}

FAKE_NVML_API nvmlReturn_t nvmlShutdown(void) {
  Call c("nvmlShutdown");
  return c.st.shutdown();
}

FAKE_NVML_API const char* nvmlErrorString(nvmlReturn_t result) {
  Call c("nvmlErrorString");
  return fake_nvml::error_string(result);
}

FAKE_NVML_API nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  Call c("nvmlSystemGetDriverVersion");
  if (nvmlReturn_t r = c.system()) return r;
  return copy_string(c.st.scenario.driver_version, version, length);
}

FAKE_NVML_API nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
  Call c("nvmlSystemGetNVMLVersion");
  if (nvmlReturn_t r = c.system()) return r;
  return copy_string(c.st.scenario.nvml_version, version, length);
}

static nvmlReturn_t cuda_driver_version(const char* fn, int* v) {
  Call c(fn);
  if (nvmlReturn_t r = c.system()) return r;
  if (!v) return NVML_ERROR_INVALID_ARGUMENT;
  *v = c.st.scenario.cuda_driver_version;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) {
  return cuda_driver_version("nvmlSystemGetCudaDriverVersion", v);
}

#ifndef FAKE_NVML_LEGACY
FAKE_NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) {
  return cuda_driver_version("nvmlSystemGetCudaDriverVersion_v2", v);
}
#endif

// Every call advances the timeline by one tick (README.md "Ticks"), even if an error is injected into it.
static nvmlReturn_t device_count(const char* fn, unsigned int* count) {
  Call c(fn);
  if (nvmlReturn_t r = c.initialized()) return r;
  c.st.advance_tick();
  if (nvmlReturn_t r = c.system()) return r;
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  *count = static_cast<unsigned>(c.st.scenario.devices.size());
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  return device_count("nvmlDeviceGetCount_v2", count);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetCount(unsigned int* count) {
  return device_count("nvmlDeviceGetCount", count);
}

static nvmlReturn_t handle_by_index(const char* fn, unsigned int index, nvmlDevice_t* device) {
  Call c(fn);
  if (nvmlReturn_t r = c.index(index)) return r;
  if (!device) return NVML_ERROR_INVALID_ARGUMENT;
  *device = c.st.gpu_handles[index];
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  return handle_by_index("nvmlDeviceGetHandleByIndex_v2", index, device);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t* device) {
  return handle_by_index("nvmlDeviceGetHandleByIndex", index, device);
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  Call c("nvmlDeviceGetUUID");
  if (nvmlReturn_t r = c.device(device, /*mig_ok=*/true)) return r;
  return copy_string(c.mig() ? c.mig()->uuid : c.dev().uuid, uuid, length);
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  Call c("nvmlDeviceGetName");
  if (nvmlReturn_t r = c.device(device, /*mig_ok=*/true)) return r;
  return copy_string(c.mig() ? c.mig()->name : c.dev().name, name, length);
}

static nvmlReturn_t pci_info(const char* fn, nvmlDevice_t device, nvmlPciInfo_t* pci) {
  Call c(fn);
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!pci) return NVML_ERROR_INVALID_ARGUMENT;
  const auto& d = c.dev();
  *pci = nvmlPciInfo_t{};
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", d.domain & 0xFFFF, d.bus & 0xFF,
                d.device & 0xFF);
  std::snprintf(pci->busId, sizeof pci->busId, "%s", d.bus_id.c_str());
  pci->domain = d.domain;
  pci->bus = d.bus;
  pci->device = d.device;
  pci->pciDeviceId = d.pci_device_id;
  pci->pciSubSystemId = d.pci_subsystem_id;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return pci_info("nvmlDeviceGetPciInfo", device, pci);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return pci_info("nvmlDeviceGetPciInfo_v2", device, pci);
}
#ifndef FAKE_NVML_LEGACY
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return pci_info("nvmlDeviceGetPciInfo_v3", device, pci);
}
#endif

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int* minor) {
  Call c("nvmlDeviceGetMinorNumber");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!minor) return NVML_ERROR_INVALID_ARGUMENT;
  *minor = c.dev().minor_number;
  return NVML_SUCCESS;
}
