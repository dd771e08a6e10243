// The agent's GPU health tracker from the flags: state in --health.state-dir
// (default <--storage.path>/health; nothing persisted when both are empty),
// this boot's id (the same file the log watcher reads), --health.merge-window.
// A state file that cannot be read is logged and the tracker starts empty.
#pragma once

#include <memory>

#include "base/clock.h"
#include "base/log.h"
#include "config/settings.h"
#include "health/gpu_health.h"
#include "logwatch/event.h"

namespace llmon::app {

std::string health_state_dir(const config::Settings& s);
// This boot's id (empty when unreadable).
std::string boot_id(const config::Settings& s);
std::shared_ptr<health::HealthTracker> make_health_tracker(const config::Settings& s, const base::Clock& clock,
                                                           base::Logger& log);
// The log watcher's enricher: an event with a `pci` label (the kernel pack's
// Xid and AER rules) of a GPU present now gets that GPU's `gpu` and `UUID`
// (dcgm-exporter's label names), so events and alerts name the GPU.
void add_gpu_labels(const health::HealthTracker& t, logwatch::Event& e);

}  // namespace llmon::app
