// The store's own metrics (llmon_tsdb_*), as a collector the agent adds to its
// scheduler when storage is enabled: series, bytes on disk per part, commits,
// refusals (disk full), persistence and retention, recovery. Reads
// tsdb::Db::stats() only; thread-safe as that is.
#pragma once

#include <atomic>
#include <memory>

#include "api/import_route.h"
#include "collector/collector.h"
#include "tsdb/db.h"

namespace llmon::app {

// What the collector reads. `import` is set once the HTTP route exists (the
// collectors are built before the server); both must outlive the collector.
struct TsdbMetricsSources {
  const tsdb::Db* db = nullptr;
  std::atomic<const api::ImportRoute*> import{nullptr};
};

std::unique_ptr<collector::Collector> make_tsdb_collector(const TsdbMetricsSources& sources);

}  // namespace llmon::app
