// Factory functions of the built-in collectors, one per collector file.
// builtin.cpp lists them with their names and defaults.
#pragma once

#include <memory>

#include "collector/collector.h"

namespace llmon::collector {

std::unique_ptr<Collector> make_loadavg(const CollectorContext& ctx);

}  // namespace llmon::collector
