#include "app/setup.h"

#include "app/commands.h"
#include "collector/registry.h"

namespace llmon::app {

procfs::Fs fs_from(const config::Settings& s) {
  procfs::Fs fs;
  fs.proc_root = s.get("path.procfs");
  fs.sys_root = s.get("path.sysfs");
  fs.root = s.get("path.rootfs");
  return fs;
}

collector::CollectorContext collector_context(const config::Settings& s, const base::Clock& clock,
                                              base::Logger& log) {
  collector::CollectorContext ctx;
  ctx.fs = fs_from(s);
  ctx.clock = &clock;
  ctx.log = &log;
  ctx.options = s.values;
  ctx.options["llmon.version"] = kVersion;
  ctx.shared_proc_stat = std::make_shared<collector::ProcStatSource>(ctx.fs.proc("stat"));
  return ctx;
}

std::vector<collector::NamedCollector> enabled_collectors(const config::Settings& s, const base::Clock& clock,
                                                          base::Logger& log) {
  const collector::CollectorContext ctx = collector_context(s, clock, log);
  const bool disable_defaults = s.get_bool("collector.disable-defaults");
  std::vector<collector::NamedCollector> out;
  for (const auto& c : collector::builtin_collectors()) {
    std::string flag = "collector." + std::string(c.name);
    bool on = s.get_bool(flag);
    if (disable_defaults && s.origin.at(flag) == "default") on = false;
    if (!on) continue;
    out.push_back({std::string(c.name), c.make(ctx)});
  }
  return out;
}

}  // namespace llmon::app
