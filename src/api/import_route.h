// POST /api/v1/import/prometheus: the VictoriaMetrics-compatible backfill
// endpoint (docs/import.md). Adapts HTTP to app/importer.h: decodes the body
// (Content-Encoding: gzip, with a decoded-size limit), reads the `extra_label`
// and `timestamp` query args, imports into the storage, answers 204 (or 400
// when the body cannot be decoded, a query arg is bad, or no sample line was
// valid) and keeps per-outcome counters for /metrics. Not the importer itself
// and not the HTTP server: it registers one route on an http::Server.
//
// Ownership: the server's route shares ownership of the ImportRoute; the
// Storage, Clock and Logger must outlive the server. Thread-safe: requests run
// on the server's connection threads, at most `max_concurrent` imports at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "ingest/importer.h"
#include "base/clock.h"
#include "base/log.h"
#include "http/server.h"
#include "storage/storage.h"

namespace llmon::api {

struct ImportRouteOptions {
  std::string path = "/api/v1/import/prometheus";
  // Largest body as received, checked against Content-Length before it is
  // read: 64 MiB is ~1.3 M samples of typical text (~50 B a line) and what the
  // listener holds in memory per such request until it is parsed.
  size_t max_body_bytes = 64u << 20;
  // Largest body after ingest::gunzip: the same 64 MiB, so gzip never widens the limit.
  size_t max_decoded_bytes = 64u << 20;
  // Imports parsed at once; more answer 503 with Retry-After (each one holds
  // its body, its decoded text and its sorted window: ~180 MB at the limits).
  int max_concurrent = 2;
  // Messages about invalid lines in a 400 answer and in the log.
  size_t max_reported_errors = 5;
  // Batch and window sizes; now_ms and extra_labels are set per request.
  ingest::ImportOptions import;
};

// Totals since start, for /metrics (llmon_import_* families, wired by the agent).
struct ImportRouteStats {
  uint64_t requests_ok = 0;       // 204
  uint64_t requests_invalid = 0;  // 400: body not decodable, bad query arg, no valid line
  uint64_t requests_busy = 0;     // 503: max_concurrent imports already running
  uint64_t body_bytes = 0;        // as received, 204 and 400 alike
  uint64_t samples_accepted = 0;
  uint64_t invalid_lines = 0;
  uint64_t duplicates_dropped = 0;
  uint64_t rejected_out_of_order = 0;
  uint64_t rejected_duplicate = 0;
  uint64_t rejected_out_of_bounds = 0;
  uint64_t rejected_other = 0;
};

class ImportRoute {
 public:
  ImportRoute(storage::Storage& storage, const base::Clock& clock, base::Logger& log, ImportRouteOptions options = {});
  ImportRoute(const ImportRoute&) = delete;
  ImportRoute& operator=(const ImportRoute&) = delete;

  // The handler (POST only; the server answers 405 for other methods).
  void handle(const http::Request& req, http::Response& res);
  ImportRouteStats stats() const;
  const ImportRouteOptions& options() const { return opts_; }

 private:
  void finish(const ingest::ImportStats& s, size_t body_bytes, bool ok);

  storage::Storage& storage_;
  const base::Clock& clock_;
  base::Logger& log_;
  ImportRouteOptions opts_;
  mutable std::mutex mu_;
  int running_ = 0;         // under mu_
  ImportRouteStats stats_;  // under mu_
};

// Registers POST `options.path` on `server` (before server.start()) with the
// body limit from the options, and returns the route for stats().
Expected<std::shared_ptr<ImportRoute>> register_import_route(http::Server& server, storage::Storage& storage,
                                                             const base::Clock& clock, base::Logger& log,
                                                             ImportRouteOptions options = {});

// "a=1&extra_label=job%3Dx&b" -> pairs, percent-decoded ('+' is a space), in
// order; a key without '=' has an empty value. Error on a bad %-escape.
Expected<std::vector<std::pair<std::string, std::string>>> parse_query(std::string_view query);

}  // namespace llmon::api
