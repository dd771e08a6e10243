// The verdict for one GPU from what the tracker holds: pure, given the time
// and the current boot id. Rules (docs/gpu-health.md):
//  * an Xid occurrence counts in the boot it happened in; restart_app and
//    none-class Xids only for `transient_window_ms`; reset/reboot/hardware
//    classes until the next boot; an operator override (set_healthy_ms)
//    hides everything seen before it;
//  * GPUd-style escalation: a reboot-class Xid (reset_gpu, reboot) seen in
//    more than `reboots_to_escalate` boots -> inspect_hardware, until the
//    operator clears it;
//  * NVSentinel-style correlation: a restart_app-class Xid seen on at least
//    `correlation_min_gpus` GPUs within `correlation_window_ms` points at the
//    workload (restart_app, degraded, never hardware); one that repeats
//    `repeat_threshold` times on one GPU (occurrences not so correlated,
//    within `repeat_window_ms`) and is marked repeat_means_hardware ->
//    inspect_hardware;
//  * Xid 63/64 defer to NVML's row-remap flags once NVML answered them;
//  * live conditions count while active, unless an override came after
//    they started.
// State is the worst of the evidence, the action the strongest.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "health/health_record.h"

namespace llmon::health {

struct EvalOptions {
  int reboots_to_escalate = 2;
  int64_t transient_window_ms = 3'600'000;
  size_t correlation_min_gpus = 2;
  int64_t correlation_window_ms = 60'000;
  int repeat_threshold = 3;
  int64_t repeat_window_ms = 86'400'000;
};

// `all` holds every GPU's record (rec among them) for correlation.
GpuHealth evaluate(const GpuRecord& rec, std::span<const GpuRecord* const> all, const EvalOptions& opts, int64_t now_ms,
                   std::string_view boot_id);

// The state an action implies for Xid evidence: none and restart_app ->
// degraded, anything stronger -> unhealthy.
HealthState state_for_action(Action a);

}  // namespace llmon::health
