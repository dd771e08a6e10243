#include "api/datasource_proxy.h"

#include <memory>
#include <nlohmann/json.hpp>

#include "api/json.h"
#include "api/params.h"
#include "net/api_client.h"
#include "net/http_client.h"
#include "promql/parser.h"

namespace llmon::api {
namespace {

constexpr std::string_view kPrefix = "/ui/datasource";

void scope(promql::Expr& e, std::string_view label, std::string_view value);

void scope_ptr(promql::ExprPtr& p, std::string_view label, std::string_view value) {
  if (p) scope(*p, label, value);
}

void scope(promql::Expr& e, std::string_view label, std::string_view value) {
  std::visit(
      [&](auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, promql::VectorSelector>) {
          std::erase_if(n.matchers, [&](const model::Matcher& m) { return m.name == label; });
          n.matchers.push_back({model::Matcher::Type::kEq, std::string(label), std::string(value)});
        } else if constexpr (std::is_same_v<T, promql::MatrixSelector>) {
          scope_ptr(n.selector, label, value);
        } else if constexpr (std::is_same_v<T, promql::SubqueryExpr> || std::is_same_v<T, promql::ParenExpr> ||
                             std::is_same_v<T, promql::UnaryExpr>) {
          scope_ptr(n.expr, label, value);
        } else if constexpr (std::is_same_v<T, promql::BinaryExpr>) {
          scope_ptr(n.lhs, label, value);
          scope_ptr(n.rhs, label, value);
        } else if constexpr (std::is_same_v<T, promql::AggregateExpr>) {
          scope_ptr(n.expr, label, value);
          scope_ptr(n.param, label, value);
        } else if constexpr (std::is_same_v<T, promql::Call>) {
          for (auto& a : n.args) scope_ptr(a, label, value);
        }
      },
      e.node);
}

void fail(http::Response& res, int status, promql::ErrorType type, const std::string& why) {
  res.status = status;
  res.content_type = "application/json";
  res.body = error_envelope(type, why);
}

std::string form_encode(const Pairs& pairs) {
  std::string out;
  for (const auto& [k, v] : pairs) out += (out.empty() ? "" : "&") + net::url_encode(k) + "=" + net::url_encode(v);
  return out;
}

class Proxy {
 public:
  explicit Proxy(DatasourceOptions o) : opts_(std::move(o)) {
    while (!opts_.url.empty() && opts_.url.back() == '/') opts_.url.pop_back();
    opts_.client.timeout_ms = 60'000;
    opts_.client.connect_timeout_ms = 5'000;
    opts_.client.max_response_body_bytes = size_t{256} << 20;
    opts_.client.only_configured_families = false;
    opts_.client.headers.push_back({"Accept", "application/json"});
    client_ = std::make_unique<net::http::Client>(opts_.client);
  }

  // path: "/api/v1/query" (after the prefix); query-like: scope `query` and match[].
  void forward(const http::Request& req, http::Response& res, const std::string& path) const {
    auto form = parse_form(req.method, req.header("content-type"), req.query, req.body);
    if (!form) return fail(res, 400, promql::ErrorType::kBadData, form.error());
    Pairs out;
    std::string node;
    bool has_match = false;
    for (const auto& [k, v] : form->values)
      if (k == "node") node = v;
    for (const auto& [k, v] : form->values) {
      if (k == "node") continue;
      if (!node.empty() && (k == "query" || k == "match[]")) {
        auto scoped = scope_query(v, opts_.node_label, node);
        if (!scoped) return fail(res, 400, promql::ErrorType::kBadData, scoped.error());
        out.emplace_back(k, *scoped);
        has_match |= k == "match[]";
      } else {
        out.emplace_back(k, v);
      }
    }
    const bool label_call = path == "/api/v1/labels" || path.ends_with("/values");
    if (!node.empty() && label_call && !has_match)
      out.emplace_back("match[]", "{" + opts_.node_label + "=" + quote(node) + "}");
    send(res, path, out);
  }

  void nodes(http::Response& res) const {
    Pairs q = {{"match[]", "node_uname_info"}, {"match[]", "DCGM_FI_DEV_GPU_UTIL"}, {"match[]", "llmon_gpu_up"}};
    http::Response up;
    send(up, "/api/v1/label/" + net::url_encode(opts_.node_label) + "/values", q);
    if (up.status != 200) {
      res = std::move(up);
      return;
    }
    auto j = nlohmann::json::parse(up.body, nullptr, false);
    if (j.is_discarded() || !j.contains("data") || !j["data"].is_array())
      return fail(res, 502, promql::ErrorType::kUnavailable, opts_.url + ": unexpected answer to label values");
    nlohmann::json data = {{"label", opts_.node_label}, {"url", opts_.url}, {"nodes", j["data"]}};
    res.content_type = "application/json";
    res.body = success_envelope(data.dump());
  }

 private:
  static std::string quote(const std::string& v) { return nlohmann::json(v).dump(); }  // a PromQL "" string

  void send(http::Response& res, const std::string& path, const Pairs& form) const {
    // Label values take GET only (Prometheus's router); the rest a form POST,
    // as long queries need.
    const bool get = path.ends_with("/values");
    auto url = net::http::parse_url(opts_.url + path + (get && !form.empty() ? "?" + form_encode(form) : ""));
    if (!url) return fail(res, 500, promql::ErrorType::kInternal, "--ui.datasource: " + url.error());
    auto r = get ? client_->get(*url) : client_->post(*url, "application/x-www-form-urlencoded", form_encode(form));
    if (!r) return fail(res, 502, promql::ErrorType::kUnavailable, "data source " + r.error());
    res.status = r->status;
    std::string ct(r->header("content-type"));
    res.content_type = ct.empty() ? "application/json" : ct;
    res.body = std::move(r->body);
  }

  DatasourceOptions opts_;
  std::unique_ptr<net::http::Client> client_;
};

}  // namespace

Expected<std::string> scope_query(std::string_view query, std::string_view label, std::string_view value) {
  auto parsed = promql::parse(query);
  if (!parsed.expr) return Status::error(parsed.error.to_string(query));
  scope(*parsed.expr, label, value);
  return promql::format(*parsed.expr);
}

Status register_datasource_routes(http::Server& server, DatasourceOptions opts) {
  auto proxy = std::make_shared<const Proxy>(std::move(opts));
  for (std::string_view p : {"/api/v1/query", "/api/v1/query_range", "/api/v1/series", "/api/v1/labels"}) {
    const std::string path(p);
    if (Status st = server.add_route(
            std::string(kPrefix) + path, {"GET", "POST"},
            [proxy, path](const http::Request& req, http::Response& res) { proxy->forward(req, res, path); }, 1 << 20);
        !st)
      return st;
  }
  if (Status st = server.add_route(std::string(kPrefix) + "/api/v1/label/*", {"GET"},
                                   [proxy](const http::Request& req, http::Response& res) {
                                     std::string path = req.path.substr(kPrefix.size());
                                     if (!path.ends_with("/values"))
                                       return fail(res, 404, promql::ErrorType::kBadData, "not found");
                                     proxy->forward(req, res, path);
                                   });
      !st)
    return st;
  return server.add_route(std::string(kPrefix) + "/nodes", {"GET"},
                          [proxy](const http::Request&, http::Response& res) { proxy->nodes(res); });
}

}  // namespace llmon::api
