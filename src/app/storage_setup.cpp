#include "app/storage_setup.h"

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

}  // namespace llmon::app
