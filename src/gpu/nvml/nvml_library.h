// NvmlLibrary: libnvidia-ml.so.1 opened with dlopen() and every function
// llmon uses resolved once, newest versioned symbol first ("_v3" -> "_v2" ->
// plain). A symbol the driver lacks leaves its pointer null: callers check
// has(), and only what needs that function is disabled.
//
// Every call goes through call(), which counts it per function and adds the
// wall time spent inside it (CLOCK_MONOTONIC, relaxed atomics, any thread)
// so the agent can report NVML calls per GPU per cycle
// (llmon_gpu_nvml_calls_total) and which driver calls are slow
// (llmon_gpu_nvml_call_seconds_total{function}), and tests can assert on
// them. Calling a function the library lacks returns kErrFunctionNotFound
// without counting.
//
// The table below is the one list of NVML entry points llmon knows:
// X(id, pointer type, symbol names newest first...).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <time.h>

#include "base/dynamic_library.h"
#include "base/status.h"
#include "gpu/nvml/nvml_abi.h"

namespace llmon::gpu::nvml {

#define LLMON_NVML_FUNCTIONS(X)                                                                      \
  X(Init, FnVoid, "nvmlInit_v2", "nvmlInit")                                                         \
  X(Shutdown, FnVoid, "nvmlShutdown")                                                                \
  X(ErrorString, FnErrorString, "nvmlErrorString")                                                   \
  X(DriverVersion, FnString, "nvmlSystemGetDriverVersion")                                           \
  X(NvmlVersion, FnString, "nvmlSystemGetNVMLVersion")                                               \
  X(CudaDriverVersion, FnInt, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion") \
  X(DeviceCount, FnUint, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount")                              \
  X(HandleByIndex, FnHandleByIndex, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex")   \
  X(Uuid, FnDevString, "nvmlDeviceGetUUID")                                                          \
  X(Name, FnDevString, "nvmlDeviceGetName")                                                          \
  X(PciInfo, FnDevPci, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo") \
  X(MinorNumber, FnDevUint, "nvmlDeviceGetMinorNumber")                                              \
  X(UtilizationRates, FnDevUtil, "nvmlDeviceGetUtilizationRates")                                    \
  X(EncoderUtilization, FnDevCodecUtil, "nvmlDeviceGetEncoderUtilization")                           \
  X(DecoderUtilization, FnDevCodecUtil, "nvmlDeviceGetDecoderUtilization")                           \
  X(MemoryInfoV2, FnDevMemoryV2, "nvmlDeviceGetMemoryInfo_v2")                                       \
  X(MemoryInfo, FnDevMemory, "nvmlDeviceGetMemoryInfo")                                              \
  X(Temperature, FnDevEnumUint, "nvmlDeviceGetTemperature")                                          \
  X(TemperatureThreshold, FnDevEnumUint, "nvmlDeviceGetTemperatureThreshold")                        \
  X(PowerUsage, FnDevUint, "nvmlDeviceGetPowerUsage")                                                \
  X(EnforcedPowerLimit, FnDevUint, "nvmlDeviceGetEnforcedPowerLimit")                                \
  X(PowerManagementLimit, FnDevUint, "nvmlDeviceGetPowerManagementLimit")                            \
  X(PowerManagementDefaultLimit, FnDevUint, "nvmlDeviceGetPowerManagementDefaultLimit")              \
  X(TotalEnergy, FnDevU64, "nvmlDeviceGetTotalEnergyConsumption")                                    \
  X(ClockInfo, FnDevEnumUint, "nvmlDeviceGetClockInfo")                                              \
  X(MaxClockInfo, FnDevEnumUint, "nvmlDeviceGetMaxClockInfo")                                        \
  X(ClockEventReasons, FnDevU64, "nvmlDeviceGetCurrentClocksEventReasons",                           \
    "nvmlDeviceGetCurrentClocksThrottleReasons")                                                     \
  X(PerformanceState, FnDevInt, "nvmlDeviceGetPerformanceState")                                     \
  X(FanSpeed, FnDevUint, "nvmlDeviceGetFanSpeed")                                                    \
  X(PcieReplayCounter, FnDevUint, "nvmlDeviceGetPcieReplayCounter")                                  \
  X(PcieLinkGen, FnDevUint, "nvmlDeviceGetCurrPcieLinkGeneration")                                   \
  X(PcieLinkWidth, FnDevUint, "nvmlDeviceGetCurrPcieLinkWidth")                                      \
  X(PcieMaxLinkGen, FnDevUint, "nvmlDeviceGetMaxPcieLinkGeneration")                                 \
  X(PcieMaxLinkWidth, FnDevUint, "nvmlDeviceGetMaxPcieLinkWidth")                                    \
  X(TotalEccErrors, FnDevEcc, "nvmlDeviceGetTotalEccErrors")                                         \
  X(RemappedRows, FnDevRemapped, "nvmlDeviceGetRemappedRows")                                        \
  X(FieldValues, FnDevFields, "nvmlDeviceGetFieldValues")                                            \
  X(ComputeProcesses, FnDevProcesses, "nvmlDeviceGetComputeRunningProcesses_v3",                     \
    "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses")               \
  X(GraphicsProcesses, FnDevProcesses, "nvmlDeviceGetGraphicsRunningProcesses_v3",                   \
    "nvmlDeviceGetGraphicsRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses")             \
  X(ProcessUtilization, FnDevProcessUtil, "nvmlDeviceGetProcessUtilization")                         \
  X(MigMode, FnDevUintUint, "nvmlDeviceGetMigMode")                                                  \
  X(MaxMigDeviceCount, FnDevUint, "nvmlDeviceGetMaxMigDeviceCount")                                  \
  X(MigDeviceByIndex, FnDevIndexHandle, "nvmlDeviceGetMigDeviceHandleByIndex")                       \
  X(GpuInstanceId, FnDevUint, "nvmlDeviceGetGpuInstanceId")                                          \
  X(ComputeInstanceId, FnDevUint, "nvmlDeviceGetComputeInstanceId")                                  \
  X(EventSetCreate, FnEventSetCreate, "nvmlEventSetCreate")                                          \
  X(SupportedEventTypes, FnDevU64, "nvmlDeviceGetSupportedEventTypes")                               \
  X(RegisterEvents, FnRegisterEvents, "nvmlDeviceRegisterEvents")                                    \
  X(EventSetWait, FnEventSetWait, "nvmlEventSetWait_v2", "nvmlEventSetWait")                         \
  X(EventSetFree, FnEventSetFree, "nvmlEventSetFree")                                                \
  X(GpmQueryDeviceSupport, FnGpmQuerySupport, "nvmlGpmQueryDeviceSupport")                           \
  X(GpmSampleAlloc, FnGpmSampleAlloc, "nvmlGpmSampleAlloc")                                          \
  X(GpmSampleFree, FnGpmSampleFree, "nvmlGpmSampleFree")                                             \
  X(GpmSampleGet, FnGpmSampleGet, "nvmlGpmSampleGet")                                                \
  X(GpmMetricsGet, FnGpmMetricsGet, "nvmlGpmMetricsGet")

enum class Fn : uint8_t {
#define LLMON_NVML_ENUM(id, type, ...) k##id,
  LLMON_NVML_FUNCTIONS(LLMON_NVML_ENUM)
#undef LLMON_NVML_ENUM
      kCount
};
inline constexpr size_t kFnCount = static_cast<size_t>(Fn::kCount);

// Process-list entry layouts, by the symbol that was resolved.
enum class ProcessAbi : uint8_t { kV1 /*16 B*/, kV2 /*24 B, _v2 and _v3*/ };

class NvmlLibrary {
 public:
  // dlopen(path) and resolve every symbol. Fails only when the library
  // cannot be opened or lacks the minimum (init, device count, handle by
  // index): the message names the path and what is missing.
  static Expected<std::unique_ptr<NvmlLibrary>> load(const std::string& path);

  bool has(Fn f) const { return ptr_[idx(f)] != nullptr; }
  // The symbol name that was resolved ("" when missing).
  std::string_view symbol(Fn f) const { return symbol_[idx(f)]; }
  static std::string_view function_name(Fn f);  // the newest name, for messages
  const std::string& path() const { return lib_.path(); }
  ProcessAbi process_abi(Fn f) const;  // kComputeProcesses / kGraphicsProcesses
  // True when the library exports nvmlDeviceGetConfComputeMemSizeInfo but
  // not nvmlDeviceGetRunningProcessDetailList: the R535 signature of drivers
  // whose _v3 process calls may write 32-byte entries.
  bool maybe_cc_stride() const { return maybe_cc_stride_; }

  template <typename F, typename... Args>
  Return call(Fn f, Args... args) const {
    auto p = reinterpret_cast<F>(ptr_[idx(f)]);
    if (p == nullptr) return kErrFunctionNotFound;
    calls_[idx(f)].fetch_add(1, std::memory_order_relaxed);
    uint64_t t0 = monotonic_ns();
    Return r = p(args...);
    nanos_[idx(f)].fetch_add(monotonic_ns() - t0, std::memory_order_relaxed);
    return r;
  }
  // nvmlErrorString, or "NVML error <n>" when missing or null.
  std::string error_string(Return r) const;

  uint64_t calls(Fn f) const { return calls_[idx(f)].load(std::memory_order_relaxed); }
  uint64_t total_calls() const;
  // Nanoseconds spent inside f so far (nvmlEventSetWait blocks by design).
  uint64_t nanos(Fn f) const { return nanos_[idx(f)].load(std::memory_order_relaxed); }

  // Leaves the library mapped at destruction (a thread stuck in a hung
  // NVML call must not return into unmapped code).
  void leak_on_destroy() { leak_.store(true); }  // any thread
  ~NvmlLibrary();

 private:
  static size_t idx(Fn f) { return static_cast<size_t>(f); }
  static uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  }
  NvmlLibrary() = default;
  base::DynamicLibrary lib_;
  std::array<void*, kFnCount> ptr_{};
  std::array<std::string_view, kFnCount> symbol_{};
  mutable std::array<std::atomic<uint64_t>, kFnCount> calls_{};
  mutable std::array<std::atomic<uint64_t>, kFnCount> nanos_{};
  bool maybe_cc_stride_ = false;
  std::atomic<bool> leak_{false};
};

}  // namespace llmon::gpu::nvml
