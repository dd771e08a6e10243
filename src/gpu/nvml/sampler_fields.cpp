// The batched nvmlDeviceGetFieldValues read (one call for up to kMaxFields
// values) and, for drivers without it, the individual calls it replaces.
#include <cmath>
#include <cstring>
#include <optional>

#include "gpu/nvml/sampler_state.h"

namespace llmon::gpu::nvml {
namespace {

// One entry of the batched field read: NVML field, scope, where it goes.
struct FieldSpec {
  unsigned id;
  unsigned scope;
  V value;
  double scale;  // to the sample's unit
  bool counter;  // unfold wraps
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
    {kFiGpuRecoveryAction, 0, V::kRecoveryAction, 1, false},
};
constexpr size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);

static_assert(kFieldCount <= kMaxFields);

// A field value as double, and the modulus its counter wraps at (0: none).
struct FieldNumber {
  double value = 0;
  double modulus = 0;
};

std::optional<FieldNumber> field_number(const FieldValue& f) {
  constexpr double k2To16 = 65536.0, k2To32 = 4294967296.0, k2To64 = 18446744073709551616.0;
  switch (f.valueType) {
    case kValueDouble:
      return FieldNumber{f.value.dVal, 0};
    case kValueUnsignedInt:
      return FieldNumber{static_cast<double>(f.value.uiVal), k2To32};
    case kValueUnsignedLong:
      return FieldNumber{static_cast<double>(f.value.ulVal), k2To64};
    case kValueUnsignedLongLong:
      return FieldNumber{static_cast<double>(f.value.ullVal), k2To64};
    case kValueSignedLongLong:
      return FieldNumber{static_cast<double>(f.value.sllVal), 0};
    case kValueSignedInt:
      return FieldNumber{static_cast<double>(f.value.siVal), 0};
    case kValueUnsignedShort:
      return FieldNumber{static_cast<double>(f.value.usVal), k2To16};
    default:
      return std::nullopt;
  }
}

}  // namespace

using detail::sane;

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
    if (f.nvmlReturn != kSuccess) continue;
    const auto number = field_number(f);
    if (!number) continue;
    const double x = number->value, modulus = number->modulus;
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
      d.ecc_agg[0] = check(d, Fn::kTotalEccErrors,
                           lib_.call<FnDevEcc>(Fn::kTotalEccErrors, d.h, kMemoryErrorCorrected, kEccAggregate, &c))
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

}  // namespace llmon::gpu::nvml
