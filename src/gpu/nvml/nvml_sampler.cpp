#include "gpu/nvml/nvml_sampler.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string_view>

#include "gpu/nvml/sampler_state.h"

namespace llmon::gpu::nvml {

using detail::c_string;
using detail::mig_profile_from_name;
using detail::sane;

NvmlSampler::NvmlSampler(const NvmlLibrary& lib, base::Logger& log, SamplerOptions opt)
    : lib_(lib), log_(log), opt_(opt) {}
NvmlSampler::~NvmlSampler() {
  for (auto& d : devs_)
    for (GpmSample g : d->gpm)
      if (g) lib_.call<FnGpmSampleFree>(Fn::kGpmSampleFree, g);
}

void NvmlSampler::count_error(Fn f, Return r) {
  std::pair<std::string, std::string> key{std::string(NvmlLibrary::function_name(f)), lib_.error_string(r)};
  ++errors_[key];
  if (warned_.insert(key).second)
    log_.warn("NVML call failed (counted in llmon_gpu_nvml_errors_total; logged once)",
              {{"function", key.first}, {"error", key.second}});
}

bool NvmlSampler::check(Dev& d, Fn f, Return r) {
  switch (r) {
    case kSuccess:
      return true;
    case kErrGpuIsLost:
      if (!d.lost) log_.warn("GPU lost", {{"gpu", d.id.gpu}, {"UUID", d.id.uuid}});
      d.lost = true;
      count_error(f, r);
      return false;
    case kErrNoPermission:
    case kErrArgumentVersionMismatch:
      if (!d.logged.test(static_cast<size_t>(f)))
        log_.info("NVML call disabled for this GPU",
                  {{"gpu", d.id.gpu}, {"function", NvmlLibrary::function_name(f)}, {"error", lib_.error_string(r)}});
      d.logged.set(static_cast<size_t>(f));
      [[fallthrough]];
    case kErrNotSupported:
    case kErrFunctionNotFound:
      d.off.set(static_cast<size_t>(f));
      return false;
    default:
      count_error(f, r);
      return false;
  }
}

void NvmlSampler::enumerate(unsigned count) {
  // Keep Dev objects of indexes that still exist, so their counters and
  // capabilities survive; identities are re-read.
  for (size_t i = count; i < devs_.size(); ++i)  // GPUs gone: free their GPM samples
    for (GpmSample g : devs_[i]->gpm)
      if (g) lib_.call<FnGpmSampleFree>(Fn::kGpmSampleFree, g);
  devs_.resize(count);
  for (unsigned i = 0; i < count; ++i) {
    if (!devs_[i]) devs_[i] = std::make_unique<Dev>();
    devs_[i]->index = i;
    devs_[i]->present = false;
  }
  for (auto& d : devs_) acquire(*d);
  ++generation_;
}

bool NvmlSampler::acquire(Dev& d) {
  Device h = nullptr;
  Return r = lib_.call<FnHandleByIndex>(Fn::kHandleByIndex, d.index, &h);
  if (r != kSuccess) {
    if (r == kErrGpuIsLost) {
      d.lost = true;
    } else if (!d.logged.test(static_cast<size_t>(Fn::kHandleByIndex))) {
      d.logged.set(static_cast<size_t>(Fn::kHandleByIndex));
      log_.info("GPU not accessible; skipped", {{"index", std::to_string(d.index)}, {"error", lib_.error_string(r)}});
    }
    return false;
  }
  char buf[kUuidBufferSize] = {};
  r = lib_.call<FnDevString>(Fn::kUuid, h, buf, kUuidBufferSize);
  if (r == kErrGpuIsLost) {
    d.lost = true;
    return false;
  }
  std::string uuid = r == kSuccess ? c_string(buf, sizeof buf) : "";
  bool same = d.present || (!d.id.uuid.empty() && d.id.uuid == uuid);
  d.h = h;
  d.lost = false;
  if (!same || d.id.uuid.empty()) {
    DeviceIdentity id;
    id.gpu = std::to_string(d.index);
    id.uuid = uuid;
    char name[kNameBufferSize] = {};
    if (lib_.call<FnDevString>(Fn::kName, h, name, kNameBufferSize) == kSuccess)
      id.model_name = c_string(name, sizeof name);
    PciInfo pci{};
    if (lib_.call<FnDevPci>(Fn::kPciInfo, h, &pci) == kSuccess) id.pci_bus_id = c_string(pci.busId, sizeof pci.busId);
    unsigned minor = 0;
    id.device = lib_.call<FnDevUint>(Fn::kMinorNumber, h, &minor) == kSuccess ? "nvidia" + std::to_string(minor)
                                                                              : "nvidia" + std::to_string(d.index);
    d.id = std::move(id);
    // Static values.
    unsigned v = 0;
    d.sm_max = lib_.call<FnDevEnumUint>(Fn::kMaxClockInfo, h, kClockSm, &v) == kSuccess ? v * 1e6 : kNa;
    d.mem_max = lib_.call<FnDevEnumUint>(Fn::kMaxClockInfo, h, kClockMem, &v) == kSuccess ? v * 1e6 : kNa;
    d.graphics_max = lib_.call<FnDevEnumUint>(Fn::kMaxClockInfo, h, kClockGraphics, &v) == kSuccess ? v * 1e6 : kNa;
    d.video_max = lib_.call<FnDevEnumUint>(Fn::kMaxClockInfo, h, kClockVideo, &v) == kSuccess ? v * 1e6 : kNa;
    d.limit_default = lib_.has(Fn::kPowerManagementDefaultLimit) &&
                              lib_.call<FnDevUint>(Fn::kPowerManagementDefaultLimit, h, &v) == kSuccess
                          ? sane(V::kPowerLimitDefaultW, v / 1000.0)
                          : kNa;
    auto threshold = [&](int which, V as) {
      return lib_.has(Fn::kTemperatureThreshold) &&
                     lib_.call<FnDevEnumUint>(Fn::kTemperatureThreshold, h, which, &v) == kSuccess
                 ? sane(as, v)
                 : kNa;
    };
    d.temp_slowdown = threshold(kTempThresholdSlowdown, V::kSlowdownTempC);
    d.temp_shutdown = threshold(kTempThresholdShutdown, V::kShutdownTempC);
    d.temp_gpu_max = threshold(kTempThresholdGpuMax, V::kGpuMaxOpTempC);
    d.temp_mem_max = threshold(kTempThresholdMemMax, V::kMemMaxOpTempC);
    d.gen_max = lib_.call<FnDevUint>(Fn::kPcieMaxLinkGen, h, &v) == kSuccess ? sane(V::kPcieLinkGenMax, v) : kNa;
    d.width_max = lib_.call<FnDevUint>(Fn::kPcieMaxLinkWidth, h, &v) == kSuccess ? sane(V::kPcieLinkWidthMax, v) : kNa;
  }
  d.present = true;
  return true;
}

void NvmlSampler::sample(int64_t now_ms, Sample& out) {
  uint64_t calls_before = lib_.total_calls();
  unsigned count = 0;
  Return r = lib_.call<FnUint>(Fn::kDeviceCount, &count);
  out.devices.clear();
  if (r != kSuccess) {
    out.up = false;
    out.reason = "nvmlDeviceGetCount: " + lib_.error_string(r);
    Fn f = Fn::kDeviceCount;
    count_error(f, r);
    out.errors_total = errors_;
    out.nvml_calls = lib_.total_calls() - calls_before;
    return;
  }
  out.up = true;
  out.reason.clear();
  if (!enumerated_ || count != devs_.size()) {
    if (enumerated_)
      log_.info("GPU count changed; re-enumerating",
                {{"was", std::to_string(devs_.size())}, {"now", std::to_string(count)}});
    enumerate(count);
    enumerated_ = true;
  }
  bool slow = cycle_ % static_cast<uint64_t>(std::max(1, opt_.slow_every)) == 0;
  for (auto& dp : devs_) {
    Dev& d = *dp;
    if (!d.present || d.lost) {
      bool was_present = d.present;
      if (!acquire(d)) {
        if (d.lost || was_present || !d.id.uuid.empty()) {
          DeviceSample s;
          s.id = d.id;
          s.lost = true;
          s.v.fill(kNa);
          out.devices.push_back(std::move(s));
        }
        continue;
      }
      ++generation_;
      if (was_present || !d.id.uuid.empty()) log_.info("GPU back", {{"gpu", d.id.gpu}, {"UUID", d.id.uuid}});
    }
    DeviceSample s;
    s.id = d.id;
    s.v.fill(kNa);
    read_device(d, s, now_ms, slow);
    if (d.lost) {
      d.gpm_have_prev = false;
      s.lost = true;
      s.v.fill(kNa);
      s.processes.clear();
      s.mig.clear();
    }
    out.devices.push_back(std::move(s));
  }
  ++cycle_;
  out.errors_total = errors_;
  out.nvml_calls = lib_.total_calls() - calls_before;
}

void NvmlSampler::read_device(Dev& d, DeviceSample& s, int64_t now_ms, bool slow) {
  auto on = [&](Fn f) { return !d.off.test(static_cast<size_t>(f)) && lib_.has(f) && !d.lost; };
  Device h = d.h;
  unsigned u = 0, period = 0;
  if (on(Fn::kUtilizationRates)) {
    Utilization ut{};
    if (check(d, Fn::kUtilizationRates, lib_.call<FnDevUtil>(Fn::kUtilizationRates, h, &ut))) {
      s.set(V::kGpuUtil, sane(V::kGpuUtil, ut.gpu / 100.0));
      s.set(V::kMemCopyUtil, sane(V::kMemCopyUtil, ut.memory / 100.0));
    }
  }
  if (on(Fn::kEncoderUtilization) &&
      check(d, Fn::kEncoderUtilization, lib_.call<FnDevCodecUtil>(Fn::kEncoderUtilization, h, &u, &period)))
    s.set(V::kEncUtil, sane(V::kEncUtil, u / 100.0));
  if (on(Fn::kDecoderUtilization) &&
      check(d, Fn::kDecoderUtilization, lib_.call<FnDevCodecUtil>(Fn::kDecoderUtilization, h, &u, &period)))
    s.set(V::kDecUtil, sane(V::kDecUtil, u / 100.0));

  // Memory: v2 keeps reserved memory out of "used"; v1 counts it as used.
  // A v2 call the driver rejects (version mismatch, unsupported) is switched
  // off by check(), and v1 answers from then on, starting with this cycle.
  bool mem_done = false;
  if (on(Fn::kMemoryInfoV2)) {
    MemoryV2 m{};
    m.version = kMemoryV2Version;
    if (check(d, Fn::kMemoryInfoV2, lib_.call<FnDevMemoryV2>(Fn::kMemoryInfoV2, h, &m))) {
      mem_done = true;
      if (m.total > 0) {  // 0 on unified-memory parts: nothing to report
        s.set(V::kFbTotalBytes, static_cast<double>(m.total));
        s.set(V::kFbFreeBytes, static_cast<double>(m.free));
        s.set(V::kFbUsedBytes, static_cast<double>(m.used));
        s.set(V::kFbReservedBytes, static_cast<double>(m.reserved));
      }
    }
  }
  if (!mem_done && !on(Fn::kMemoryInfoV2) && on(Fn::kMemoryInfo)) {
    Memory m{};
    if (check(d, Fn::kMemoryInfo, lib_.call<FnDevMemory>(Fn::kMemoryInfo, h, &m)) && m.total > 0) {
      s.set(V::kFbTotalBytes, static_cast<double>(m.total));
      s.set(V::kFbFreeBytes, static_cast<double>(m.free));
      s.set(V::kFbUsedBytes, static_cast<double>(m.used));
    }
  }
  if (on(Fn::kTemperature) &&
      check(d, Fn::kTemperature, lib_.call<FnDevEnumUint>(Fn::kTemperature, h, kTemperatureGpu, &u)))
    s.set(V::kGpuTempC, sane(V::kGpuTempC, u));
  if (on(Fn::kPowerUsage) && check(d, Fn::kPowerUsage, lib_.call<FnDevUint>(Fn::kPowerUsage, h, &u)))
    s.set(V::kPowerW, sane(V::kPowerW, u / 1000.0));
  if (on(Fn::kClockInfo) && check(d, Fn::kClockInfo, lib_.call<FnDevEnumUint>(Fn::kClockInfo, h, kClockSm, &u)))
    s.set(V::kSmClockHz, u * 1e6);
  if (on(Fn::kClockInfo) && check(d, Fn::kClockInfo, lib_.call<FnDevEnumUint>(Fn::kClockInfo, h, kClockMem, &u)))
    s.set(V::kMemClockHz, u * 1e6);
  // Graphics and video clocks: unsupported ones stop being asked, the call stays on for SM and memory.
  auto other_clock = [&](int type, bool& unsupported, V v) {
    if (unsupported || !on(Fn::kClockInfo)) return;
    Return r = lib_.call<FnDevEnumUint>(Fn::kClockInfo, h, type, &u);
    if (r == kSuccess)
      s.set(v, u * 1e6);
    else if (r == kErrNotSupported || r == kErrNoPermission || r == kErrFunctionNotFound)
      unsupported = true;
    else
      check(d, Fn::kClockInfo, r);  // lost GPU, or an error counted
  };
  other_clock(kClockGraphics, d.no_graphics_clock, V::kGraphicsClockHz);
  other_clock(kClockVideo, d.no_video_clock, V::kVideoClockHz);
  unsigned long long reasons = 0;
  if (on(Fn::kClockEventReasons) &&
      check(d, Fn::kClockEventReasons, lib_.call<FnDevU64>(Fn::kClockEventReasons, h, &reasons)))
    s.set(V::kClockEventReasons, static_cast<double>(reasons & 0xFFFFFFFFFFFFull));
  int ps = 0;
  if (on(Fn::kPerformanceState) && check(d, Fn::kPerformanceState, lib_.call<FnDevInt>(Fn::kPerformanceState, h, &ps)))
    s.set(V::kPstate, sane(V::kPstate, ps));
  if (on(Fn::kFanSpeed) && check(d, Fn::kFanSpeed, lib_.call<FnDevUint>(Fn::kFanSpeed, h, &u)))
    s.set(V::kFanSpeed, sane(V::kFanSpeed, u / 100.0));
  if (on(Fn::kPcieLinkGen) && check(d, Fn::kPcieLinkGen, lib_.call<FnDevUint>(Fn::kPcieLinkGen, h, &u)))
    s.set(V::kPcieLinkGen, sane(V::kPcieLinkGen, u));
  if (on(Fn::kPcieLinkWidth) && check(d, Fn::kPcieLinkWidth, lib_.call<FnDevUint>(Fn::kPcieLinkWidth, h, &u)))
    s.set(V::kPcieLinkWidth, sane(V::kPcieLinkWidth, u));
  s.set(V::kSmClockMaxHz, d.sm_max);
  s.set(V::kMemClockMaxHz, d.mem_max);
  s.set(V::kGraphicsClockMaxHz, d.graphics_max);
  s.set(V::kVideoClockMaxHz, d.video_max);
  s.set(V::kPcieLinkGenMax, d.gen_max);
  s.set(V::kPcieLinkWidthMax, d.width_max);

  if (slow) {
    d.limit_enforced = d.limit_mgmt = kNa;
    if (on(Fn::kEnforcedPowerLimit) &&
        check(d, Fn::kEnforcedPowerLimit, lib_.call<FnDevUint>(Fn::kEnforcedPowerLimit, h, &u)))
      d.limit_enforced = sane(V::kPowerLimitEnforcedW, u / 1000.0);
    if (on(Fn::kPowerManagementLimit) &&
        check(d, Fn::kPowerManagementLimit, lib_.call<FnDevUint>(Fn::kPowerManagementLimit, h, &u)))
      d.limit_mgmt = sane(V::kPowerLimitMgmtW, u / 1000.0);
  }
  s.set(V::kPowerLimitEnforcedW, d.limit_enforced);
  s.set(V::kPowerLimitMgmtW, d.limit_mgmt);
  s.set(V::kPowerLimitDefaultW, d.limit_default);
  s.set(V::kSlowdownTempC, d.temp_slowdown);
  s.set(V::kShutdownTempC, d.temp_shutdown);
  s.set(V::kGpuMaxOpTempC, d.temp_gpu_max);
  s.set(V::kMemMaxOpTempC, d.temp_mem_max);

  if (on(Fn::kFieldValues)) read_fields(d, s, now_ms);
  if (!lib_.has(Fn::kFieldValues) || d.off.test(static_cast<size_t>(Fn::kFieldValues)))
    read_fallback_counters(d, s, slow);
  if (s.has(V::kNvlinkTxBytes) && s.has(V::kNvlinkRxBytes))
    s.set(V::kNvlinkTotalBytes, s.get(V::kNvlinkTxBytes) + s.get(V::kNvlinkRxBytes));
  if (opt_.gpm && !d.lost) read_gpm(d, s);
  if (d.lost) return;
  read_mig(d, s, slow);
  if (opt_.processes) read_processes(d, s);
}

std::vector<NvmlSampler::Handle> NvmlSampler::handles() const {
  std::vector<Handle> out;
  for (const auto& d : devs_)
    if (d->present && !d->lost) out.push_back({d->h, d->id.uuid});
  return out;
}

}  // namespace llmon::gpu::nvml
