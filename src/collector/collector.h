// Collector: one data source (a /proc file, a sysfs class) turned into metric
// families. A collector is created once, keeps whatever state it needs between
// cycles (open descriptors, previous counter values) and is called by one
// thread at a time. collect() must not block for long: anything that can hang
// (statvfs on a network mount) is bounded inside the collector.
// A non-ok Status marks the collector failed for this cycle
// (node_scrape_collector_success 0); families already written are kept.
#pragma once

#include <cassert>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/flag.h"
#include "base/log.h"
#include "base/status.h"
#include "base/strings.h"
#include "collector/proc_stat_source.h"
#include "model/snapshot_builder.h"
#include "procfs/fs.h"

namespace llmon::health {
class HealthTracker;
}  // namespace llmon::health

namespace llmon::collector {

// Everything a collector factory may read: paths, clock, logger, llmon's
// version and the collectors' options (collector.<name>.<option> and the few
// other flags they read), keyed by the typed constants of options.h:
// ctx.option(flag::kCollectorGpuTimeout) returns the flag's type (a duration
// in milliseconds, a bool, the string or regexp as given). There is no
// lookup by string, so a misspelt option does not compile, and no fallback
// at the call site: whoever builds the context sets every option of
// flag::kAll (app::collector_context from config::Settings, which holds the
// flag table's defaults; the collector tests from the table's defaults too),
// so each default is written once, in the table. Reading an option that was
// not set is a programming error: assert in debug builds, the kind's empty
// value in release ones (as config::Settings::get).
struct CollectorContext {
  procfs::Fs fs;
  const base::Clock* clock = nullptr;
  base::Logger* log = nullptr;
  std::string version = "unknown";  // llmon's version, for llmon_build_info (not a flag)
  // Sources shared by several collectors of one scheduler; null means each
  // collector reads on its own (see proc_stat(), which falls back).
  std::shared_ptr<ProcStatSource> shared_proc_stat;
  // The agent's GPU health tracker (health/gpu_health.h), fed by the gpu
  // collector; null: no health tracking (llmon snapshot, tests).
  std::shared_ptr<health::HealthTracker> health;

  std::shared_ptr<ProcStatSource> proc_stat() const {
    return shared_proc_stat ? shared_proc_stat : std::make_shared<ProcStatSource>(fs.proc("stat"));
  }

  // Sets an option's value as text, in the flag's syntax ("2s", "true").
  void set_option(base::FlagRef f, std::string value) { options_[std::string(f.name)] = std::move(value); }

  const std::string& option(base::StringFlag f) const { return text(f); }
  const std::string& option(base::RegexFlag f) const { return text(f); }  // the pattern as given
  bool option(base::BoolFlag f) const {
    auto b = base::parse_bool_word(text(f));
    return b && *b;
  }
  int64_t option(base::DurationFlag f) const {  // milliseconds
    auto d = base::parse_duration_ms(text(f));
    return d ? *d : 0;
  }

 private:
  const std::string& text(base::FlagRef f) const {
    static const std::string kEmpty;
    auto it = options_.find(f.name);
    assert(it != options_.end() && "an option its CollectorContext was not given");
    return it == options_.end() ? kEmpty : it->second;
  }

  std::map<std::string, std::string, std::less<>> options_;  // flag name -> value as text
};

class Collector {
 public:
  virtual ~Collector() = default;
  virtual Status collect(model::SnapshotBuilder& out) = 0;
};

using CollectorFactory = std::unique_ptr<Collector> (*)(const CollectorContext&);

}  // namespace llmon::collector
