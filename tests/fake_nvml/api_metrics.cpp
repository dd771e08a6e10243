// Exported NVML metric queries of the fake: utilisation, memory, thermal, power, clocks, PCIe, ECC/retired/remapped
// rows, NVLink and nvmlDeviceGetFieldValues. A scenario value key that is absent (or null at the tick) makes the
// call or field NOT_SUPPORTED. Values are cast to the C type as-is, garbage included.
#include <chrono>
#include <iterator>

#include "fake_state.h"

using fake_nvml::Call;
using fake_nvml::Key;

namespace {

template <typename T>
nvmlReturn_t one_value(const char* fn, nvmlDevice_t device, Key k, T* out) {
  Call c(fn);
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  auto v = c.value(k);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *out = static_cast<T>(*v);
  return NVML_SUCCESS;
}

bool mig_enabled(const Call& c) {
  return c.dev().mig.mode != 0;
}

// Share of a device-wide NVLink total that link `link` reports; the shares of all links sum to the total.
uint64_t link_share(uint64_t total, uint64_t links, unsigned link) {
  return total / links + (link < total % links ? 1 : 0);
}

// Memory of the GPU or of a MIG instance: {total, reserved, used by allocations}.
struct Mem {
  uint64_t total, reserved, used;
};
std::optional<Mem> memory(const Call& c) {
  std::optional<uint64_t> t, r, u;
  if (const auto* m = c.mig()) {
    if (m->memory_total) t = m->memory_total->at(c.tick());
    if (m->memory_reserved) r = m->memory_reserved->at(c.tick());
    if (m->memory_used) u = m->memory_used->at(c.tick());
  } else {
    t = c.value(Key::kMemoryTotalBytes);
    r = c.value(Key::kMemoryReservedBytes);
    u = c.value(Key::kMemoryUsedBytes);
  }
  if (!t || !r || !u) return std::nullopt;
  return Mem{*t, *r, *u};
}

}  // namespace

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* util) {
  Call c("nvmlDeviceGetUtilizationRates");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!util) return NVML_ERROR_INVALID_ARGUMENT;
  if (mig_enabled(c)) return NVML_ERROR_NOT_SUPPORTED;
  auto g = c.value(Key::kGpuUtil), m = c.value(Key::kMemUtil);
  if (!g || !m) return NVML_ERROR_NOT_SUPPORTED;
  util->gpu = static_cast<unsigned>(*g);
  util->memory = static_cast<unsigned>(*m);
  return NVML_SUCCESS;
}

static nvmlReturn_t codec_util(const char* fn, nvmlDevice_t device, Key k, unsigned* util, unsigned* period_us) {
  Call c(fn);
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!util || !period_us) return NVML_ERROR_INVALID_ARGUMENT;
  auto v = c.value(k);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *util = static_cast<unsigned>(*v);
  *period_us = 167000;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned* util, unsigned* period_us) {
  return codec_util("nvmlDeviceGetEncoderUtilization", device, Key::kEncUtil, util, period_us);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned* util, unsigned* period_us) {
  return codec_util("nvmlDeviceGetDecoderUtilization", device, Key::kDecUtil, util, period_us);
}

// v1 reports reserved memory as used (the real driver's pitfall); v2 reports it separately.
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* mem) {
  Call c("nvmlDeviceGetMemoryInfo");
  if (nvmlReturn_t r = c.device(device, /*mig_ok=*/true)) return r;
  if (!mem) return NVML_ERROR_INVALID_ARGUMENT;
  auto m = memory(c);
  if (!m) return NVML_ERROR_NOT_SUPPORTED;
  mem->total = m->total;
  mem->used = m->used + m->reserved;
  mem->free = m->total - m->used - m->reserved;
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_LEGACY
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* mem) {
  Call c("nvmlDeviceGetMemoryInfo_v2");
  if (nvmlReturn_t r = c.device(device, /*mig_ok=*/true)) return r;
  if (!mem) return NVML_ERROR_INVALID_ARGUMENT;
  if (mem->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  auto m = memory(c);
  if (!m) return NVML_ERROR_NOT_SUPPORTED;
  mem->total = m->total;
  mem->reserved = m->reserved;
  mem->used = m->used;
  mem->free = m->total - m->used - m->reserved;
  return NVML_SUCCESS;
}
#endif

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor,
                                                    unsigned int* temp) {
  Call c("nvmlDeviceGetTemperature");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!temp || sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  auto v = c.value(Key::kTemperatureGpu);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *temp = static_cast<unsigned>(*v);
  return NVML_SUCCESS;
}

// The first four thresholds come from the scenario; the acoustic ones are
// not supported (as on data-centre boards).
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t type,
                                                             unsigned int* temp) {
  static constexpr Key kKeys[] = {Key::kTemperatureShutdown, Key::kTemperatureSlowdown, Key::kTemperatureMemMax,
                                  Key::kTemperatureGpuMax};
  Call c("nvmlDeviceGetTemperatureThreshold");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!temp || static_cast<unsigned>(type) >= NVML_TEMPERATURE_THRESHOLD_COUNT) return NVML_ERROR_INVALID_ARGUMENT;
  if (static_cast<unsigned>(type) >= std::size(kKeys)) return NVML_ERROR_NOT_SUPPORTED;
  auto v = c.value(kKeys[type]);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *temp = static_cast<unsigned>(*v);
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* mw) {
  return one_value("nvmlDeviceGetPowerUsage", device, Key::kPowerUsageMw, mw);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int* mw) {
  return one_value("nvmlDeviceGetEnforcedPowerLimit", device, Key::kPowerLimitEnforcedMw, mw);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int* mw) {
  return one_value("nvmlDeviceGetPowerManagementLimit", device, Key::kPowerLimitMgmtMw, mw);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int* mw) {
  return one_value("nvmlDeviceGetPowerManagementDefaultLimit", device, Key::kPowerLimitDefaultMw, mw);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* mj) {
  return one_value("nvmlDeviceGetTotalEnergyConsumption", device, Key::kEnergyMj, mj);
}

static nvmlReturn_t clock(const char* fn, nvmlDevice_t device, nvmlClockType_t type, unsigned* mhz, bool max) {
  static constexpr Key kCurrent[] = {Key::kClockGraphicsMhz, Key::kClockSmMhz, Key::kClockMemMhz, Key::kClockVideoMhz};
  static constexpr Key kMax[] = {Key::kClockGraphicsMaxMhz, Key::kClockSmMaxMhz, Key::kClockMemMaxMhz,
                                 Key::kClockVideoMaxMhz};
  Call c(fn);
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!mhz || static_cast<unsigned>(type) >= NVML_CLOCK_COUNT) return NVML_ERROR_INVALID_ARGUMENT;
  auto v = c.value(max ? kMax[type] : kCurrent[type]);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *mhz = static_cast<unsigned>(*v);
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* mhz) {
  return clock("nvmlDeviceGetClockInfo", device, type, mhz, false);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* mhz) {
  return clock("nvmlDeviceGetMaxClockInfo", device, type, mhz, true);
}

#ifndef FAKE_NVML_LEGACY
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons) {
  return one_value("nvmlDeviceGetCurrentClocksEventReasons", device, Key::kClocksEventReasons, reasons);
}
#endif
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long* reasons) {
  return one_value("nvmlDeviceGetCurrentClocksThrottleReasons", device, Key::kClocksEventReasons, reasons);
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t* pstate) {
  Call c("nvmlDeviceGetPerformanceState");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!pstate) return NVML_ERROR_INVALID_ARGUMENT;
  auto v = c.value(Key::kPstate);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *pstate = static_cast<nvmlPstates_t>(static_cast<unsigned>(*v));
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int* speed) {
  return one_value("nvmlDeviceGetFanSpeed", device, Key::kFanSpeed, speed);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int* value) {
  return one_value("nvmlDeviceGetPcieReplayCounter", device, Key::kPcieReplay, value);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* gen) {
  return one_value("nvmlDeviceGetCurrPcieLinkGeneration", device, Key::kPcieLinkGen, gen);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* width) {
  return one_value("nvmlDeviceGetCurrPcieLinkWidth", device, Key::kPcieLinkWidth, width);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* gen) {
  return one_value("nvmlDeviceGetMaxPcieLinkGeneration", device, Key::kPcieLinkGenMax, gen);
}
FAKE_NVML_API nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int* width) {
  return one_value("nvmlDeviceGetMaxPcieLinkWidth", device, Key::kPcieLinkWidthMax, width);
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter,
                                                       unsigned int* kbps) {
  Call c("nvmlDeviceGetPcieThroughput");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!kbps || (counter != NVML_PCIE_UTIL_TX_BYTES && counter != NVML_PCIE_UTIL_RX_BYTES))
    return NVML_ERROR_INVALID_ARGUMENT;
  auto v = c.value(counter == NVML_PCIE_UTIL_TX_BYTES ? Key::kPcieTxKbps : Key::kPcieRxKbps);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *kbps = static_cast<unsigned>(*v);
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t type,
                                                       nvmlEccCounterType_t counter, unsigned long long* count) {
  Call c("nvmlDeviceGetTotalEccErrors");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!count || static_cast<unsigned>(type) > 1 || static_cast<unsigned>(counter) > 1)
    return NVML_ERROR_INVALID_ARGUMENT;
  static constexpr Key kKeys[2][2] = {{Key::kEccSbeVolatile, Key::kEccSbeAggregate},
                                      {Key::kEccDbeVolatile, Key::kEccDbeAggregate}};
  auto v = c.value(kKeys[type][counter]);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *count = *v;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* cor, unsigned int* unc,
                                                     unsigned int* pending, unsigned int* failure) {
  Call c("nvmlDeviceGetRemappedRows");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!cor || !unc || !pending || !failure) return NVML_ERROR_INVALID_ARGUMENT;
  if (mig_enabled(c)) return NVML_ERROR_NOT_SUPPORTED;
  auto a = c.value(Key::kRemappedCor), b = c.value(Key::kRemappedUnc), p = c.value(Key::kRemappedPending),
       f = c.value(Key::kRemappedFailure);
  if (!a || !b || !p || !f) return NVML_ERROR_NOT_SUPPORTED;
  *cor = static_cast<unsigned>(*a);
  *unc = static_cast<unsigned>(*b);
  *pending = static_cast<unsigned>(*p);
  *failure = static_cast<unsigned>(*f);
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                                     unsigned int* page_count, unsigned long long* addresses) {
  Call c("nvmlDeviceGetRetiredPages");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!page_count || static_cast<unsigned>(cause) > 1) return NVML_ERROR_INVALID_ARGUMENT;
  auto v =
      c.value(cause == NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS ? Key::kRetiredSbe : Key::kRetiredDbe);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  const unsigned n = static_cast<unsigned>(*v);
  if (*page_count < n) {
    *page_count = n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  if (n && !addresses) return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned i = 0; i < n; ++i)
    addresses[i] = 0x7f0000000ULL + (static_cast<unsigned long long>(cause) << 32) + i * 0x1000ULL;
  *page_count = n;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t* pending) {
  Call c("nvmlDeviceGetRetiredPagesPendingStatus");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!pending) return NVML_ERROR_INVALID_ARGUMENT;
  auto v = c.value(Key::kRetiredPending);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *pending = static_cast<nvmlEnableState_t>(static_cast<unsigned>(*v));
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t* active) {
  Call c("nvmlDeviceGetNvLinkState");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!active || link >= NVML_NVLINK_MAX_LINKS) return NVML_ERROR_INVALID_ARGUMENT;
  auto n = c.value(Key::kNvlinkLinkCount);
  if (!n || link >= *n) return NVML_ERROR_NOT_SUPPORTED;
  const uint64_t down = c.value(Key::kNvlinkDownMask).value_or(0);
  *active = (down >> link) & 1 ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link,
                                                           nvmlNvLinkErrorCounter_t counter,
                                                           unsigned long long* value) {
  static constexpr Key kKeys[] = {Key::kNvlinkReplay, Key::kNvlinkRecovery, Key::kNvlinkCrcFlit, Key::kNvlinkCrcData,
                                  Key::kNvlinkEccData};
  Call c("nvmlDeviceGetNvLinkErrorCounter");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!value || link >= NVML_NVLINK_MAX_LINKS || static_cast<unsigned>(counter) > 4) return NVML_ERROR_INVALID_ARGUMENT;
  auto n = c.value(Key::kNvlinkLinkCount);
  auto v = c.value(kKeys[counter]);
  if (!n || link >= *n || !v) return NVML_ERROR_NOT_SUPPORTED;
  *value = link_share(*v, *n, link);
  return NVML_SUCCESS;
}

namespace {

void set_ull(nvmlFieldValue_t& f, std::optional<uint64_t> v) {
  if (!v) {
    f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    return;
  }
  f.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
  f.value.ullVal = *v;
  f.nvmlReturn = NVML_SUCCESS;
}

void set_uint(nvmlFieldValue_t& f, std::optional<uint64_t> v) {
  if (!v) {
    f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    return;
  }
  f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
  f.value.ullVal = 0;
  f.value.uiVal = static_cast<unsigned>(*v);
  f.nvmlReturn = NVML_SUCCESS;
}

void set_nvlink_throughput(const Call& c, nvmlFieldValue_t& f, Key k) {
  auto n = c.value(Key::kNvlinkLinkCount);
  auto total = c.value(k);
  if (f.scopeId == UINT_MAX) return set_ull(f, n ? total : std::nullopt);
  if (f.scopeId >= NVML_NVLINK_MAX_LINKS) {
    f.nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
    return;
  }
  if (!n || !total || f.scopeId >= *n) return set_ull(f, std::nullopt);
  set_ull(f, link_share(*total, *n, f.scopeId));
}

void fill_field(const Call& c, nvmlFieldValue_t& f) {
  switch (f.fieldId) {
    case NVML_FI_DEV_ECC_SBE_VOL_TOTAL:
      return set_ull(f, c.value(Key::kEccSbeVolatile));
    case NVML_FI_DEV_ECC_DBE_VOL_TOTAL:
      return set_ull(f, c.value(Key::kEccDbeVolatile));
    case NVML_FI_DEV_ECC_SBE_AGG_TOTAL:
      return set_ull(f, c.value(Key::kEccSbeAggregate));
    case NVML_FI_DEV_ECC_DBE_AGG_TOTAL:
      return set_ull(f, c.value(Key::kEccDbeAggregate));
    case NVML_FI_DEV_RETIRED_SBE:
      return set_ull(f, c.value(Key::kRetiredSbe));
    case NVML_FI_DEV_RETIRED_DBE:
      return set_ull(f, c.value(Key::kRetiredDbe));
    case NVML_FI_DEV_RETIRED_PENDING:
      return set_uint(f, c.value(Key::kRetiredPending));
    case NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL:
      return set_ull(f, c.value(Key::kNvlinkCrcFlit));
    case NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL:
      return set_ull(f, c.value(Key::kNvlinkCrcData));
    case NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL:
      return set_ull(f, c.value(Key::kNvlinkReplay));
    case NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL:
      return set_ull(f, c.value(Key::kNvlinkRecovery));
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP:
      return set_ull(f, c.value(Key::kViolationPowerNs));
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST:
      return set_ull(f, c.value(Key::kViolationSyncBoostNs));
    case NVML_FI_DEV_MEMORY_TEMP:
      return set_uint(f, c.value(Key::kTemperatureMemory));
    case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
      return set_ull(f, c.value(Key::kEnergyMj));
    case NVML_FI_DEV_NVLINK_LINK_COUNT:
      return set_uint(f, c.value(Key::kNvlinkLinkCount));
    case NVML_FI_DEV_PCIE_REPLAY_COUNTER:
      return set_uint(f, c.value(Key::kPcieReplay));
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
      return set_nvlink_throughput(c, f, Key::kNvlinkTxKib);
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
      return set_nvlink_throughput(c, f, Key::kNvlinkRxKib);
    case NVML_FI_DEV_REMAPPED_COR:
    case NVML_FI_DEV_REMAPPED_UNC:
    case NVML_FI_DEV_REMAPPED_PENDING:
    case NVML_FI_DEV_REMAPPED_FAILURE: {
      if (mig_enabled(c)) return set_uint(f, std::nullopt);
      static constexpr Key kKeys[] = {Key::kRemappedCor, Key::kRemappedUnc, Key::kRemappedPending,
                                      Key::kRemappedFailure};
      return set_uint(f, c.value(kKeys[f.fieldId - NVML_FI_DEV_REMAPPED_COR]));
    }
    case NVML_FI_DEV_POWER_AVERAGE:
    case NVML_FI_DEV_POWER_INSTANT: {
      if (f.scopeId != 0) return set_uint(f, std::nullopt);  // 1 = module power: not modelled
      auto v = c.value(f.fieldId == NVML_FI_DEV_POWER_AVERAGE ? Key::kPowerAverageMw : Key::kPowerInstantMw);
      return set_uint(f, v ? v : c.value(Key::kPowerUsageMw));
    }
#ifndef FAKE_NVML_LEGACY  // field ids an older driver does not know
    case NVML_FI_DEV_PCIE_COUNT_TX_BYTES:
    case NVML_FI_DEV_PCIE_COUNT_RX_BYTES: {
      auto v = c.value(f.fieldId == NVML_FI_DEV_PCIE_COUNT_TX_BYTES ? Key::kPcieTxBytes : Key::kPcieRxBytes);
      return c.dev().pcie_counter_uint ? set_uint(f, v) : set_ull(f, v);
    }
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN:
      return set_ull(f, c.value(Key::kViolationSwThermalNs));
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN:
      return set_ull(f, c.value(Key::kViolationHwThermalNs));
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN:
      return set_ull(f, c.value(Key::kViolationHwPowerBrakeNs));
    case NVML_FI_DEV_GET_GPU_RECOVERY_ACTION:  // r570 and later: value.uiVal
      return set_uint(f, c.value(Key::kGpuRecoveryAction));
#endif
    default:
      return set_ull(f, std::nullopt);
  }
}

}  // namespace

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t* values) {
  Call c("nvmlDeviceGetFieldValues");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!values || count < 0) return NVML_ERROR_INVALID_ARGUMENT;
  long long ts = 1'700'000'000'000'000LL + static_cast<long long>(c.tick()) * 1'000'000LL;
  if (c.st.scenario.wallclock_timestamps)
    ts = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
             .count();
  for (int i = 0; i < count; ++i) {
    nvmlFieldValue_t& f = values[i];
    f.timestamp = ts;
    f.latencyUsec = 0;
    f.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    f.value.ullVal = 0;
    if (auto e = c.field_error(f.fieldId)) {
      f.nvmlReturn = *e;
      continue;
    }
    fill_field(c, f);
  }
  return NVML_SUCCESS;
}
