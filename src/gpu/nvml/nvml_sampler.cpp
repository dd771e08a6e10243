#include "gpu/nvml/nvml_sampler.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string_view>

namespace llmon::gpu::nvml {
namespace {

constexpr unsigned kCcStride = sizeof(ProcessInfoCc);  // the larger stride
constexpr unsigned char kFill = 0xAA;

// One entry of the batched field read: NVML field, scope, where it goes.
struct FieldSpec {
  unsigned id;
  unsigned scope;
  V value;
  double scale;   // to the sample's unit
  bool counter;   // unfold wraps
};
const FieldSpec kFields[] = {
    {kFiMemoryTemp, 0, V::kMemTempC, 1, false},
    {kFiTotalEnergyConsumption, 0, V::kEnergyJ, 1e-3, false},
    {kFiPcieReplayCounter, 0, V::kPcieReplay, 1, false},
    {kFiNvlinkLinkCount, 0, V::kNvlinkLinkCount, 1, false},
    {kFiEccSbeVolTotal, 0, V::kEccSbeVol, 1, false},
    {kFiEccDbeVolTotal, 0, V::kEccDbeVol, 1, false},
    {kFiEccSbeAggTotal, 0, V::kEccSbeAgg, 1, false},
    {kFiEccDbeAggTotal, 0, V::kEccDbeAgg, 1, false},
    {kFiRetiredSbe, 0, V::kRetiredSbe, 1, false},
    {kFiRetiredDbe, 0, V::kRetiredDbe, 1, false},
    {kFiRetiredPending, 0, V::kRetiredPending, 1, false},
    {kFiRemappedCor, 0, V::kRemapCorrectable, 1, false},
    {kFiRemappedUnc, 0, V::kRemapUncorrectable, 1, false},
    {kFiRemappedPending, 0, V::kRemapPending, 1, false},
    {kFiRemappedFailure, 0, V::kRemapFailure, 1, false},
    {kFiNvlinkCrcFlitErrorTotal, 0, V::kNvlinkCrcFlit, 1, false},
    {kFiNvlinkCrcDataErrorTotal, 0, V::kNvlinkCrcData, 1, false},
    {kFiNvlinkReplayErrorTotal, 0, V::kNvlinkReplay, 1, false},
    {kFiNvlinkRecoveryErrorTotal, 0, V::kNvlinkRecovery, 1, false},
    {kFiNvlinkThroughputDataTx, kAllLinks, V::kNvlinkTxBytes, 1024, false},
    {kFiNvlinkThroughputDataRx, kAllLinks, V::kNvlinkRxBytes, 1024, false},
    {kFiPcieCountTxBytes, 0, V::kPcieTxBytes, 1, true},
    {kFiPcieCountRxBytes, 0, V::kPcieRxBytes, 1, true},
    {kFiPerfPolicyPower, 0, V::kViolPowerS, 1e-9, false},
    {kFiPerfPolicyThermal, 0, V::kViolThermalS, 1e-9, false},
    {kFiPerfPolicySyncBoost, 0, V::kViolSyncBoostS, 1e-9, false},
    {kFiPerfPolicyBoardLimit, 0, V::kViolBoardLimitS, 1e-9, false},
    {kFiPerfPolicyLowUtilization, 0, V::kViolLowUtilS, 1e-9, false},
    {kFiPerfPolicyReliability, 0, V::kViolReliabilityS, 1e-9, false},
    {kFiClocksEventSwThermal, 0, V::kEventSwThermalS, 1e-9, false},
    {kFiClocksEventHwThermal, 0, V::kEventHwThermalS, 1e-9, false},
    {kFiClocksEventHwPowerBrake, 0, V::kEventHwPowerBrakeS, 1e-9, false},
};
constexpr size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);

// A field value as double, and the modulus its counter wraps at (0: none).
bool field_number(const FieldValue& f, double& out, double& modulus) {
  modulus = 0;
  switch (f.valueType) {
    case kValueDouble: out = f.value.dVal; return true;
    case kValueUnsignedInt: out = f.value.uiVal; modulus = 4294967296.0; return true;
    case kValueUnsignedLong: out = static_cast<double>(f.value.ulVal); modulus = 18446744073709551616.0; return true;
    case kValueUnsignedLongLong: out = static_cast<double>(f.value.ullVal); modulus = 18446744073709551616.0; return true;
    case kValueSignedLongLong: out = static_cast<double>(f.value.sllVal); return true;
    case kValueSignedInt: out = f.value.siVal; return true;
    case kValueUnsignedShort: out = f.value.usVal; modulus = 65536.0; return true;
    default: return false;
  }
}

// Drops values no working driver reports (garbage must not reach a dashboard).
double sane(V k, double x) {
  if (std::isnan(x) || std::isinf(x)) return kNa;
  switch (k) {
    case V::kGpuUtil:
    case V::kMemCopyUtil:
    case V::kEncUtil:
    case V::kDecUtil: return x >= 0 && x <= 1 ? x : kNa;
    case V::kGpuTempC:
    case V::kMemTempC: return x > -100 && x < 250 ? x : kNa;
    case V::kFanSpeed: return x >= 0 && x <= 2.55 ? x : kNa;
    case V::kPstate: return x >= 0 && x <= 15 ? x : kNa;
    case V::kPowerW:
    case V::kPowerLimitEnforcedW:
    case V::kPowerLimitMgmtW: return x >= 0 && x < 100000 ? x : kNa;
    case V::kPcieLinkGen:
    case V::kPcieLinkGenMax: return x >= 1 && x <= 16 ? x : kNa;
    case V::kPcieLinkWidth:
    case V::kPcieLinkWidthMax: return x >= 0 && x <= 64 ? x : kNa;
    default: return x >= 0 ? x : kNa;
  }
}

std::string c_string(const char* buf, size_t cap) { return std::string(buf, strnlen(buf, cap)); }

// "NVIDIA A100-SXM4-80GB MIG 3g.40gb" -> "3g.40gb".
std::string mig_profile_from_name(const std::string& name) {
  auto p = name.rfind("MIG ");
  if (p == std::string::npos) return name;
  return name.substr(p + 4);
}

}  // namespace

struct NvmlSampler::Dev {
  unsigned index = 0;
  Device h = nullptr;
  bool present = false;  // handle acquired at least once
  bool lost = false;
  DeviceIdentity id;
  std::bitset<kFnCount> off;            // calls not to make again
  std::bitset<kFieldCount> field_off;  // fields not to ask again
  // Static values read at enumeration.
  double sm_max = kNa, mem_max = kNa, gen_max = kNa, width_max = kNa;
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
    case kSuccess: return true;
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
    default: count_error(f, r); return false;
  }
}

void NvmlSampler::enumerate(unsigned count) {
  // Keep Dev objects of indexes that still exist, so their counters and
  // capabilities survive; identities are re-read.
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
      log_.info("GPU not accessible; skipped",
                {{"index", std::to_string(d.index)}, {"error", lib_.error_string(r)}});
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
    if (lib_.call<FnDevString>(Fn::kName, h, name, kNameBufferSize) == kSuccess) id.model_name = c_string(name, sizeof name);
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
  unsigned long long reasons = 0;
  if (on(Fn::kClockEventReasons) &&
      check(d, Fn::kClockEventReasons, lib_.call<FnDevU64>(Fn::kClockEventReasons, h, &reasons)))
    s.set(V::kClockEventReasons, static_cast<double>(reasons & 0xFFFFFFFFFFFFull));
  int ps = 0;
  if (on(Fn::kPerformanceState) &&
      check(d, Fn::kPerformanceState, lib_.call<FnDevInt>(Fn::kPerformanceState, h, &ps)))
    s.set(V::kPstate, sane(V::kPstate, ps));
  if (on(Fn::kFanSpeed) && check(d, Fn::kFanSpeed, lib_.call<FnDevUint>(Fn::kFanSpeed, h, &u)))
    s.set(V::kFanSpeed, sane(V::kFanSpeed, u / 100.0));
  if (on(Fn::kPcieLinkGen) && check(d, Fn::kPcieLinkGen, lib_.call<FnDevUint>(Fn::kPcieLinkGen, h, &u)))
    s.set(V::kPcieLinkGen, sane(V::kPcieLinkGen, u));
  if (on(Fn::kPcieLinkWidth) && check(d, Fn::kPcieLinkWidth, lib_.call<FnDevUint>(Fn::kPcieLinkWidth, h, &u)))
    s.set(V::kPcieLinkWidth, sane(V::kPcieLinkWidth, u));
  s.set(V::kSmClockMaxHz, d.sm_max);
  s.set(V::kMemClockMaxHz, d.mem_max);
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

  if (on(Fn::kFieldValues))
    read_fields(d, s, now_ms);
  if (!lib_.has(Fn::kFieldValues) || d.off.test(static_cast<size_t>(Fn::kFieldValues)))
    read_fallback_counters(d, s, slow);
  if (s.has(V::kNvlinkTxBytes) && s.has(V::kNvlinkRxBytes))
    s.set(V::kNvlinkTotalBytes, s.get(V::kNvlinkTxBytes) + s.get(V::kNvlinkRxBytes));
  if (opt_.gpm && !d.lost) read_gpm(d, s);
  if (d.lost) return;
  read_mig(d, s, slow);
  if (opt_.processes) read_processes(d, s);
}

void NvmlSampler::read_fields(Dev& d, DeviceSample& s, int64_t now_ms) {
  FieldValue vals[kFieldCount];
  size_t map[kFieldCount];
  int n = 0;
  for (size_t i = 0; i < kFieldCount; ++i) {
    if (d.field_off.test(i)) continue;
    std::memset(&vals[n], 0, sizeof(FieldValue));
    vals[n].fieldId = kFields[i].id;
    vals[n].scopeId = kFields[i].scope;
    map[n] = i;
    ++n;
  }
  if (n == 0) return;
  if (!check(d, Fn::kFieldValues, lib_.call<FnDevFields>(Fn::kFieldValues, d.h, n, vals))) return;
  for (int j = 0; j < n; ++j) {
    const FieldSpec& spec = kFields[map[j]];
    const FieldValue& f = vals[j];
    if (f.nvmlReturn == kErrGpuIsLost) {
      check(d, Fn::kFieldValues, kErrGpuIsLost);
      return;
    }
    if (f.nvmlReturn == kErrNotSupported || f.nvmlReturn == kErrNoPermission || f.nvmlReturn == kErrInvalidArgument) {
      d.field_off.set(map[j]);
      continue;
    }
    double x = 0, modulus = 0;
    if (f.nvmlReturn != kSuccess || !field_number(f, x, modulus)) continue;
    if (spec.counter) {
      auto& c = d.pcie[spec.value == V::kPcieTxBytes ? 0 : 1];
      if (!c.seen) {
        c.seen = true;
        c.total = x;
      } else {
        double delta = x - c.raw;
        if (delta < 0) delta += modulus > 0 ? modulus : 0;  // wrapped (or reset: count from 0)
        if (delta < 0) delta = 0;
        c.total += delta;
      }
      c.raw = x;
      s.set(spec.value, c.total);
      continue;
    }
    s.set(spec.value, sane(spec.value, x * spec.scale));
  }
  // Rates from the unfolded PCIe counters.
  for (int k = 0; k < 2; ++k) {
    V total = k == 0 ? V::kPcieTxBytes : V::kPcieRxBytes;
    V rate = k == 0 ? V::kPcieTxBytesPerSec : V::kPcieRxBytesPerSec;
    if (!s.has(total)) continue;
    if (!std::isnan(d.pcie_rate_base[k]) && now_ms > d.pcie_rate_ms)
      s.set(rate, (s.get(total) - d.pcie_rate_base[k]) * 1000.0 / static_cast<double>(now_ms - d.pcie_rate_ms));
    d.pcie_rate_base[k] = s.get(total);
  }
  if (s.has(V::kPcieTxBytes) || s.has(V::kPcieRxBytes)) d.pcie_rate_ms = now_ms;
}

void NvmlSampler::read_fallback_counters(Dev& d, DeviceSample& s, bool slow) {
  auto on = [&](Fn f) { return !d.off.test(static_cast<size_t>(f)) && lib_.has(f) && !d.lost; };
  unsigned long long e = 0;
  if (on(Fn::kTotalEnergy) && check(d, Fn::kTotalEnergy, lib_.call<FnDevU64>(Fn::kTotalEnergy, d.h, &e)))
    s.set(V::kEnergyJ, static_cast<double>(e) / 1000.0);
  unsigned u = 0;
  if (on(Fn::kPcieReplayCounter) &&
      check(d, Fn::kPcieReplayCounter, lib_.call<FnDevUint>(Fn::kPcieReplayCounter, d.h, &u)))
    s.set(V::kPcieReplay, u);
  unsigned long long c = 0;
  if (on(Fn::kTotalEccErrors)) {
    if (check(d, Fn::kTotalEccErrors,
              lib_.call<FnDevEcc>(Fn::kTotalEccErrors, d.h, kMemoryErrorCorrected, kEccVolatile, &c)))
      s.set(V::kEccSbeVol, static_cast<double>(c));
    if (on(Fn::kTotalEccErrors) &&
        check(d, Fn::kTotalEccErrors,
              lib_.call<FnDevEcc>(Fn::kTotalEccErrors, d.h, kMemoryErrorUncorrected, kEccVolatile, &c)))
      s.set(V::kEccDbeVol, static_cast<double>(c));
    if (slow && on(Fn::kTotalEccErrors)) {
      d.ecc_agg[0] = check(d, Fn::kTotalEccErrors, lib_.call<FnDevEcc>(Fn::kTotalEccErrors, d.h, kMemoryErrorCorrected,
                                                                        kEccAggregate, &c))
                         ? static_cast<double>(c)
                         : kNa;
      d.ecc_agg[1] = on(Fn::kTotalEccErrors) && check(d, Fn::kTotalEccErrors,
                                                      lib_.call<FnDevEcc>(Fn::kTotalEccErrors, d.h,
                                                                          kMemoryErrorUncorrected, kEccAggregate, &c))
                         ? static_cast<double>(c)
                         : kNa;
    }
    s.set(V::kEccSbeAgg, d.ecc_agg[0]);
    s.set(V::kEccDbeAgg, d.ecc_agg[1]);
  }
  unsigned cor = 0, unc = 0, pend = 0, fail = 0;
  if (on(Fn::kRemappedRows) &&
      check(d, Fn::kRemappedRows, lib_.call<FnDevRemapped>(Fn::kRemappedRows, d.h, &cor, &unc, &pend, &fail))) {
    s.set(V::kRemapCorrectable, cor);
    s.set(V::kRemapUncorrectable, unc);
    s.set(V::kRemapPending, pend ? 1 : 0);
    s.set(V::kRemapFailure, fail ? 1 : 0);
  }
}

void NvmlSampler::read_process_list(Dev& d, Fn f, char type, std::vector<ProcessSample>& out) {
  if (d.off.test(static_cast<size_t>(f)) || !lib_.has(f) || d.lost) return;
  ProcessAbi abi = lib_.process_abi(f);
  bool v3 = lib_.symbol(f).ends_with("_v3");
  unsigned cap = std::max<unsigned>(64, static_cast<unsigned>(proc_buf_.size() / kCcStride));
  for (int attempt = 0; attempt < 3; ++attempt) {
    proc_buf_.assign(static_cast<size_t>(cap) * kCcStride, kFill);
    unsigned n = cap;
    Return r = lib_.call<FnDevProcesses>(f, d.h, &n, static_cast<void*>(proc_buf_.data()));
    if (r == kErrInsufficientSize && n > cap) {
      cap = n + 16;
      continue;
    }
    if (!check(d, f, r)) return;
    n = std::min(n, cap);
    unsigned stride = abi == ProcessAbi::kV1 ? sizeof(ProcessInfoV1) : sizeof(ProcessInfoV2);
    if (v3 && n > 0) {
      // Bytes [24n, 32n) stay 0xAA unless the driver wrote 32-byte entries.
      const unsigned char* tail = proc_buf_.data() + static_cast<size_t>(n) * sizeof(ProcessInfoV2);
      size_t len = static_cast<size_t>(n) * (kCcStride - sizeof(ProcessInfoV2));
      bool untouched = std::all_of(tail, tail + len, [](unsigned char c) { return c == kFill; });
      stride = untouched ? static_cast<unsigned>(sizeof(ProcessInfoV2)) : kCcStride;
      if (stride != d.stride) {
        if (d.stride != 0 || stride == kCcStride)
          log_.info("NVML process entry stride detected",
                    {{"gpu", d.id.gpu}, {"bytes", std::to_string(stride)}, {"function", lib_.symbol(f)}});
        d.stride = stride;
      }
    }
    for (unsigned i = 0; i < n; ++i) {
      const unsigned char* e = proc_buf_.data() + static_cast<size_t>(i) * stride;
      ProcessSample p;
      p.type = type;
      unsigned long long mem = 0;
      std::memcpy(&p.pid, e + offsetof(ProcessInfoV2, pid), sizeof(unsigned));
      std::memcpy(&mem, e + offsetof(ProcessInfoV2, usedGpuMemory), sizeof mem);
      if (abi == ProcessAbi::kV2) {
        std::memcpy(&p.gpu_instance, e + offsetof(ProcessInfoV2, gpuInstanceId), sizeof(unsigned));
        std::memcpy(&p.compute_instance, e + offsetof(ProcessInfoV2, computeInstanceId), sizeof(unsigned));
      }
      p.used_memory_bytes = mem == kValueNotAvailable ? kNa : static_cast<double>(mem);
      auto same = std::find_if(out.begin(), out.end(), [&](const ProcessSample& q) { return q.pid == p.pid; });
      if (same != out.end()) {
        if (same->type != type) same->type = 'B';
        continue;
      }
      out.push_back(p);
    }
    return;
  }
}

void NvmlSampler::read_process_utilization(Dev& d, std::vector<ProcessSample>& procs) {
  Fn f = Fn::kProcessUtilization;
  if (d.off.test(static_cast<size_t>(f)) || !lib_.has(f) || d.lost) return;
  unsigned cap = std::max<unsigned>(64, static_cast<unsigned>(util_buf_.size()));
  unsigned n = 0;
  Return r = kSuccess;
  for (int attempt = 0; attempt < 3; ++attempt) {
    util_buf_.resize(cap);
    n = cap;
    r = lib_.call<FnDevProcessUtil>(f, d.h, util_buf_.data(), &n, d.last_util_ts);
    if (r == kErrInsufficientSize && n > cap) {
      cap = n + 16;
      continue;
    }
    break;
  }
  if (r == kErrNotFound) n = 0;  // no process was busy since the last sample
  else if (!check(d, f, r)) return;
  n = std::min(n, cap);
  // Processes without a sample had no utilisation in the window: 0.
  for (auto& p : procs) p.sm_util = p.mem_util = p.enc_util = p.dec_util = 0;
  struct Acc {
    double sm = 0, mem = 0, enc = 0, dec = 0;
    int n = 0;
  };
  std::map<unsigned, Acc> acc;
  for (unsigned i = 0; i < n; ++i) {
    const auto& u = util_buf_[i];
    if (u.timeStamp <= d.last_util_ts && d.last_util_ts != 0) continue;
    if (u.smUtil > 100 || u.memUtil > 100 || u.encUtil > 100 || u.decUtil > 100) continue;  // driver garbage
    auto& a = acc[u.pid];
    a.sm += u.smUtil;
    a.mem += u.memUtil;
    a.enc += u.encUtil;
    a.dec += u.decUtil;
    ++a.n;
  }
  unsigned long long newest = d.last_util_ts;
  for (unsigned i = 0; i < n; ++i) newest = std::max(newest, util_buf_[i].timeStamp);
  d.last_util_ts = newest;
  for (auto& p : procs) {
    auto it = acc.find(p.pid);
    if (it == acc.end()) continue;
    double k = 100.0 * it->second.n;
    p.sm_util = it->second.sm / k;
    p.mem_util = it->second.mem / k;
    p.enc_util = it->second.enc / k;
    p.dec_util = it->second.dec / k;
  }
}

void NvmlSampler::read_processes(Dev& d, DeviceSample& s) {
  read_process_list(d, Fn::kComputeProcesses, 'C', s.processes);
  read_process_list(d, Fn::kGraphicsProcesses, 'G', s.processes);
  if (!s.processes.empty()) read_process_utilization(d, s.processes);
}

void NvmlSampler::read_mig(Dev& d, DeviceSample& s, bool slow) {
  auto on = [&](Fn f) { return !d.off.test(static_cast<size_t>(f)) && lib_.has(f) && !d.lost; };
  if (slow) {
    unsigned cur = 0, pending = 0;
    unsigned mode = 0;
    if (on(Fn::kMigMode) && check(d, Fn::kMigMode, lib_.call<FnDevUintUint>(Fn::kMigMode, d.h, &cur, &pending)))
      mode = cur == kMigEnable ? 1 : 0;
    d.mig_mode = mode;
    d.migs.clear();
    unsigned max = 0;
    if (mode == 1 && on(Fn::kMaxMigDeviceCount) &&
        check(d, Fn::kMaxMigDeviceCount, lib_.call<FnDevUint>(Fn::kMaxMigDeviceCount, d.h, &max))) {
      for (unsigned i = 0; i < max && i < 64; ++i) {
        Device m = nullptr;
        Return r = lib_.call<FnDevIndexHandle>(Fn::kMigDeviceByIndex, d.h, i, &m);
        if (r != kSuccess) continue;  // NOT_FOUND: empty slot
        Dev::Mig mig;
        mig.h = m;
        unsigned gi = 0, ci = 0;
        lib_.call<FnDevUint>(Fn::kGpuInstanceId, m, &gi);
        lib_.call<FnDevUint>(Fn::kComputeInstanceId, m, &ci);
        char buf[kUuidBufferSize] = {};
        if (lib_.call<FnDevString>(Fn::kUuid, m, buf, kUuidBufferSize) == kSuccess)
          mig.s.mig_uuid = c_string(buf, sizeof buf);
        char name[kNameBufferSize] = {};
        std::string profile;
        if (lib_.call<FnDevString>(Fn::kName, m, name, kNameBufferSize) == kSuccess)
          profile = mig_profile_from_name(c_string(name, sizeof name));
        mig.s.id = d.id;
        mig.s.id.mig_profile = profile.empty() ? "unknown" : profile;
        mig.s.id.mig_instance_id = std::to_string(gi);
        mig.s.gpu_instance = gi;
        mig.s.compute_instance = ci;
        d.migs.push_back(std::move(mig));
      }
    }
  }
  s.set(V::kMigMode, on(Fn::kMigMode) || d.mig_mode ? d.mig_mode : kNa);
  for (auto& m : d.migs) {
    MigInstanceSample is = m.s;
    is.id.gpu = d.id.gpu;
    if (!d.off.test(static_cast<size_t>(Fn::kMemoryInfoV2)) && lib_.has(Fn::kMemoryInfoV2)) {
      MemoryV2 mem{};
      mem.version = kMemoryV2Version;
      if (lib_.call<FnDevMemoryV2>(Fn::kMemoryInfoV2, m.h, &mem) == kSuccess) {
        is.fb_total = static_cast<double>(mem.total);
        is.fb_free = static_cast<double>(mem.free);
        is.fb_used = static_cast<double>(mem.used);
        is.fb_reserved = static_cast<double>(mem.reserved);
      }
    } else if (lib_.has(Fn::kMemoryInfo)) {
      Memory mem{};
      if (lib_.call<FnDevMemory>(Fn::kMemoryInfo, m.h, &mem) == kSuccess) {
        is.fb_total = static_cast<double>(mem.total);
        is.fb_free = static_cast<double>(mem.free);
        is.fb_used = static_cast<double>(mem.used);
      }
    }
    s.mig.push_back(std::move(is));
  }
}

void NvmlSampler::read_gpm(Dev& d, DeviceSample& s) {
  if (!d.gpm_checked) {
    d.gpm_checked = true;
    GpmSupport sup{kGpmSupportVersion, 0};
    if (!lib_.has(Fn::kGpmQueryDeviceSupport) || !lib_.has(Fn::kGpmSampleGet) || !lib_.has(Fn::kGpmMetricsGet) ||
        !check(d, Fn::kGpmQueryDeviceSupport, lib_.call<FnGpmQuerySupport>(Fn::kGpmQueryDeviceSupport, d.h, &sup)) ||
        !sup.isSupportedDevice)
      return;
    for (GpmSample& g : d.gpm)
      if (!g && lib_.call<FnGpmSampleAlloc>(Fn::kGpmSampleAlloc, &g) != kSuccess) g = nullptr;
    d.gpm_ok = d.gpm[0] && d.gpm[1];
  }
  if (!d.gpm_ok || d.off.test(static_cast<size_t>(Fn::kGpmSampleGet))) return;
  GpmSample cur = d.gpm[d.gpm_cur];
  if (!check(d, Fn::kGpmSampleGet, lib_.call<FnGpmSampleGet>(Fn::kGpmSampleGet, d.h, cur))) {
    d.gpm_have_prev = false;
    return;
  }
  bool have_prev = d.gpm_have_prev;
  d.gpm_have_prev = true;
  d.gpm_cur ^= 1;
  if (!have_prev || d.off.test(static_cast<size_t>(Fn::kGpmMetricsGet))) return;
  struct Want {
    unsigned id;
    V value;
    double scale;  // to the sample's unit: percent -> ratio, MiB/s -> B/s
  };
  static constexpr Want kWant[] = {
      {kGpmGraphicsUtil, V::kGpmGraphicsActive, 0.01},
      {kGpmSmUtil, V::kGpmSmActive, 0.01},
      {kGpmSmOccupancy, V::kGpmSmOccupancy, 0.01},
      {kGpmAnyTensorUtil, V::kGpmTensorActive, 0.01},
      {kGpmDramBwUtil, V::kGpmDramActive, 0.01},
      {kGpmFp64Util, V::kGpmFp64Active, 0.01},
      {kGpmFp32Util, V::kGpmFp32Active, 0.01},
      {kGpmFp16Util, V::kGpmFp16Active, 0.01},
      {kGpmPcieTxPerSec, V::kPcieTxBytesPerSec, 1048576.0},
      {kGpmPcieRxPerSec, V::kPcieRxBytesPerSec, 1048576.0},
      {kGpmNvlinkTotalTxPerSec, V::kGpmNvlinkTxBytesPerSec, 1048576.0},
      {kGpmNvlinkTotalRxPerSec, V::kGpmNvlinkRxBytesPerSec, 1048576.0},
  };
  constexpr unsigned n = sizeof(kWant) / sizeof(kWant[0]);
  if (!gpm_buf_) gpm_buf_ = std::make_unique<GpmMetricsGet>();
  GpmMetricsGet& mg = *gpm_buf_;
  std::memset(&mg, 0, offsetof(GpmMetricsGet, metrics) + n * sizeof(GpmMetric));
  mg.version = kGpmMetricsGetVersion;
  mg.numMetrics = n;
  mg.sample1 = d.gpm[d.gpm_cur];  // the older one (cur was flipped above)
  mg.sample2 = cur;
  for (unsigned i = 0; i < n; ++i) mg.metrics[i].metricId = kWant[i].id;
  if (!check(d, Fn::kGpmMetricsGet, lib_.call<FnGpmMetricsGet>(Fn::kGpmMetricsGet, &mg))) return;
  for (unsigned i = 0; i < n; ++i) {
    const GpmMetric& m = mg.metrics[i];
    if (m.nvmlReturn != kSuccess || std::isnan(m.value) || m.value < 0) continue;
    bool percent = kWant[i].scale == 0.01;
    double x = percent ? m.value / 100.0 : m.value * kWant[i].scale;  // /100 keeps 47.5 % -> 0.475 exact
    if (percent && x > 1.0) continue;  // more than 100 %: driver garbage
    s.set(kWant[i].value, x);
  }
}

std::vector<NvmlSampler::Handle> NvmlSampler::handles() const {
  std::vector<Handle> out;
  for (const auto& d : devs_)
    if (d->present && !d->lost) out.push_back({d->h, d->id.uuid});
  return out;
}

}  // namespace llmon::gpu::nvml
