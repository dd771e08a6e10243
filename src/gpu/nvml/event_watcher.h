// EventWatcher: a thread waiting on an NVML event set for Xid critical
// errors and the other fatal events (double-bit ECC, GPU unavailable,
// recovery action; single-bit ECC too), counting them per GPU UUID. This is
// what makes llmon_gpu_xid_errors_total{xid} a true counter, unlike
// dcgm-exporter's "last Xid" gauge that never resets.
//
// The thread owns the event set: watch() only hands it the current GPU
// handles, and the thread (re)creates the set and registers them between two
// waits, because registering on a set another thread waits on is not safe.
// It waits with nvmlEventSetWait_v2(timeout = wait_ms), so stopping takes at
// most wait_ms; a driver that never returns is abandoned (the thread is
// detached and keeps the library mapped) rather than hanging shutdown.
// counts() may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/log.h"
#include "gpu/nvml/nvml_library.h"
#include "gpu/nvml/nvml_sampler.h"
#include "gpu/nvml/sample.h"

namespace llmon::gpu::nvml {

class EventWatcher {
 public:
  EventWatcher(std::shared_ptr<NvmlLibrary> lib, base::Logger& log, unsigned wait_ms = 500);
  ~EventWatcher();
  EventWatcher(const EventWatcher&) = delete;
  EventWatcher& operator=(const EventWatcher&) = delete;

  // The GPUs to watch from now on (replaces the previous list).
  void watch(std::vector<NvmlSampler::Handle> handles);
  // Events seen so far for the GPU with this UUID; false when the watcher is
  // not running (no event API, or the set could not be created): then there
  // is nothing to report, not zero.
  bool counts(const std::string& uuid, EventCounts& out) const;

  struct State;

 private:
  std::shared_ptr<State> s_;
};

}  // namespace llmon::gpu::nvml
