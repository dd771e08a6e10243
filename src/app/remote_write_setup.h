// The agent's remote_write (docs/remote_write.md): the queues that
// --remote-write.config asks for, each fed from the store's WAL, and their
// llmon_remote_storage_* metrics. Built once at start (no reload yet);
// needs the store. start()/stop() from the agent's main thread.
#pragma once

#include <memory>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "collector/collector.h"
#include "config/settings.h"
#include "remote/queue.h"
#include "tsdb/db.h"

namespace llmon::app {

class RemoteWrite {
 public:
  // nullptr (no error) when --remote-write.config is empty; an error naming
  // FILE:LINE when the file is wrong.
  static Expected<std::unique_ptr<RemoteWrite>> create(const config::Settings& s, tsdb::Db& db,
                                                       const base::Clock& clock, base::Logger& log);
  void start();
  void stop();
  // llmon_remote_storage_* by queue ("remote_name", "url" labels as Prometheus).
  std::unique_ptr<collector::Collector> make_collector() const;

 private:
  std::vector<std::unique_ptr<remote::Queue>> queues_;
};

}  // namespace llmon::app
