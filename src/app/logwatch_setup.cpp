#include "app/logwatch_setup.h"

#include <glob.h>
#include <unistd.h>

#include "app/embedded_file.h"
#include "app/rule_loading.h"
#include "base/file_reader.h"
#include "logwatch/forward_senders.h"

namespace llmon::app {

namespace {

// A path, or a glob's matches in sorted order (none: the pattern itself, so
// that a missing file is an error naming it).
std::vector<std::string> expand(const std::string& pattern) {
  glob_t g{};
  std::vector<std::string> out;
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  if (out.empty()) out.push_back(pattern);
  return out;
}

void add_file(LogRulesResult& r, const std::string& name, std::string_view text) {
  auto rules = logwatch::parse_log_rules(text, name);
  if (!rules) {
    r.errors.push_back(rules.error());
    return;
  }
  std::vector<logwatch::LogRule> merged = r.rules;
  if (Status s = logwatch::merge_log_rules(merged, std::move(*rules)); !s) {
    r.errors.push_back(s.message());
    return;
  }
  r.rules = std::move(merged);
}

}  // namespace

LogRulesResult load_log_rules(bool defaults, const std::vector<std::string>& files) {
  LogRulesResult r;
  if (defaults) {
    for (const auto& f : default_logwatch_rule_files())
      add_file(r, std::string(kBuiltinLogRulePrefix) + std::string(f.name), f.content);
  }
  for (const std::string& pattern : files) {
    for (const std::string& path : expand(pattern)) {
      auto text = base::read_file(path);
      if (!text) {
        r.errors.push_back(text.status().with_context(path).message());
        continue;
      }
      add_file(r, path, *text);
    }
  }
  return r;
}

std::string events_dir(const config::Settings& s) {
  const std::string& dir = s.get(config::flag::kEventsPath);
  if (!dir.empty()) return dir;
  return s.get(config::flag::kStoragePath) + "/events";
}

std::string boot_id_path(const config::Settings& s) {
  std::string path = s.get(config::flag::kPathProcfs) + "/sys/kernel/random/boot_id";
  if (::access(path.c_str(), R_OK) != 0) path = "/proc/sys/kernel/random/boot_id";
  return path;
}

logwatch::WatcherOptions watcher_options(const config::Settings& s) {
  logwatch::WatcherOptions o;
  o.tailer.patterns = split_list(s.get(config::flag::kLogwatchPath));
  o.tailer.from_beginning = s.get(config::flag::kLogwatchFromBeginning);
  o.tailer.read_gz = s.get(config::flag::kLogwatchReadGz);
  o.tailer.max_line = std::max<uint64_t>(256, s.get(config::flag::kLogwatchMaxLineSize));
  o.kmsg_path = s.get(config::flag::kLogwatchKmsgPath);
  o.boot_id_path = boot_id_path(s);
  o.journal.dir = events_dir(s);
  o.journal.retention_ms = s.get(config::flag::kEventsRetention);
  o.journal.max_bytes = s.get(config::flag::kEventsMaxSize);
  o.poll_interval_ms = std::max<int64_t>(10, s.get(config::flag::kLogwatchPollInterval));
  return o;
}

Expected<std::vector<std::unique_ptr<logwatch::Forwarder>>> make_forwarders(const config::Settings& s,
                                                                            const base::Clock& clock,
                                                                            const std::string& hostname) {
  std::vector<std::unique_ptr<logwatch::Forwarder>> out;
  if (const std::string& target = s.get(config::flag::kLogwatchForwardSyslog); !target.empty()) {
    auto t = logwatch::parse_syslog_target(target);
    if (!t)
      return Status::error(std::string("--") + std::string(config::flag::kLogwatchForwardSyslog.name) + ": " +
                           t.error());
    logwatch::SyslogEventOptions o;
    o.hostname = hostname;
    if (!logwatch::parse_syslog_facility(s.get(config::flag::kLogwatchForwardSyslogFacility), o.facility))
      return Status::error(std::string("--") + std::string(config::flag::kLogwatchForwardSyslogFacility.name) + ": \"" +
                           s.get(config::flag::kLogwatchForwardSyslogFacility) + "\" is not a facility name or 0-23");
    out.push_back(std::make_unique<logwatch::QueueForwarder>("syslog", logwatch::syslog_sender(*t, o), clock));
  }
  if (const std::string& url = s.get(config::flag::kLogwatchForwardLoki); !url.empty()) {
    logwatch::LokiFormat format;
    if (!logwatch::parse_loki_format(s.get(config::flag::kLogwatchForwardLokiFormat), format))
      return Status::error(std::string("--") + std::string(config::flag::kLogwatchForwardLokiFormat.name) +
                           ": expected protobuf or json");
    logwatch::LokiLabelOptions o;
    o.host = hostname;
    auto labels = logwatch::parse_loki_labels(s.get(config::flag::kLogwatchForwardLokiLabels));
    if (!labels)
      return Status::error(std::string("--") + std::string(config::flag::kLogwatchForwardLokiLabels.name) + ": " +
                           labels.error());
    o.static_labels = std::move(*labels);
    auto send = logwatch::loki_sender(url, std::move(o), format);
    if (!send)
      return Status::error(std::string("--") + std::string(config::flag::kLogwatchForwardLoki.name) + ": " +
                           send.error());
    out.push_back(std::make_unique<logwatch::QueueForwarder>("loki", std::move(*send), clock));
  }
  return out;
}

}  // namespace llmon::app
