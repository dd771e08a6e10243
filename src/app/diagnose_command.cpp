// `llmon diagnose [--window=15m] [--time=T] [--json] [--url=URL | --storage.path=DIR]`
// (docs/diagnosis.md): with --url, asks a running agent's /api/v1/diagnosis;
// otherwise opens --storage.path read-only (an agent may be writing it) and
// diagnoses it here. Exit codes: 0 healthy, 1 findings of warning or worse,
// 2 usage, connection or store errors.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "api/params.h"
#include "app/agent_client.h"
#include "app/commands.h"
#include "app/storage_setup.h"
#include "base/file_reader.h"
#include "base/log.h"
#include "base/strings.h"
#include "diagnose/anomaly_cite.h"
#include "diagnose/diagnose.h"
#include "diagnose/explain.h"
#include "diagnose/report.h"
#include "net/api_client.h"
#include "net/http_client.h"
#include "promql/engine.h"
#include "tsdb/db.h"

namespace llmon::app {

namespace {

int usage(std::FILE* err, const std::string& why) {
  std::fprintf(err,
               "llmon diagnose: %s\n"
               "usage: llmon diagnose [--window=15m] [--time=T] [--json] [--diagnose.selector=M] "
               "[--url=http://HOST:PORT | --storage.path=DIR] [--explain --diagnose.llm.url=URL]\n",
               why.c_str());
  return 2;
}

// --explain: the model's prose, or an error naming the server and why.
Expected<std::pair<std::string, std::string>> explain(const config::Settings& s, const diagnose::Diagnosis& d) {
  const std::string base = s.get(config::flag::kDiagnoseLlmUrl);
  net::http::ClientOptions o;
  o.timeout_ms = 180'000;
  o.max_response_body_bytes = 1 << 20;
  o.user_agent = std::string("llmon/") + kVersion;
  if (const auto& f = s.get(config::flag::kDiagnoseLlmApiKeyFile); !f.empty()) {
    std::string key;
    if (Status st = base::read_file(f, key); !st) return Status::error("--diagnose.llm.api-key-file: " + st.message());
    o.bearer_token = std::string(base::trim(key));
  }
  net::http::Client client(o);
  std::string model = s.get(config::flag::kDiagnoseLlmModel);
  if (model.empty()) {
    auto u = net::http::parse_url(diagnose::models_url(base));
    if (!u) return Status::error("--diagnose.llm.url: " + u.error());
    auto r = client.get(*u);
    if (!r) return r.status();
    if (r->status != 200)
      return Status::error("GET " + diagnose::models_url(base) + ": HTTP " + std::to_string(r->status));
    auto m = diagnose::first_model(r->body);
    if (!m) return m.status();
    model = *m;
  }
  const std::string target = diagnose::chat_completions_url(base);
  auto u = net::http::parse_url(target);
  if (!u) return Status::error("--diagnose.llm.url: " + u.error());
  auto r = client.post(*u, "application/json", diagnose::explain_request(d, model));
  if (!r) return r.status();
  auto text = diagnose::explain_answer(r->body);
  if (r->status != 200)
    return Status::error("POST " + target + ": HTTP " + std::to_string(r->status) + (text ? "" : ": " + text.error()));
  if (!text) return Status::error("POST " + target + ": " + text.error());
  return std::make_pair(model, *text);
}

// Prints the report (and, with --explain, the model's explanation); the exit
// code: 1 when a finding is warning or worse. A failed explanation is
// reported on stderr and does not change the code: the findings stand.
int print(const config::Settings& s, const diagnose::Diagnosis& d, std::FILE* out, std::FILE* err) {
  std::optional<std::pair<std::string, std::string>> explained;
  if (s.get(config::flag::kExplain)) {
    auto e = explain(s, d);
    if (e)
      explained = std::move(*e);
    else
      std::fprintf(err, "llmon diagnose: --explain: %s\n", e.error().c_str());
  }
  std::string text;
  if (s.get(config::flag::kJson)) {
    text = diagnose::format_json(d);
    if (explained) {
      auto j = nlohmann::json::parse(text);
      j["explanation"] = {{"model", explained->first},
                          {"url", diagnose::chat_completions_url(s.get(config::flag::kDiagnoseLlmUrl))},
                          {"text", explained->second}};
      text = j.dump(2) + "\n";
    }
  } else {
    text = diagnose::format_text(d);
    if (explained) {
      text += "\nEXPLANATION  by " + explained->first + " at " + s.get(config::flag::kDiagnoseLlmUrl) +
              " (generated text: check it against the evidence above)\n\n" + explained->second;
      if (text.back() != '\n') text += '\n';
    }
  }
  std::fwrite(text.data(), 1, text.size(), out);
  for (const auto& f : d.findings)
    if (f.severity != diagnose::Severity::kInfo) return 1;
  return 0;
}

int from_agent(const config::Settings& s, std::FILE* out, std::FILE* err) {
  auto url = agent_url(s);
  if (!url) return usage(err, url.error());
  std::string target = "/api/v1/diagnosis?window=" + std::to_string(s.get(config::flag::kWindow) / 1000) + "s";
  if (const auto& t = s.get(config::flag::kTime); !t.empty()) target += "&time=" + net::url_encode(t);
  if (const auto& m = s.get(config::flag::kDiagnoseSelector); !m.empty()) target += "&selector=" + net::url_encode(m);
  auto res = net::http_get(*url, target, 130'000);
  if (!res) {
    std::fprintf(err, "llmon diagnose: %s (is `llmon agent` running there?)\n", res.error().c_str());
    return 2;
  }
  if (res->status != 200) {
    std::fprintf(err, "llmon diagnose: HTTP %d: %s\n", res->status, res->body.substr(0, 300).c_str());
    return 2;
  }
  auto d = diagnose::parse_json(res->body);
  if (!d) {
    std::fprintf(err, "llmon diagnose: unexpected answer: %s\n", d.error().c_str());
    return 2;
  }
  return print(s, *d, out, err);
}

}  // namespace

int run_diagnose(const config::Settings& s, std::FILE* out, std::FILE* err) {
  if (!s.positional.empty()) return usage(err, "unexpected argument \"" + s.positional[0] + "\"");
  if (s.get(config::flag::kExplain) && s.get(config::flag::kDiagnoseLlmUrl).empty())
    return usage(err, "--explain needs --diagnose.llm.url (an OpenAI-compatible server; nothing is sent otherwise)");
  if (!s.get(config::flag::kUrl).empty()) return from_agent(s, out, err);
  auto prices = diagnose::parse_gpu_prices(s.get(config::flag::kDiagnoseGpuPrice));
  if (!prices) return usage(err, prices.error());
  base::Logger log(base::LogLevel::kError, err);
  base::SystemClock clock;
  tsdb::DbOptions o = db_options(s);
  o.read_only = true;
  auto db = tsdb::Db::open(o, log, clock);
  if (!db) {
    std::fprintf(err, "llmon diagnose: %s\n", db.error().c_str());
    return 2;
  }
  diagnose::Options d;
  d.t_ms = clock.now_ms();
  if (const auto& t = s.get(config::flag::kTime); !t.empty()) {
    auto parsed = api::parse_time_ms(t);
    if (!parsed) return usage(err, "--time: " + parsed.error());
    d.t_ms = *parsed;
  }
  d.window_ms = s.get(config::flag::kWindow);
  if (d.window_ms <= 0) return usage(err, "--window must be positive");
  d.selector = s.get(config::flag::kDiagnoseSelector);
  d.gpu_price = std::move(*prices);
  promql::Engine engine(**db, promql::EngineOptions{});
  diagnose::EngineSource source(engine);
  diagnose::Diagnosis result = diagnose::run(source, d);
  diagnose::cite_anomalies(result, engine);
  return print(s, result, out, err);
}

}  // namespace llmon::app
