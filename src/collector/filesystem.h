// The filesystem collector's factory with an injectable statvfs, so tests can
// simulate a hung mount. The registry uses make_filesystem() (builtin.h),
// which calls this with ::statvfs.
#pragma once

#include <memory>

#include "collector/collector.h"
#include "collector/statfs_runner.h"

namespace llmon::collector {

std::unique_ptr<Collector> make_filesystem_with(const CollectorContext& ctx, StatfsRunner::StatvfsFn statvfs_fn,
                                                int64_t handoff_ms = 50);

}  // namespace llmon::collector
