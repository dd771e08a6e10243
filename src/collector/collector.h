// Collector: one data source (a /proc file, a sysfs class) turned into metric
// families. A collector is created once, keeps whatever state it needs between
// cycles (open descriptors, previous counter values) and is called by one
// thread at a time. collect() must not block for long: anything that can hang
// (statvfs on a network mount) is bounded inside the collector.
// A non-ok Status marks the collector failed for this cycle
// (node_scrape_collector_success 0); families already written are kept.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "base/strings.h"
#include "collector/proc_stat_source.h"
#include "model/snapshot_builder.h"
#include "procfs/fs.h"

namespace llmon::collector {

// Everything a collector factory may read: paths, clock, logger and the
// collector's own options ("collector.<name>.<option>" flag values).
struct CollectorContext {
  procfs::Fs fs;
  const base::Clock* clock = nullptr;
  base::Logger* log = nullptr;
  std::map<std::string, std::string> options;  // flag name -> value
  // Sources shared by several collectors of one scheduler; null means each
  // collector reads on its own (see proc_stat(), which falls back).
  std::shared_ptr<ProcStatSource> shared_proc_stat;

  std::shared_ptr<ProcStatSource> proc_stat() const {
    return shared_proc_stat ? shared_proc_stat : std::make_shared<ProcStatSource>(fs.proc("stat"));
  }

  std::string option(const std::string& key, const std::string& fallback = "") const {
    auto it = options.find(key);
    return it == options.end() ? fallback : it->second;
  }
  // A boolean option; absent or unparsable (settings validate values) -> fallback.
  bool option_bool(const std::string& key, bool fallback) const {
    auto b = base::parse_bool_word(option(key));
    return b ? *b : fallback;
  }
};

class Collector {
 public:
  virtual ~Collector() = default;
  virtual Status collect(model::SnapshotBuilder& out) = 0;
};

using CollectorFactory = std::unique_ptr<Collector> (*)(const CollectorContext&);

}  // namespace llmon::collector
