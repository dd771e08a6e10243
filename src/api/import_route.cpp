#include "api/import_route.h"

#include <cctype>
#include <utility>

#include "base/strings.h"

namespace llmon::api {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Expected<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      int hi = i + 2 < s.size() ? hex_value(s[i + 1]) : -1;
      int lo = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) return Status::error("bad %-escape at offset " + std::to_string(i) + " of the query");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

void bad_request(http::Response& res, std::string msg) {
  res.status = 400;
  res.body = std::move(msg);
  if (res.body.empty() || res.body.back() != '\n') res.body += '\n';
}

}  // namespace

Expected<std::vector<std::pair<std::string, std::string>>> parse_query(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::string_view part : base::split(query, '&')) {
    if (part.empty()) continue;
    size_t eq = part.find('=');
    auto k = percent_decode(part.substr(0, eq));
    if (!k) return k.status();
    std::string v;
    if (eq != std::string_view::npos) {
      auto dv = percent_decode(part.substr(eq + 1));
      if (!dv) return dv.status();
      v = std::move(*dv);
    }
    out.emplace_back(std::move(*k), std::move(v));
  }
  return out;
}

ImportRoute::ImportRoute(storage::Storage& storage, const base::Clock& clock, base::Logger& log,
                         ImportRouteOptions options)
    : storage_(storage), clock_(clock), log_(log), opts_(std::move(options)) {}

ImportRouteStats ImportRoute::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void ImportRoute::finish(const ingest::ImportStats& s, size_t body_bytes, bool ok) {
  std::lock_guard lock(mu_);
  (ok ? stats_.requests_ok : stats_.requests_invalid) += 1;
  stats_.body_bytes += body_bytes;
  stats_.samples_accepted += s.samples_accepted;
  stats_.invalid_lines += s.invalid_lines;
  stats_.duplicates_dropped += s.duplicates_dropped;
  stats_.rejected_out_of_order += s.rejected_out_of_order;
  stats_.rejected_duplicate += s.rejected_duplicate;
  stats_.rejected_out_of_bounds += s.rejected_out_of_bounds;
  stats_.rejected_other += s.rejected_other;
}

void ImportRoute::handle(const http::Request& req, http::Response& res) {
  {
    std::lock_guard lock(mu_);
    if (running_ >= std::max(opts_.max_concurrent, 1)) {
      ++stats_.requests_busy;
      res.status = 503;
      res.headers.emplace_back("Retry-After", "1");
      res.body = "too many imports running at once; retry\n";
      return;
    }
    ++running_;
  }
  // Released however the request ends (an exception included: the listener answers 500).
  struct Release {
    ImportRoute* route;
    ~Release() {
      std::lock_guard lock(route->mu_);
      --route->running_;
    }
  } release{this};
  ingest::ImportStats none;

  // Query args, as VictoriaMetrics reads them: extra_label=name=value
  // (repeatable), timestamp=<ms> for lines without one (<= 0: now).
  ingest::ImportOptions io = opts_.import;
  io.max_kept_errors = opts_.max_reported_errors;
  io.now_ms = clock_.now_ms();
  auto args = parse_query(req.query);
  if (!args) {
    finish(none, req.body.size(), false);
    return bad_request(res, "cannot parse the query string: " + args.error());
  }
  for (const auto& [k, v] : *args) {
    if (k == "extra_label") {
      size_t eq = v.find('=');
      if (eq == std::string::npos) {
        finish(none, req.body.size(), false);
        return bad_request(res, "`extra_label` query arg must have the format `name=value`; got \"" + v + "\"");
      }
      std::string name = v.substr(0, eq);
      // Repeated names: the last one wins.
      std::erase_if(io.extra_labels, [&](const model::Label& l) { return l.name == name; });
      io.extra_labels.push_back({std::move(name), v.substr(eq + 1)});
    } else if (k == "timestamp") {
      auto t = base::parse_i64(v);
      if (!t) {
        finish(none, req.body.size(), false);
        return bad_request(res, "cannot parse `timestamp=" + v + "` query arg: expected integer milliseconds");
      }
      if (*t > 0) io.now_ms = *t;
    }
  }
  if (Status s = ingest::validate_extra_labels(io.extra_labels); !s) {
    finish(none, req.body.size(), false);
    return bad_request(res, s.message());
  }

  std::string_view encoding = base::trim(req.header("content-encoding"));
  std::string decoded;
  std::string_view text = req.body;
  if (base::iequals(encoding, "gzip")) {
    auto d = ingest::gunzip(req.body, opts_.max_decoded_bytes);
    if (!d) {
      finish(none, req.body.size(), false);
      return bad_request(res, "cannot decode the gzip body: " + d.error());
    }
    decoded = std::move(*d);
    text = decoded;
  } else if (!encoding.empty() && !base::iequals(encoding, "identity")) {
    finish(none, req.body.size(), false);
    return bad_request(res, "unsupported Content-Encoding \"" + std::string(encoding) + "\": send gzip or plain text");
  }

  auto r = ingest::import_prometheus_text(storage_, text, io);
  if (!r) {  // only invalid options, checked above
    finish(none, req.body.size(), false);
    return bad_request(res, r.error());
  }
  const ingest::ImportStats& st = *r;
  const bool all_invalid = st.samples_parsed == 0 && st.invalid_lines > 0;
  finish(st, req.body.size(), !all_invalid);

  std::string first_errors;
  for (const ingest::ImportIssue& e : st.parse_errors) first_errors += e.to_string() + "\n";
  if (all_invalid) {
    return bad_request(
        res, "no valid sample line: " + std::to_string(st.invalid_lines) + " invalid line(s); first:\n" + first_errors);
  }
  if (st.invalid_lines > 0 || st.rejected() > 0) {
    std::string first = !st.parse_errors.empty() ? st.parse_errors[0].to_string()
                        : !st.rejections.empty() ? st.rejections[0].to_string()
                                                 : std::string();
    log_.warn("import: some samples were not stored", {{"summary", st.summary()}, {"first_problem", first}});
  }
  // VictoriaMetrics answers 204; the outcome travels in a header for clients that care.
  res.status = 204;
  res.headers.emplace_back("X-Llmon-Import", st.summary());
}

Expected<std::shared_ptr<ImportRoute>> register_import_route(http::Server& server, storage::Storage& storage,
                                                             const base::Clock& clock, base::Logger& log,
                                                             ImportRouteOptions options) {
  auto route = std::make_shared<ImportRoute>(storage, clock, log, std::move(options));
  Status s = server.add_route(
      route->options().path, {"POST"},
      [route](const http::Request& req, http::Response& res) { route->handle(req, res); },
      route->options().max_body_bytes);
  if (!s) return s;
  return route;
}

}  // namespace llmon::api
