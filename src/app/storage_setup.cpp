#include "app/storage_setup.h"

#include <unistd.h>

#include "config/flags.h"

namespace llmon::app {

tsdb::DbOptions db_options(const config::Settings& s) {
  tsdb::DbOptions o;
  o.path = s.get(config::flag::kStoragePath);
  o.retention_ms = s.get(config::flag::kStorageRetentionTime);
  o.retention_bytes = s.get(config::flag::kStorageRetentionSize);
  o.min_free_bytes = s.get(config::flag::kStorageMinFreeSpace);
  o.fsync_interval_ms = s.get(config::flag::kStorageFsyncInterval);
  return o;
}

ingest::SnapshotSinkOptions self_sink_options(const config::Settings& s, int port,
                                              const std::function<std::string()>& hostname) {
  ingest::SnapshotSinkOptions o;
  std::string instance = s.get(config::flag::kStorageSelfInstance);
  if (instance.empty()) instance = hostname() + ":" + std::to_string(port);
  o.target_labels = {{"instance", std::move(instance)}, {"job", s.get(config::flag::kStorageSelfJob)}};
  return o;
}

std::map<std::string, std::string> flag_values(const config::Settings& s, int port,
                                               const std::function<std::string()>& hostname) {
  std::map<std::string, std::string> out;
  for (const config::FlagSpec& f : config::flag_table()) out[f.name] = s.raw(config::FlagRef{f.name, f.kind});
  for (const model::Label& l : self_sink_options(s, port, hostname).target_labels)
    out["storage.self." + l.name] = l.value;
  return out;
}

std::string system_hostname() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "localhost";
  return host;
}

}  // namespace llmon::app
