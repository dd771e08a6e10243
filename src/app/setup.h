// Wiring shared by the subcommands: settings -> Fs, enabled collectors.
#pragma once

#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "collector/scheduler.h"
#include "config/settings.h"

namespace llmon::app {

procfs::Fs fs_from(const config::Settings& s);
// Instantiates the collectors enabled by --collector.<name> /
// --collector.disable-defaults, in registry order.
std::vector<collector::NamedCollector> enabled_collectors(const config::Settings& s, const base::Clock& clock,
                                                          base::Logger& log);

}  // namespace llmon::app
