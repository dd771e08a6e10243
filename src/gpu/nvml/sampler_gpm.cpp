// GPM (Hopper and newer): two samples per GPU used alternately; each cycle's
// metrics cover the interval between the last two.
#include <cmath>
#include <cstring>
#include <memory>

#include "gpu/nvml/sampler_state.h"

namespace llmon::gpu::nvml {

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
    if (percent && x > 1.0) continue;                                 // more than 100 %: driver garbage
    s.set(kWant[i].value, x);
  }
}

}  // namespace llmon::gpu::nvml
