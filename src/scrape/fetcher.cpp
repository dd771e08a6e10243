#include "scrape/fetcher.h"

#include <cstdio>

#include "base/file_reader.h"
#include "base/strings.h"
#include "ingest/importer.h"

namespace llmon::scrape {
namespace {

// A body that no limit was set for may still not exhaust memory.
constexpr uint64_t kDefaultMaxBody = 1ULL << 30;

std::string status_text(int code, const std::string& reason) {
  return std::to_string(code) + (reason.empty() ? "" : " " + reason);
}

}  // namespace

Fetcher::Fetcher(const ScrapeConfig& cfg, std::string user_agent)
    : http_{cfg.basic_auth, cfg.authorization, cfg.tls}, body_size_limit_(cfg.body_size_limit) {
  base_.user_agent = std::move(user_agent);
  base_.only_configured_families = false;  // loopback targets on hosts with no other address
}

Expected<Page> Fetcher::fetch(const std::string& url_text, int64_t timeout_ms) const {
  auto url = net::http::parse_url(url_text);
  if (!url) return url.status();
  net::http::ClientOptions o = base_;
  o.timeout_ms = static_cast<int>(timeout_ms);
  o.connect_timeout_ms = static_cast<int>(timeout_ms);
  const uint64_t limit = body_size_limit_ > 0 ? body_size_limit_ : kDefaultMaxBody;
  o.max_response_body_bytes = static_cast<size_t>(limit) + 1;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", static_cast<double>(timeout_ms) / 1000.0);
  o.headers.push_back({"Accept", std::string(kScrapeAccept)});
  o.headers.push_back({"Accept-Encoding", "gzip"});
  o.headers.push_back({"X-Prometheus-Scrape-Timeout-Seconds", seconds});
  if (Status st = apply_http_client_config(http_, o); !st) return st;
  net::http::Client client(std::move(o));
  auto resp = client.get(*url);
  if (!resp) return resp.status();
  if (resp->status != 200)
    return Status::error("server returned HTTP status " + status_text(resp->status, resp->reason));
  Page page;
  page.bytes = resp->body.size();
  page.content_type = std::string(resp->header("content-type"));
  if (base::iequals(base::trim(resp->header("content-encoding")), "gzip")) {
    auto plain = ingest::gunzip(resp->body, static_cast<size_t>(limit) + 1);
    if (!plain) return Status::error("decompressing the body: " + plain.error());
    page.body = std::move(*plain);
  } else {
    page.body = std::move(resp->body);
  }
  if (resp->body_truncated || page.body.size() > limit) return Status::error("body size limit exceeded");
  return page;
}

}  // namespace llmon::scrape
