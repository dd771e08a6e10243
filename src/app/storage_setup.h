// tsdb::DbOptions from the --storage.* flags (shared by `llmon agent` and
// `llmon tsdb`), and the target labels of the agent's own history.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "config/settings.h"
#include "ingest/snapshot_sink.h"
#include "tsdb/db.h"

namespace llmon::app {

tsdb::DbOptions db_options(const config::Settings& s);

// The labels a Prometheus scrape of the agent would add, for the series the
// agent stores from its own cycles: job = --storage.self.job, instance =
// --storage.self.instance, or "<hostname()>:<port>" when that is empty.
ingest::SnapshotSinkOptions self_sink_options(const config::Settings& s, int port,
                                              const std::function<std::string()>& hostname);

// Every flag's value as the agent runs with it, for /api/v1/status/flags;
// storage.self.instance and storage.self.job as self_sink_options resolves them.
std::map<std::string, std::string> flag_values(const config::Settings& s, int port,
                                               const std::function<std::string()>& hostname);

// gethostname(), or "localhost" when it fails.
std::string system_hostname();

}  // namespace llmon::app
