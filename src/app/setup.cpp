#include "app/setup.h"

#include <cassert>

#include "app/commands.h"
#include "collector/options.h"
#include "collector/registry.h"

namespace llmon::app {

procfs::Fs fs_from(const config::Settings& s) {
  procfs::Fs fs;
  fs.proc_root = s.get(config::flag::kPathProcfs);
  fs.sys_root = s.get(config::flag::kPathSysfs);
  fs.root = s.get(config::flag::kPathRootfs);
  return fs;
}

collector::CollectorContext collector_context(const config::Settings& s, const base::Clock& clock, base::Logger& log,
                                              std::shared_ptr<health::HealthTracker> health) {
  collector::CollectorContext ctx;
  ctx.fs = fs_from(s);
  ctx.clock = &clock;
  ctx.log = &log;
  for (const base::FlagRef& f : collector::flag::kAll) ctx.set_option(f, s.raw(f));
  ctx.version = kVersion;
  ctx.shared_proc_stat = std::make_shared<collector::ProcStatSource>(ctx.fs.proc("stat"));
  ctx.health = std::move(health);
  return ctx;
}

std::vector<collector::NamedCollector> enabled_collectors(const config::Settings& s, const base::Clock& clock,
                                                          base::Logger& log,
                                                          std::shared_ptr<health::HealthTracker> health) {
  const collector::CollectorContext ctx = collector_context(s, clock, log, std::move(health));
  const bool disable_defaults = s.get(config::flag::kCollectorDisableDefaults);
  std::vector<collector::NamedCollector> out;
  for (const auto& c : collector::builtin_collectors()) {
    auto flag = config::collector_switch(c.name);
    if (!flag) {  // the table has one switch per registry entry: a broken build
      assert(false && "a collector without its --collector.<name> flag");
      log.error("collector left out", {{"collector", c.name}, {"err", flag.error()}});
      continue;
    }
    bool on = s.get(*flag);
    if (disable_defaults && s.is_default(*flag)) on = false;
    if (!on) continue;
    out.push_back({std::string(c.name), c.make(ctx)});
  }
  return out;
}

}  // namespace llmon::app
