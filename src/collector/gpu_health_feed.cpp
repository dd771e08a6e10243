#include "collector/gpu_health_feed.h"

#include <cmath>
#include <utility>

#include "health/aer.h"

namespace llmon::collector {

namespace {

using gpu::nvml::V;

constexpr double kBusyUtil = 0.3;

unsigned as_unsigned(const gpu::nvml::DeviceSample& d, V v) {
  double x = d.get(v);
  return std::isnan(x) || x < 0 ? 0 : static_cast<unsigned>(x);
}

}  // namespace

health::GpuRef gpu_ref(const gpu::DeviceIdentity& id) {
  return {id.gpu, id.uuid, id.pci_bus_id};
}

GpuHealthFeed::GpuHealthFeed(std::shared_ptr<health::HealthTracker> tracker, std::string sys_root)
    : tracker_(std::move(tracker)), sys_root_(std::move(sys_root)) {}

void GpuHealthFeed::observe(const gpu::nvml::Sample& s, int64_t now_ms) {
  std::vector<health::GpuRef> gpus;
  gpus.reserve(s.devices.size());
  for (const auto& d : s.devices) gpus.push_back(gpu_ref(d.id));
  tracker_->set_gpus(gpus);
  const std::string& boot = tracker_->boot_id();
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const auto& d = s.devices[i];
    const health::GpuRef& g = gpus[i];
    tracker_->observe_nvml_status(g, d.lost ? health::NvmlStatus::kLost : health::NvmlStatus::kOk, now_ms);
    // Xid events: the watcher's counts only grow while llmon runs.
    auto& seen = seen_xids_[d.id.uuid];
    for (const auto& [xid, n] : d.events.xid) {
      uint64_t& had = seen[xid];
      for (; had < n; ++had)
        tracker_->observe_xid(g, static_cast<uint32_t>(xid), now_ms, health::XidSource::kNvml, boot,
                              "NVML event: Xid " + std::to_string(xid) + " (nvmlEventTypeXidCriticalError)");
    }
    if (d.lost) continue;
    if (d.has(V::kRecoveryAction))
      tracker_->observe_recovery_action(g, static_cast<uint32_t>(d.get(V::kRecoveryAction)), now_ms);
    if (d.has(V::kEccDbeVol))
      tracker_->observe_ecc_uncorrectable(g, static_cast<uint64_t>(d.get(V::kEccDbeVol)), now_ms);
    if (d.has(V::kRemapPending) || d.has(V::kRemapFailure))
      tracker_->observe_row_remap(g, d.has(V::kRemapPending) && d.get(V::kRemapPending) > 0,
                                  d.has(V::kRemapFailure) && d.get(V::kRemapFailure) > 0, now_ms);
    if (d.has(V::kPcieLinkGen) && d.has(V::kPcieLinkWidth)) {
      health::PcieLink l;
      l.cur_gen = as_unsigned(d, V::kPcieLinkGen);
      l.max_gen = as_unsigned(d, V::kPcieLinkGenMax);
      l.cur_width = as_unsigned(d, V::kPcieLinkWidth);
      l.max_width = as_unsigned(d, V::kPcieLinkWidthMax);
      l.busy = d.has(V::kGpuUtil) && d.get(V::kGpuUtil) >= kBusyUtil;
      tracker_->observe_pcie_link(g, l, now_ms);
    }
    if (!sys_root_.empty()) {
      if (auto aer = health::read_aer_counts(sys_root_, d.id.pci_bus_id)) tracker_->observe_aer(g, *aer, now_ms);
    }
  }
  last_gpus_ = std::move(gpus);
}

void GpuHealthFeed::observe_hung(int64_t now_ms) {
  for (const health::GpuRef& g : last_gpus_) tracker_->observe_nvml_status(g, health::NvmlStatus::kHung, now_ms);
}

}  // namespace llmon::collector
