// `llmon alerts` against a running agent, for people on the node:
//   llmon alerts [--url=URL]                         active alerts (/api/v1/alerts)
//   llmon alerts silence add [amtool flags] MATCHER...  POST /api/v2/silences
//   llmon alerts silence list [--url=URL]            GET /api/v2/silences
//   llmon alerts silence expire ID... [--url=URL]    DELETE /api/v2/silence/ID
// The arguments of `silence add` are amtool's (notify/silence_args.h), so it
// reads them itself rather than through the flag table; --url (default: the
// agent on --web.listen-address's default, http://127.0.0.1:8747) may appear
// anywhere. Exit 0 ok, 1 the agent refused, 2 usage or connection error.
#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/agent_client.h"
#include "app/commands.h"
#include "base/clock.h"
#include "net/http_client.h"
#include "notify/silences/silence_args.h"
#include "notify/silences/silence_json.h"

namespace llmon::app {

namespace {

std::string user_name() {
  if (const passwd* pw = getpwuid(geteuid()); pw && pw->pw_name) return pw->pw_name;
  return "llmon";
}

struct Call {
  int status = 0;
  std::string body;
};

Expected<Call> call(const std::string& base, const std::string& http_config, std::string_view method,
                    const std::string& path, std::string body) {
  auto url = net::http::parse_url(base + path);
  if (!url) return Status::error(url.error());
  net::http::ClientOptions o;
  if (Status st = apply_http_config_file(http_config, o); !st) return st;
  o.timeout_ms = 10000;
  o.max_response_body_bytes = 64 << 20;
  net::http::Client client(o);
  auto r = client.request(method, *url, body.empty() ? std::string_view{} : "application/json", body);
  if (!r) return Status::error(r.error());
  return Call{r->status, r->body};
}

std::string postable_silence_json(const notify::Silence& s) {
  nlohmann::json j;
  j["matchers"] = nlohmann::json::array();
  for (const auto& m : s.matchers)
    j["matchers"].push_back(
        {{"name", m.name()}, {"value", m.value()}, {"isRegex", m.is_regex()}, {"isEqual", m.is_equal()}});
  j["startsAt"] = notify::silence_time_string(s.starts_at_ms);
  j["endsAt"] = notify::silence_time_string(s.ends_at_ms);
  j["createdBy"] = s.created_by;
  j["comment"] = s.comment;
  return j.dump();
}

int print_alerts(const std::string& body, std::FILE* out, std::FILE* err) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.contains("data")) {
    std::fprintf(err, "llmon alerts: unexpected answer: %.200s\n", body.c_str());
    return 1;
  }
  const auto& alerts = j["data"]["alerts"];
  if (alerts.empty()) std::fprintf(out, "no pending or firing alerts\n");
  for (const auto& a : alerts) {
    std::string labels;
    for (const auto& [k, v] : a["labels"].items())
      if (k != "alertname") labels += (labels.empty() ? "" : ", ") + k + "=" + v.get<std::string>();
    std::fprintf(out, "%-8s %-32s since %s  value %s  {%s}\n", a.value("state", "").c_str(),
                 a["labels"].value("alertname", "").c_str(), a.value("activeAt", "").c_str(),
                 a.value("value", "").c_str(), labels.c_str());
    if (a.contains("annotations") && a["annotations"].contains("summary"))
      std::fprintf(out, "         %s\n", a["annotations"]["summary"].get<std::string>().c_str());
  }
  return 0;
}

int print_silences(const std::string& body, std::FILE* out, std::FILE* err) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    std::fprintf(err, "llmon alerts silence list: unexpected answer: %.200s\n", body.c_str());
    return 1;
  }
  std::fprintf(out, "%-36s  %-8s  %-24s  %-12s  %s\n", "ID", "STATE", "ENDS AT", "CREATED BY", "MATCHERS / COMMENT");
  for (const auto& s : j) {
    std::string matchers;
    for (const auto& m : s["matchers"]) {
      std::string op = m.value("isEqual", true) ? (m.value("isRegex", false) ? "=~" : "=")
                                                : (m.value("isRegex", false) ? "!~" : "!=");
      matchers += (matchers.empty() ? "" : " ") + m.value("name", "") + op + "\"" + m.value("value", "") + "\"";
    }
    std::fprintf(out, "%-36s  %-8s  %-24s  %-12s  %s  %s\n", s.value("id", "").c_str(),
                 s.contains("status") ? s["status"].value("state", "").c_str() : "",
                 s.value("endsAt", "").c_str(), s.value("createdBy", "").c_str(), matchers.c_str(),
                 s.value("comment", "").c_str());
  }
  return 0;
}

}  // namespace

int run_alerts(const std::vector<std::string>& raw, std::FILE* out, std::FILE* err) {
  std::string base = "http://127.0.0.1:8747";
  std::string http_config;  // --http.config.file
  std::vector<std::string> args;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i].rfind("--url=", 0) == 0) {
      base = raw[i].substr(6);
    } else if (raw[i] == "--url" && i + 1 < raw.size()) {
      base = raw[++i];
    } else if (raw[i].rfind("--http.config.file=", 0) == 0) {
      http_config = raw[i].substr(19);
    } else if (raw[i] == "--http.config.file" && i + 1 < raw.size()) {
      http_config = raw[++i];
    } else {
      args.push_back(raw[i]);
    }
  }
  while (!base.empty() && base.back() == '/') base.pop_back();
  auto fail = [&](const std::string& what, const Status& st) {
    std::fprintf(err, "llmon alerts: %s: %s\n", what.c_str(), st.message().c_str());
    return 2;
  };
  auto refused = [&](const Call& c) {
    std::fprintf(err, "llmon alerts: the agent answered %d: %.400s\n", c.status, c.body.c_str());
    return 1;
  };
  if (args.empty()) {
    auto c = call(base, http_config, "GET", "/api/v1/alerts", "");
    if (!c) return fail(base, c.status());
    if (c->status != 200) return refused(*c);
    return print_alerts(c->body, out, err);
  }
  if (args[0] != "silence" || args.size() < 2) {
    std::fprintf(err,
                 "usage: llmon alerts [--url=URL] [--http.config.file=FILE]\n"
                 "       llmon alerts silence add [--duration=1h] [--comment=TEXT] [--author=NAME] MATCHER...\n"
                 "       llmon alerts silence list | expire ID...\n");
    return 2;
  }
  const std::string& sub = args[1];
  std::vector<std::string> rest(args.begin() + 2, args.end());
  if (sub == "add") {
    base::SystemClock clock;
    auto s = notify::parse_silence_add_args(rest, clock.now_ms(), user_name());
    if (!s) {
      std::fprintf(err, "llmon alerts silence add: %s\n", s.error().c_str());
      return 2;
    }
    auto c = call(base, http_config, "POST", "/api/v2/silences", postable_silence_json(*s));
    if (!c) return fail(base, c.status());
    if (c->status != 200) return refused(*c);
    auto j = nlohmann::json::parse(c->body, nullptr, false);
    std::fprintf(out, "%s\n", j.is_object() ? j.value("silenceID", "").c_str() : c->body.c_str());
    return 0;
  }
  if (sub == "list" || sub == "query") {
    auto c = call(base, http_config, "GET", "/api/v2/silences", "");
    if (!c) return fail(base, c.status());
    if (c->status != 200) return refused(*c);
    return print_silences(c->body, out, err);
  }
  if (sub == "expire" && !rest.empty()) {
    int rc = 0;
    for (const auto& id : rest) {
      auto c = call(base, http_config, "DELETE", "/api/v2/silence/" + id, "");
      if (!c) return fail(base, c.status());
      if (c->status != 200) rc = refused(*c);
    }
    return rc;
  }
  std::fprintf(err, "llmon alerts silence: unknown or incomplete subcommand \"%s\"\n", sub.c_str());
  return 2;
}

}  // namespace llmon::app
