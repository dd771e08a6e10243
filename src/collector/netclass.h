// The netclass collector's factory with an injectable descriptor budget (tests
// check the open/read/close fallback with a small one). The registry uses
// make_netclass() (builtin.h), which calls this with the default budget.
#pragma once

#include <cstddef>
#include <memory>

#include "collector/collector.h"

namespace llmon::collector {

// The most attribute descriptors netclass keeps open: 4096, or a quarter of
// the soft RLIMIT_NOFILE when that is lower. Attributes beyond the budget are
// opened, read and closed every cycle.
size_t default_netclass_fd_budget();

std::unique_ptr<Collector> make_netclass_with(const CollectorContext& ctx, size_t max_open_fds);

}  // namespace llmon::collector
