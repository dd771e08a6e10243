// GpuHealthFeed: what one NVML collection cycle tells the GPU health tracker
// (health/gpu_health.h). Per present GPU: the Xid events new since the last
// cycle (EventWatcher counts are cumulative; the difference is observed one
// by one, source nvml), the recovery action (NVML field 230), uncorrectable
// volatile ECC, the row-remap flags, the PCIe link (busy = utilisation at or
// above 30 %: idle GPUs train their link generation down), the AER counters
// of sysfs (<sys_root>/bus/pci/devices/<bdf>/aer_dev_*) and whether NVML
// answers (GPU_IS_LOST). A cycle that timed out marks every GPU of the last
// answered cycle hung. The tracker is shared with the log watcher (kernel
// lines) and the health API; this feed only observes. Not thread-safe: one
// collector owns it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu/nvml/sample.h"
#include "health/gpu_health.h"

namespace llmon::collector {

class GpuHealthFeed {
 public:
  GpuHealthFeed(std::shared_ptr<health::HealthTracker> tracker, std::string sys_root);

  // A cycle that answered (Sample::up).
  void observe(const gpu::nvml::Sample& s, int64_t now_ms);
  // A cycle that did not answer in time, or NVML still stuck in an earlier one.
  void observe_hung(int64_t now_ms);

  health::HealthTracker& tracker() { return *tracker_; }

 private:
  std::shared_ptr<health::HealthTracker> tracker_;
  std::string sys_root_;
  std::vector<health::GpuRef> last_gpus_;
  std::map<std::string, std::map<uint64_t, uint64_t>> seen_xids_;  // UUID -> Xid -> NVML events observed
};

health::GpuRef gpu_ref(const gpu::DeviceIdentity& id);

}  // namespace llmon::collector
