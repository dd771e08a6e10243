// What one NVML collection cycle read: per GPU a fixed array of values (NaN
// = not available on this GPU / driver / permission), the clock-event
// reason bitmask, its processes and its MIG instances. Plain data, produced
// by NvmlSampler on its thread and read by the collector and `llmon
// snapshot`. Units are NVML's base units converted to SI here: bytes, watts,
// joules, hertz, ratios 0-1 where NVML reports percent, degrees Celsius.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gpu/labels.h"

namespace llmon::gpu::nvml {

// Per-GPU values. metric_table.h says how each one is exposed.
enum class V : uint8_t {
  kSmClockHz,
  kMemClockHz,
  kSmClockMaxHz,
  kMemClockMaxHz,
  kGraphicsClockHz,
  kVideoClockHz,
  kGraphicsClockMaxHz,
  kVideoClockMaxHz,
  kGpuTempC,
  kMemTempC,
  kSlowdownTempC,  // thresholds, read at enumeration
  kShutdownTempC,
  kGpuMaxOpTempC,
  kMemMaxOpTempC,
  kPowerW,
  kPowerLimitEnforcedW,
  kPowerLimitMgmtW,
  kPowerLimitDefaultW,  // read at enumeration
  kEnergyJ,             // since driver load
  kPcieReplay,
  kGpuUtil,  // ratio 0-1
  kMemCopyUtil,
  kEncUtil,
  kDecUtil,
  kFbTotalBytes,
  kFbFreeBytes,
  kFbUsedBytes,
  kFbReservedBytes,
  kFanSpeed,  // ratio of max; may exceed 1
  kPstate,
  kClockEventReasons,  // bitmask
  kEccSbeVol,
  kEccDbeVol,
  kEccSbeAgg,
  kEccDbeAgg,
  kRetiredSbe,
  kRetiredDbe,
  kRetiredPending,
  kRemapCorrectable,
  kRemapUncorrectable,
  kRemapPending,
  kRemapFailure,
  kRecoveryAction,  // NVML field 230: 0 none, 1 GPU reset, 2 node reboot, 3 drain P2P, 4 drain and reset
  kPcieLinkGen,
  kPcieLinkWidth,
  kPcieLinkGenMax,
  kPcieLinkWidthMax,
  kPcieTxBytes,  // cumulative since llmon started watching (32/64-bit wraps unfolded)
  kPcieRxBytes,
  kPcieTxBytesPerSec,  // from the counters over the last cycle
  kPcieRxBytesPerSec,
  kNvlinkTxBytes,  // data payload, all links, as the driver counts it
  kNvlinkRxBytes,
  kNvlinkCrcFlit,
  kNvlinkCrcData,
  kNvlinkReplay,
  kNvlinkRecovery,
  kNvlinkLinkCount,
  kViolPowerS,  // time clocks were held down (perf policy counters), seconds
  kViolThermalS,
  kViolSyncBoostS,
  kViolBoardLimitS,
  kViolLowUtilS,
  kViolReliabilityS,
  kEventSwThermalS,  // clock-event reason durations (newer drivers), seconds
  kEventHwThermalS,
  kEventHwPowerBrakeS,
  kMigMode,           // 1 enabled
  kNvlinkTotalBytes,  // transmit + receive
  // GPM (Hopper and newer), ratios 0-1 / bytes per second over the last cycle.
  kGpmGraphicsActive,
  kGpmSmActive,
  kGpmSmOccupancy,
  kGpmTensorActive,
  kGpmDramActive,
  kGpmFp64Active,
  kGpmFp32Active,
  kGpmFp16Active,
  kGpmNvlinkTxBytesPerSec,
  kGpmNvlinkRxBytesPerSec,
  kCount
};
inline constexpr size_t kValueCount = static_cast<size_t>(V::kCount);
inline constexpr double kNa = std::numeric_limits<double>::quiet_NaN();

struct ProcessSample {
  uint32_t pid = 0;
  char type = 'C';  // 'C' compute, 'G' graphics, 'M' MPS ('C' and 'G' merged as "C+G" -> 'B')
  double used_memory_bytes = kNa;
  double sm_util = kNa, mem_util = kNa, enc_util = kNa, dec_util = kNa;  // ratios, NaN: no sample
  uint32_t gpu_instance = 0xFFFFFFFFu;                                   // MIG GPU instance id, or none
  uint32_t compute_instance = 0xFFFFFFFFu;
};

struct MigInstanceSample {
  DeviceIdentity id;  // parent's identity + GPU_I_PROFILE / GPU_I_ID
  std::string mig_uuid;
  uint32_t gpu_instance = 0, compute_instance = 0;
  double fb_total = kNa, fb_free = kNa, fb_used = kNa, fb_reserved = kNa;  // bytes
};

struct EventCounts {
  std::map<uint64_t, uint64_t> xid;         // Xid -> occurrences since llmon started
  double last_xid = kNa;                    // the most recent Xid (DCGM_FI_DEV_XID_ERRORS)
  std::map<std::string, uint64_t> by_type;  // "xid", "sbe", "dbe", "gpu_unavailable", ...
};

struct DeviceSample {
  DeviceIdentity id;
  bool lost = false;  // the driver answers GPU_IS_LOST for it
  std::array<double, kValueCount> v{};
  std::vector<ProcessSample> processes;
  std::vector<MigInstanceSample> mig;
  EventCounts events;
  bool events_watched = false;  // an event set is registered: no events means 0, not unknown

  double get(V k) const { return v[static_cast<size_t>(k)]; }
  void set(V k, double x) { v[static_cast<size_t>(k)] = x; }
  bool has(V k) const { return !std::isnan(get(k)); }
};

struct Sample {
  bool up = false;     // NVML initialised and enumerated
  std::string reason;  // why not up: "libnvidia-ml.so.1 not found", ...
  std::string driver_version, nvml_version, cuda_driver_version;
  std::vector<DeviceSample> devices;
  uint64_t nvml_calls = 0;                                               // calls made by this cycle
  std::map<std::pair<std::string, std::string>, uint64_t> errors_total;  // (function, error) -> count so far
};

}  // namespace llmon::gpu::nvml
