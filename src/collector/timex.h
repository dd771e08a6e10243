// timex collector: node_timex_* from adjtimex(2), as node_exporter 1.5
// (timex.go). Not from procfs, so --path.procfs does not apply. The system
// call is a function so tests feed fixed struct timex values;
// make_timex(ctx) uses the real one (modes 0: read only).
#pragma once

#include <sys/timex.h>

#include <functional>
#include <memory>

#include "collector/collector.h"

namespace llmon::collector {

// Fills the struct and returns adjtimex's clock state (TIME_OK ... TIME_ERROR),
// or an error: the collector then fails (success 0, no series), as
// node_exporter does for any adjtimex error (EPERM is its ErrNoData, which
// also gives success 0).
using TimexSource = std::function<Expected<int>(struct timex&)>;

Expected<int> system_adjtimex(struct timex& out);
std::unique_ptr<Collector> make_timex_with(TimexSource source);

}  // namespace llmon::collector
