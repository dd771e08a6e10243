// Wiring shared by the subcommands: settings -> Fs, enabled collectors.
#pragma once

#include <memory>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "collector/scheduler.h"
#include "config/settings.h"

namespace llmon::app {

procfs::Fs fs_from(const config::Settings& s);
// The context every collector of one scheduler is built with (paths, clock,
// options, and the sources they share within a cycle).
// `health`: the agent's GPU health tracker (null: none).
collector::CollectorContext collector_context(const config::Settings& s, const base::Clock& clock, base::Logger& log,
                                              std::shared_ptr<health::HealthTracker> health = nullptr);
// Instantiates the collectors enabled by --collector.<name> /
// --collector.disable-defaults, in registry order.
std::vector<collector::NamedCollector> enabled_collectors(const config::Settings& s, const base::Clock& clock,
                                                          base::Logger& log,
                                                          std::shared_ptr<health::HealthTracker> health = nullptr);

}  // namespace llmon::app
