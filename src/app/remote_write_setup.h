// The agent's remote_write (docs/remote_write.md): the queues that
// --remote-write.config asks for, each fed from the store's WAL, and their
// llmon_remote_storage_* metrics. SIGHUP rereads the file (reload()): the
// queues are rebuilt and resume from their saved positions, so a reload
// loses and repeats nothing. Needs the store. start()/stop()/reload() from
// the agent's main thread; the collector may read from another.
#pragma once

#include <memory>
#include <mutex>
#include <string>
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
  // FILE:LINE when the file is wrong. `metadata`: the families' HELP/TYPE/UNIT
  // the queues send (metadata_config); may be null.
  static Expected<std::unique_ptr<RemoteWrite>> create(const config::Settings& s, tsdb::Db& db,
                                                       const base::Clock& clock, base::Logger& log,
                                                       remote::MetadataFn metadata = nullptr);
  void start();
  void stop();
  // Rereads the file; on an error the running queues stay and it is returned.
  Status reload();
  // llmon_remote_storage_* by queue ("remote_name", "url" labels as Prometheus).
  std::unique_ptr<collector::Collector> make_collector() const;

  struct QueueView {
    std::string name, url;
    remote::QueueStats stats;
  };
  std::vector<QueueView> views() const;

 private:
  RemoteWrite(std::string path, std::string storage, tsdb::Db& db, const base::Clock& clock, base::Logger& log)
      : path_(std::move(path)), storage_(std::move(storage)), db_(db), clock_(clock), log_(log) {}
  Expected<std::vector<std::unique_ptr<remote::Queue>>> build() const;

  std::string path_, storage_;
  remote::MetadataFn metadata_;
  tsdb::Db& db_;
  const base::Clock& clock_;
  base::Logger& log_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<remote::Queue>> queues_;
  bool started_ = false;
};

}  // namespace llmon::app
