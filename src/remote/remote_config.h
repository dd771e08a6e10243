// The --remote-write.config file: Prometheus's `remote_write:` list (and
// `global.external_labels`), docs/remote_write.md "Configuration". Pure
// parse of YAML text (yaml-cpp, as scrape_config.cpp does); unknown keys,
// and keys Prometheus has that llmon does not implement, are refused with
// FILE:LINE:COLUMN. Defaults are Prometheus 2.42's (config/config.go).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/labels.h"
#include "remote/write_request.h"
#include "scrape/relabel.h"
#include "scrape/scrape_config.h"

namespace llmon::remote {

struct QueueConfig {
  uint64_t capacity = 10000;  // samples read ahead of the senders (at least one request per shard)
  uint64_t max_shards = 50;   // requests in flight at most (shard_tuner.h)
  uint64_t min_shards = 1;
  uint64_t max_samples_per_send = 2000;
  int64_t batch_send_deadline_ms = 5000;  // a partial request waits this long for more samples
  // llmon's own key: while behind, send at most this many times the store's
  // ingest rate (0: unbounded), so a replay leaves room for new samples.
  uint64_t catch_up_factor = 20;
  int64_t min_backoff_ms = 30;
  int64_t max_backoff_ms = 5000;
  bool retry_on_http_429 = true;  // llmon's default: 429 is retried (no data lost)
};

// metadata_config (Prometheus's defaults). 1.0 sends every family's
// metadata each send_interval in requests of max_samples_per_send entries;
// 2.0 attaches it to every series instead (send_interval unused).
struct MetadataConfig {
  bool send = true;
  int64_t send_interval_ms = 60000;
  uint64_t max_samples_per_send = 500;
};

struct RemoteWriteConfig {
  std::string url;
  std::string name;  // empty: the queue hash names it
  int64_t remote_timeout_ms = 30000;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<scrape::BasicAuth> basic_auth;
  std::optional<scrape::Authorization> authorization;
  scrape::TlsConfig tls;
  std::vector<scrape::RelabelConfig> write_relabel_configs;
  QueueConfig queue;
  // protobuf_message: "prometheus.WriteRequest" (1.0, the default) or
  // "io.prometheus.write.v2.Request" (2.0, falling back to 1.0 on a 415).
  Protocol protocol = Protocol::kV1;
  MetadataConfig metadata;
  std::string origin;  // FILE:LINE of the entry
};

struct RemoteWriteFile {
  std::vector<model::Label> external_labels;
  std::vector<RemoteWriteConfig> remote_write;
};

Expected<RemoteWriteFile> parse_remote_write_config(std::string_view yaml, std::string_view file);

// The queue's identity for its position file: 16 hex digits of FNV-1a over
// the URL and the name, so the same endpoint keeps its position across
// restarts and config reorderings.
std::string queue_hash(const RemoteWriteConfig& c);

}  // namespace llmon::remote
