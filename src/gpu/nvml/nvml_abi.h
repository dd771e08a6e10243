// Our own declarations of the parts of the NVML C ABI llmon uses, so that no
// nvml.h (and no NVIDIA package) is a build dependency: libnvidia-ml.so.1 is
// dlopen()ed at run time (nvml_library.h). Values and layouts are those of
// NVIDIA's nvml.h (NVML 12.2; later additions marked), checked on x86-64 by
// the static_asserts at the end. Only the ABI lives here: no logic.
//
// Versioned symbols: NVML keeps old entry points when a struct changes and
// adds nvmlX_v2 / _v3 with the new layout. nvml_library.cpp resolves the
// newest one the installed driver exports and falls back.
#pragma once

#include <cstddef>
#include <cstdint>

namespace llmon::gpu::nvml {

using Return = int;  // nvmlReturn_t (an enum: int-sized)
struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t
struct EventSetSt;
using EventSet = EventSetSt*;  // nvmlEventSet_t

// nvmlReturn_t values.
enum : Return {
  kSuccess = 0,
  kErrUninitialized = 1,
  kErrInvalidArgument = 2,
  kErrNotSupported = 3,
  kErrNoPermission = 4,
  kErrAlreadyInitialized = 5,
  kErrNotFound = 6,
  kErrInsufficientSize = 7,
  kErrInsufficientPower = 8,
  kErrDriverNotLoaded = 9,
  kErrTimeout = 10,
  kErrIrqIssue = 11,
  kErrLibraryNotFound = 12,
  kErrFunctionNotFound = 13,
  kErrCorruptedInforom = 14,
  kErrGpuIsLost = 15,
  kErrResetRequired = 16,
  kErrOperatingSystem = 17,
  kErrLibRmVersionMismatch = 18,
  kErrInUse = 19,
  kErrMemory = 20,
  kErrNoData = 21,
  kErrVgpuEccNotSupported = 22,
  kErrInsufficientResources = 23,
  kErrFreqNotSupported = 24,
  kErrArgumentVersionMismatch = 25,
  kErrDeprecated = 26,
  kErrNotReady = 27,
  kErrGpuNotFound = 28,   // newer drivers
  kErrInvalidState = 29,  // newer drivers
  kErrUnknown = 999,
};

// Buffer sizes.
inline constexpr unsigned kUuidBufferSize = 96;                  // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned kNameBufferSize = 96;                  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned kSystemVersionBufferSize = 80;         // driver and NVML version strings
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE
inline constexpr unsigned kNoInstance = 0xFFFFFFFFu;             // gpuInstanceId of a non-MIG process

struct PciInfo {  // nvmlPciInfo_t (also the _v3 call's layout), 68 bytes
  char busIdLegacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId;  // device id << 16 | vendor id
  unsigned pciSubSystemId;
  char busId[32];  // "00000000:18:00.0"
};

struct Utilization {  // nvmlUtilization_t, percent
  unsigned gpu;
  unsigned memory;
};

struct Memory {  // nvmlMemory_t (v1): `used` includes reserved memory
  unsigned long long total, free, used;
};

struct MemoryV2 {    // nvmlMemory_v2_t
  unsigned version;  // kMemoryV2Version
  unsigned long long total, reserved, free, used;
};
// NVML_STRUCT_VERSION(Memory, 2) = sizeof | 2 << 24.
inline constexpr unsigned kMemoryV2Version = 0x02000028u;

struct ProcessInfoV1 {  // nvmlProcessInfo_v1_t: plain *RunningProcesses, 16 bytes
  unsigned pid;
  unsigned long long usedGpuMemory;
};
struct ProcessInfoV2 {  // nvmlProcessInfo_v2_t: _v2 and _v3 calls, 24 bytes
  unsigned pid;
  unsigned long long usedGpuMemory;
  unsigned gpuInstanceId;
  unsigned computeInstanceId;
};
// Some R535-era drivers wrote this 32-byte layout through the _v3 calls
// without a version bump (nvmlProcessDetail_v1_t's shape).
struct ProcessInfoCc {
  unsigned pid;
  unsigned long long usedGpuMemory;
  unsigned gpuInstanceId;
  unsigned computeInstanceId;
  unsigned long long usedGpuCcProtectedMemory;
};

struct ProcessUtilizationSample {  // nvmlProcessUtilizationSample_t, 32 bytes
  unsigned pid;
  unsigned long long timeStamp;  // CPU time, microseconds
  unsigned smUtil, memUtil, encUtil, decUtil;
};

struct EventData {  // nvmlEventData_t, 32 bytes
  Device device;
  unsigned long long eventType;
  unsigned long long eventData;  // the Xid for kEventXidCriticalError (999: unknown)
  unsigned gpuInstanceId;
  unsigned computeInstanceId;
};

// nvmlValueType_t
enum : int {
  kValueDouble = 0,
  kValueUnsignedInt = 1,
  kValueUnsignedLong = 2,
  kValueUnsignedLongLong = 3,
  kValueSignedLongLong = 4,
  kValueSignedInt = 5,
  kValueUnsignedShort = 6,  // newer drivers
};

union Value {  // nvmlValue_t, 8 bytes
  double dVal;
  int siVal;
  unsigned uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  unsigned short usVal;
};

struct FieldValue {  // nvmlFieldValue_t, 40 bytes
  unsigned fieldId;
  unsigned scopeId;
  long long timestamp;  // microseconds since 1970
  long long latencyUsec;
  int valueType;
  Return nvmlReturn;  // per-entry status
  Value value;
};

// Field ids (NVML_FI_DEV_*). Append-only in NVML; ids a driver does not know
// come back with a per-entry NOT_SUPPORTED.
enum : unsigned {
  kFiEccSbeVolTotal = 3,
  kFiEccDbeVolTotal = 4,
  kFiEccSbeAggTotal = 5,
  kFiEccDbeAggTotal = 6,
  kFiRetiredSbe = 29,
  kFiRetiredDbe = 30,
  kFiRetiredPending = 31,
  kFiNvlinkCrcFlitErrorTotal = 38,
  kFiNvlinkCrcDataErrorTotal = 45,
  kFiNvlinkReplayErrorTotal = 52,
  kFiNvlinkRecoveryErrorTotal = 59,
  kFiPerfPolicyPower = 74,  // = CLOCKS_EVENT_REASON_SW_POWER_CAP, ns
  kFiPerfPolicyThermal = 75,
  kFiPerfPolicySyncBoost = 76,  // = CLOCKS_EVENT_REASON_SYNC_BOOST, ns
  kFiPerfPolicyBoardLimit = 77,
  kFiPerfPolicyLowUtilization = 78,
  kFiPerfPolicyReliability = 79,
  kFiMemoryTemp = 82,
  kFiTotalEnergyConsumption = 83,  // mJ
  kFiNvlinkLinkCount = 91,
  kFiPcieReplayCounter = 94,
  kFiNvlinkThroughputDataTx = 138,  // KiB; scopeId = link, kAllLinks = sum
  kFiNvlinkThroughputDataRx = 139,
  kFiRemappedCor = 142,
  kFiRemappedUnc = 143,
  kFiRemappedPending = 144,
  kFiRemappedFailure = 145,
  kFiPcieCountTxBytes = 197,  // newer drivers; wraps
  kFiPcieCountRxBytes = 198,
  kFiGpuRecoveryAction = 230,     // NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, uiVal; r570 and later
  kFiClocksEventSwThermal = 251,  // ns, newer drivers
  kFiClocksEventHwThermal = 252,
  kFiClocksEventHwPowerBrake = 253,
};
inline constexpr unsigned kAllLinks = 0xFFFFFFFFu;

// nvmlClockType_t, nvmlTemperatureSensors_t, nvmlMemoryErrorType_t,
// nvmlEccCounterType_t, nvmlPstates_t.
enum : int { kClockGraphics = 0, kClockSm = 1, kClockMem = 2, kClockVideo = 3 };
enum : int { kTemperatureGpu = 0 };
// nvmlTemperatureThresholds_t.
enum : int {
  kTempThresholdShutdown = 0,
  kTempThresholdSlowdown = 1,
  kTempThresholdMemMax = 2,
  kTempThresholdGpuMax = 3
};
enum : int { kMemoryErrorCorrected = 0, kMemoryErrorUncorrected = 1 };
enum : int { kEccVolatile = 0, kEccAggregate = 1 };
inline constexpr int kPstateUnknown = 32;

// Event type bits (unsigned long long).
inline constexpr unsigned long long kEventSingleBitEcc = 0x1;
inline constexpr unsigned long long kEventDoubleBitEcc = 0x2;
inline constexpr unsigned long long kEventPState = 0x4;
inline constexpr unsigned long long kEventXidCriticalError = 0x8;
inline constexpr unsigned long long kEventClock = 0x10;
inline constexpr unsigned long long kEventGpuUnavailable = 0x4000;     // newer drivers
inline constexpr unsigned long long kEventGpuRecoveryAction = 0x8000;  // newer drivers

// Clock event (throttle) reason bits, nvmlClocksEventReason* / ...ThrottleReason*.
inline constexpr unsigned long long kReasonGpuIdle = 0x1;
inline constexpr unsigned long long kReasonApplicationsClocksSetting = 0x2;
inline constexpr unsigned long long kReasonSwPowerCap = 0x4;
inline constexpr unsigned long long kReasonHwSlowdown = 0x8;
inline constexpr unsigned long long kReasonSyncBoost = 0x10;
inline constexpr unsigned long long kReasonSwThermalSlowdown = 0x20;
inline constexpr unsigned long long kReasonHwThermalSlowdown = 0x40;
inline constexpr unsigned long long kReasonHwPowerBrakeSlowdown = 0x80;
inline constexpr unsigned long long kReasonDisplayClockSetting = 0x100;

inline constexpr unsigned kMigEnable = 1;

// GPM (GPU performance monitoring, Hopper and newer): two samples of the
// device's counters, and metrics computed between them.
struct GpmSampleSt;
using GpmSample = GpmSampleSt*;  // nvmlGpmSample_t
struct GpmSupport {              // nvmlGpmSupport_t
  unsigned version;              // kGpmSupportVersion
  unsigned isSupportedDevice;
};
inline constexpr unsigned kGpmSupportVersion = 1;
struct GpmMetric {  // nvmlGpmMetric_t, 40 bytes
  unsigned metricId;
  Return nvmlReturn;
  double value;
  struct {
    char* shortName;
    char* longName;
    char* unit;
  } metricInfo;
};
// nvmlGpmMetricsGet_t. NVML 12.2 declares metrics[98], newer headers [210]
// with the same version 1; the driver reads numMetrics entries, so the
// larger array is safe with either.
inline constexpr unsigned kGpmMetricMax = 210;
inline constexpr unsigned kGpmMetricsGetVersion = 1;
struct GpmMetricsGet {
  unsigned version;
  unsigned numMetrics;
  GpmSample sample1;
  GpmSample sample2;
  GpmMetric metrics[kGpmMetricMax];
};
// NVML_GPM_METRIC_* ids: utilisations in percent, rates in MiB/s.
enum : unsigned {
  kGpmGraphicsUtil = 1,
  kGpmSmUtil = 2,
  kGpmSmOccupancy = 3,
  kGpmAnyTensorUtil = 5,
  kGpmDramBwUtil = 10,
  kGpmFp64Util = 11,
  kGpmFp32Util = 12,
  kGpmFp16Util = 13,
  kGpmPcieTxPerSec = 20,
  kGpmPcieRxPerSec = 21,
  kGpmNvlinkTotalRxPerSec = 60,
  kGpmNvlinkTotalTxPerSec = 61,
};

// Function pointer types, exactly the C prototypes.
extern "C" {
using FnVoid = Return (*)();
using FnErrorString = const char* (*)(Return);
using FnString = Return (*)(char*, unsigned);
using FnInt = Return (*)(int*);
using FnUint = Return (*)(unsigned*);
using FnHandleByIndex = Return (*)(unsigned, Device*);
using FnDevString = Return (*)(Device, char*, unsigned);
using FnDevPci = Return (*)(Device, PciInfo*);
using FnDevUint = Return (*)(Device, unsigned*);
using FnDevInt = Return (*)(Device, int*);
using FnDevU64 = Return (*)(Device, unsigned long long*);
using FnDevUtil = Return (*)(Device, Utilization*);
using FnDevCodecUtil = Return (*)(Device, unsigned* util, unsigned* sampling_period_us);
using FnDevMemory = Return (*)(Device, Memory*);
using FnDevMemoryV2 = Return (*)(Device, MemoryV2*);
using FnDevEnumUint = Return (*)(Device, int, unsigned*);
using FnDevEcc = Return (*)(Device, int error_type, int counter_type, unsigned long long*);
using FnDevRemapped = Return (*)(Device, unsigned* corr, unsigned* unc, unsigned* pending, unsigned* failure);
using FnDevFields = Return (*)(Device, int, FieldValue*);
using FnDevProcesses = Return (*)(Device, unsigned* count, void* infos);  // stride depends on the version
using FnDevProcessUtil = Return (*)(Device, ProcessUtilizationSample*, unsigned* count,
                                    unsigned long long last_seen_us);
using FnDevUintUint = Return (*)(Device, unsigned*, unsigned*);
using FnDevIndexHandle = Return (*)(Device, unsigned, Device*);
using FnEventSetCreate = Return (*)(EventSet*);
using FnRegisterEvents = Return (*)(Device, unsigned long long, EventSet);
using FnEventSetWait = Return (*)(EventSet, EventData*, unsigned timeout_ms);
using FnEventSetFree = Return (*)(EventSet);
using FnGpmQuerySupport = Return (*)(Device, GpmSupport*);
using FnGpmSampleAlloc = Return (*)(GpmSample*);
using FnGpmSampleFree = Return (*)(GpmSample);
using FnGpmSampleGet = Return (*)(Device, GpmSample);
using FnGpmMetricsGet = Return (*)(GpmMetricsGet*);
}

static_assert(sizeof(PciInfo) == 68);
static_assert(offsetof(PciInfo, busId) == 36);
static_assert(sizeof(MemoryV2) == 40 && (kMemoryV2Version & 0xFFFFFF) == sizeof(MemoryV2));
static_assert(sizeof(ProcessInfoV1) == 16);
static_assert(sizeof(ProcessInfoV2) == 24);
static_assert(sizeof(ProcessInfoCc) == 32);
static_assert(sizeof(ProcessUtilizationSample) == 32);
static_assert(sizeof(EventData) == 32);
static_assert(sizeof(Value) == 8);
static_assert(sizeof(FieldValue) == 40 && offsetof(FieldValue, value) == 32);
static_assert(sizeof(GpmMetric) == 40 && offsetof(GpmMetric, value) == 8);
static_assert(offsetof(GpmMetricsGet, metrics) == 24 && sizeof(GpmMetricsGet) == 24 + 40 * kGpmMetricMax);

}  // namespace llmon::gpu::nvml
