// Fetching one target's page over HTTP(S), as Prometheus 2.42's
// targetScraper does: GET with Prometheus's Accept header (OpenMetrics
// preferred, then text 0.0.4), Accept-Encoding: gzip,
// X-Prometheus-Scrape-Timeout-Seconds, the job's basic auth / authorization
// (password and credential files reread on every scrape, as Prometheus
// does) and TLS settings, the scrape timeout as the deadline, and
// body_size_limit on the decompressed body. A status other than 200 fails:
// "server returned HTTP status 503 Service Unavailable". Thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "net/http_client.h"
#include "scrape/http_client_config.h"
#include "scrape/scrape_config.h"

namespace llmon::scrape {

struct Page {
  std::string body;  // decompressed
  std::string content_type;
  uint64_t bytes = 0;  // as received (compressed)
};

class Fetcher {
 public:
  // `user_agent`: "llmon/<version>".
  Fetcher(const ScrapeConfig& cfg, std::string user_agent);

  Expected<Page> fetch(const std::string& url, int64_t timeout_ms) const;

 private:
  net::http::ClientOptions base_;
  HttpClientConfig http_;  // auth and TLS, secrets reread per fetch
  uint64_t body_size_limit_;
};

// Prometheus 2.42's Accept header for scrapes.
inline constexpr std::string_view kScrapeAccept =
    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

}  // namespace llmon::scrape
