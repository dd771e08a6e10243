// The Prometheus HTTP query API (docs/api.md) on the agent's http::Server, so
// Grafana's Prometheus data source and other Prometheus clients can use llmon
// as if it were Prometheus:
//   /api/v1/query, /api/v1/query_range        PromQL via promql::Engine
//   /api/v1/series, /api/v1/labels,
//   /api/v1/label/<name>/values               the storage::Querier
//   /api/v1/metadata                          the latest collected snapshot
//   /api/v1/status/buildinfo, /api/v1/format_query
// GET everywhere, form-encoded POST where Prometheus takes it; Prometheus's
// parameters (api_params.h), envelopes, error types, HTTP codes and JSON
// bytes (api_json.h). Not the engine and not the server: it adapts HTTP to
// them.
//
// Without a store (storage/engine null: --storage.enabled=false or the store
// failed to open) the storage-backed endpoints answer 503 `unavailable`;
// metadata, buildinfo and format_query still work.
//
// Ownership: the server's routes share ownership of the QueryApi; the
// Storage, Engine and Clock must outlive the server. Thread-safe: handlers
// run on the server's connection threads; the engine bounds concurrent queries.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/params.h"
#include "base/clock.h"
#include "http/server.h"
#include "model/metric.h"
#include "promql/engine.h"
#include "storage/storage.h"

namespace llmon::api {

struct QueryApiOptions {
  std::string version;  // /api/v1/status/buildinfo's "version"
  // /api/v1/status/flags: every flag's value by name, as Prometheus answers
  // (the dashboard reads collect.interval and the agent's own job/instance).
  // Called per request (the agent's instance label depends on the port bound).
  std::function<std::map<std::string, std::string>()> flags;
  // Metadata of series the agent stores but does not collect (scraped
  // targets: api/targets_route.h), merged into /api/v1/metadata.
  struct MetadataEntry {
    std::string metric, type, help, unit;
  };
  std::function<std::vector<MetadataEntry>()> extra_metadata;
  // Why the storage-backed endpoints are unavailable (when storage is null).
  std::string unavailable_reason =
      "this endpoint needs the time-series store, which is not running (it failed to open: see the agent's log)";
};

class QueryApi {
 public:
  using SnapshotSource = std::function<model::SnapshotPtr()>;

  // storage and engine: both set, or both null (no store). snapshots: the
  // agent's latest collection cycle (may return null before the first one).
  QueryApi(storage::Storage* storage, promql::Engine* engine, SnapshotSource snapshots, const base::Clock& clock,
           QueryApiOptions options);

  // An answer: HTTP status and the JSON envelope.
  struct Answer {
    int status = 200;
    std::string body;
  };
  // Answers `path` (one of the routes above) for the decoded parameters.
  Answer answer(std::string_view path, const api::Form& form) const;
  // HTTP adapter: decodes the form (URL query and form-encoded POST body).
  void handle(const http::Request& req, http::Response& res) const;

 private:
  // One endpoint's outcome before encoding.
  struct Result {
    std::string data;  // JSON; meaningful without error
    // data already starts with api::kSuccessPrefix (query answers, built in place).
    bool enveloped = false;
    std::optional<promql::QueryError> error;
    std::vector<std::string> warnings;
    std::vector<std::string> infos;
  };
  static Result failed(promql::QueryError error);
  // A query's answer (data built in place) or error, cut to `limit` series.
  static Result from_engine(promql::QueryResult res, int64_t limit);
  Result query(const api::Form& form) const;
  Result query_range(const api::Form& form) const;
  Result series(const api::Form& form) const;
  Result labels(const api::Form& form) const;
  Result label_values(std::string_view name_segment, const api::Form& form) const;
  Result metadata(const api::Form& form) const;
  Result buildinfo() const;
  Result flags() const;
  Result format_query(const api::Form& form) const;
  std::optional<Result> unavailable() const;

  storage::Storage* storage_;
  promql::Engine* engine_;
  SnapshotSource snapshots_;
  const base::Clock& clock_;
  QueryApiOptions opts_;
};

// Registers the routes on `server` (before server.start()).
Status register_query_api(http::Server& server, std::shared_ptr<QueryApi> api);

}  // namespace llmon::api
