// The log watcher's wiring from the flags: which files and kernel log it
// reads, where its events go (--events.path, default <--storage.path>/events),
// and its rules: the built-in packs (deploy/logwatch/, compiled in, unless
// --logwatch.default-rules=false) and the files of --logwatch.rules
// (comma-separated paths or globs). A rule file that does not load is
// reported and left out; the other rules run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "config/settings.h"
#include "logwatch/forwarder.h"
#include "logwatch/rule_file.h"
#include "logwatch/watcher.h"

namespace llmon::app {

// Prefix of the built-in packs' names in rule origins and errors.
inline constexpr std::string_view kBuiltinLogRulePrefix = "<builtin>/logwatch/";

struct LogRulesResult {
  std::vector<logwatch::LogRule> rules;
  std::vector<std::string> errors;  // one per file that did not load, naming it
};
LogRulesResult load_log_rules(bool defaults, const std::vector<std::string>& files);

// The journal directory `llmon events` and the agent use.
std::string events_dir(const config::Settings& s);

// The kernel's boot id file: --path.procfs's, or this process's /proc when
// that tree has none (a fixture); the id is the same in every namespace.
std::string boot_id_path(const config::Settings& s);

// Everything but the rules.
logwatch::WatcherOptions watcher_options(const config::Settings& s);

// The forwarders --logwatch.forward.* asks for (none by default); an error
// names the flag whose value is wrong.
Expected<std::vector<std::unique_ptr<logwatch::Forwarder>>> make_forwarders(const config::Settings& s,
                                                                            const base::Clock& clock,
                                                                            const std::string& hostname);

}  // namespace llmon::app
