#include "app/storage_setup.h"

namespace llmon::app {

tsdb::DbOptions db_options(const config::Settings& s) {
  tsdb::DbOptions o;
  o.path = s.get("storage.path");
  o.retention_ms = s.get_duration_ms("storage.retention.time");
  o.retention_bytes = s.get_bytes("storage.retention.size");
  o.min_free_bytes = s.get_bytes("storage.min-free-space");
  if (s.values.count("storage.fsync-interval") != 0) o.fsync_interval_ms = s.get_duration_ms("storage.fsync-interval");
  return o;
}

}  // namespace llmon::app
