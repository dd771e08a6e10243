#include "web/dashboard.h"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/hash.h"
#include "http/metrics_page.h"

namespace llmon::web {

namespace {

struct Served {
  std::string content_type;
  std::string etag;
  std::shared_ptr<const std::string> plain;
  std::shared_ptr<const std::string> gzipped;
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// If-None-Match holds one or more quoted tags, or "*".
bool etag_matches(std::string_view header, std::string_view etag) {
  if (header == "*") return true;
  return header.find(etag) != std::string_view::npos;
}

void answer(const Served& f, const http::Request& req, http::Response& res) {
  res.headers.emplace_back("ETag", f.etag);
  res.headers.emplace_back("Cache-Control", "no-cache");
  res.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (etag_matches(req.header("if-none-match"), f.etag)) {
    res.status = 304;
    res.content_type.clear();
    return;
  }
  res.content_type = f.content_type;
  res.headers.emplace_back("Vary", "Accept-Encoding");
  if (http::accepts_gzip(std::string(req.header("accept-encoding")))) {
    res.headers.emplace_back("Content-Encoding", "gzip");
    res.shared_body = f.gzipped;
  } else {
    res.shared_body = f.plain;
  }
}

}  // namespace

const char* content_type_for(std::string_view name) {
  if (ends_with(name, ".html")) return "text/html; charset=utf-8";
  if (ends_with(name, ".js")) return "text/javascript; charset=utf-8";
  if (ends_with(name, ".css")) return "text/css; charset=utf-8";
  if (ends_with(name, ".svg")) return "image/svg+xml";
  if (ends_with(name, ".json")) return "application/json";
  if (ends_with(name, ".png")) return "image/png";
  if (ends_with(name, ".woff2")) return "font/woff2";
  return "application/octet-stream";
}

Status register_dashboard(http::Server& server, std::span<const Asset> assets) {
  // Each file is copied and gzipped on its first request, not at start: an
  // agent nobody opens the dashboard of keeps ~250 KB less resident.
  struct Lazy {
    Asset asset;
    std::once_flag once;
    Served served;
    const Served& get() {
      std::call_once(once, [this] {
        served.content_type = content_type_for(asset.name);
        std::string body(asset.content);
        char tag[32];
        std::snprintf(tag, sizeof tag, "\"%016llx\"",
                      static_cast<unsigned long long>(base::fnv1a(base::kFnv1aOffset, body)));
        served.etag = tag;
        served.gzipped = std::make_shared<const std::string>(http::gzip_compress(body, 9));
        served.plain = std::make_shared<const std::string>(std::move(body));
      });
      return served;
    }
  };
  auto files = std::make_shared<std::map<std::string, std::unique_ptr<Lazy>, std::less<>>>();
  for (const Asset& a : assets) {
    auto l = std::make_unique<Lazy>();
    l->asset = a;
    (*files)[std::string(a.name)] = std::move(l);
  }
  if (files->find("index.html") == files->end()) return Status::error("web: the dashboard bundle has no index.html");
  const std::vector<std::string> get = {"GET"};
  Status s = server.add_route("/", get, [files](const http::Request& req, http::Response& res) {
    answer(files->at("index.html")->get(), req, res);
  });
  if (!s) return s;
  return server.add_route("/assets/*", get, [files](const http::Request& req, http::Response& res) {
    std::string_view name = std::string_view(req.path).substr(std::string_view("/assets/").size());
    auto it = files->find(name);
    if (it == files->end() || name == "index.html") {
      res.status = 404;
      res.body = "404 page not found\n";
      return;
    }
    answer(it->second->get(), req, res);
  });
}

}  // namespace llmon::web
