// `llmon events [--start=T] [--end=T] [--rule=NAME] [--severity=MIN]
// [--source=GLOB] [--limit=N] [--json] [--url=URL | --events.path=DIR]`:
// the log watcher's events, newest first. It asks a running agent's
// /api/v1/events (--url, or the --web.listen-address URL); with --events.path
// it reads that journal directory itself, read-only (an agent may be writing
// it). Text: one line per event (time, severity, rule, repeat, source,
// labels) and its log lines indented; --json: the API's answer.
// Exit codes: 0 success (also with no events), 2 usage, connection or read errors.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "api/json.h"
#include "api/params.h"
#include "app/agent_client.h"
#include "app/commands.h"
#include "app/logwatch_setup.h"
#include "go/json.h"
#include "logwatch/event_journal.h"
#include "logwatch/event_json.h"
#include "net/api_client.h"

namespace llmon::app {

namespace {

constexpr int kTimeoutMs = 30'000;

int usage(std::FILE* err, const std::string& why) {
  std::fprintf(err,
               "llmon events: %s\n"
               "usage: llmon events [--start=T] [--end=T] [--rule=NAME] [--severity=MIN] [--source=GLOB] "
               "[--limit=N] [--json] [--url=http://HOST:PORT | --events.path=DIR]\n",
               why.c_str());
  return 2;
}

void print_text(const std::vector<logwatch::Event>& events, std::FILE* out) {
  if (events.empty()) {
    std::fprintf(out, "(no events)\n");
    return;
  }
  for (const logwatch::Event& e : events) {
    std::string labels;
    for (const auto& [k, v] : e.labels) labels += (labels.empty() ? "" : ",") + k + "=" + v;
    std::string repeat = e.repeat > 1 ? " x" + std::to_string(e.repeat) : "";
    std::fprintf(out, "%s  %-8s  %s%s  %s%s%s\n", go::json::strfmt_millis(e.time_ms).c_str(),
                 logwatch::severity_name(e.severity), e.rule.c_str(), repeat.c_str(), e.source.c_str(),
                 labels.empty() ? "" : "  ", labels.c_str());
    for (const std::string& l : e.lines) std::fprintf(out, "    %s\n", l.c_str());
  }
}

}  // namespace

int run_events(const config::Settings& s, std::FILE* out, std::FILE* err) {
  if (!s.positional.empty()) return usage(err, "unexpected argument \"" + s.positional[0] + "\"");
  const std::string& start = s.get(config::flag::kStart);
  const std::string& end = s.get(config::flag::kEnd);
  const std::string& rule = s.get(config::flag::kRule);
  const std::string& severity = s.get(config::flag::kSeverity);
  const std::string& source = s.get(config::flag::kSource);
  const int64_t limit = s.get(config::flag::kLimit);
  if (limit <= 0) return usage(err, "--limit must be a positive integer");
  logwatch::Severity sev{};
  if (!severity.empty() && !logwatch::parse_severity(severity, sev))
    return usage(err, "--severity: \"" + severity + "\" is not info, warning, error or critical");

  std::vector<logwatch::Event> events;
  std::string json_answer;
  if (!s.is_default(config::flag::kEventsPath)) {
    logwatch::EventQuery q;
    for (auto [flag, text, dst] : {std::tuple{"--start", &start, &q.start_ms}, {"--end", &end, &q.end_ms}}) {
      if (text->empty()) continue;
      auto t = api::parse_time_ms(*text);
      if (!t) return usage(err, std::string(flag) + ": " + t.error());
      *dst = *t;
    }
    q.rule = rule;
    q.source = source;
    if (!severity.empty()) q.min_severity = sev;
    q.limit = static_cast<size_t>(limit);
    auto got = logwatch::query_events(events_dir(s), q);
    if (!got) {
      std::fprintf(err, "llmon events: %s\n", got.error().c_str());
      return 2;
    }
    events = std::move(*got);
    if (s.get(config::flag::kJson)) {
      std::string data = "{\"events\":[";
      for (size_t i = 0; i < events.size(); ++i) data += (i ? "," : "") + logwatch::encode_event(events[i], true);
      json_answer = api::success_envelope(data + "]}");
    }
  } else {
    auto url = agent_url(s);
    if (!url) return usage(err, url.error());
    std::string target = "/api/v1/events?limit=" + std::to_string(limit);
    for (auto [name, value] :
         {std::pair{"start", &start}, {"end", &end}, {"rule", &rule}, {"severity", &severity}, {"source", &source}}) {
      if (!value->empty()) target += std::string("&") + name + "=" + net::url_encode(*value);
    }
    auto res = net::http_get(*url, target, kTimeoutMs);
    if (!res) {
      std::fprintf(err, "llmon events: %s (is `llmon agent` running there? set --url or --events.path)\n",
                   res.error().c_str());
      return 2;
    }
    nlohmann::json j = nlohmann::json::parse(res->body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("status")) {
      std::fprintf(err, "llmon events: unexpected answer from %s (HTTP %d)\n", net::url_text(*url).c_str(),
                   res->status);
      return 2;
    }
    if (j["status"] != "success") {
      std::fprintf(err, "llmon events: %s\n", j.value("error", std::string("error")).c_str());
      return 2;
    }
    json_answer = res->body;
    for (const auto& e : j["data"]["events"]) {
      auto ev = logwatch::decode_event(e.dump());
      if (!ev) {
        std::fprintf(err, "llmon events: an event of the answer: %s\n", ev.error().c_str());
        return 2;
      }
      events.push_back(std::move(*ev));
    }
  }
  if (s.get(config::flag::kJson)) {
    std::fwrite(json_answer.data(), 1, json_answer.size(), out);
    if (json_answer.empty() || json_answer.back() != '\n') std::fputc('\n', out);
    return 0;
  }
  print_text(events, out);
  return 0;
}

}  // namespace llmon::app
