// `llmon query EXPR [--time=T] [--start=T --end=T --step=D] [--json] [--url=URL]`:
// asks a running agent's Prometheus API (docs/api.md) with one GET and prints
// the answer as a table (api_text.h) or, with --json, as received.
// Exit codes: 0 success, 1 the query failed (errorType and error printed),
// 2 usage, connection or protocol errors. The expression travels URL-encoded
// in the request; nothing here runs a shell.
#include <cstdio>
#include <string>

#include "app/agent_client.h"
#include "app/commands.h"
#include "net/api_client.h"
#include "summary/query_text.h"

namespace llmon::app {

namespace {

// The server's query timeout is 2 m by default; wait a little longer so its
// own timeout error, not ours, reaches the user.
constexpr int kTimeoutMs = 130'000;

int usage(std::FILE* err, const std::string& why) {
  std::fprintf(
      err,
      "llmon query: %s\n"
      "usage: llmon query 'EXPR' [--time=T] | [--start=T --end=T --step=D]  [--json] [--url=http[s]://HOST:PORT]\n"
      "       [--http.config.file=FILE]\n",
      why.c_str());
  return 2;
}

}  // namespace

int run_query(const config::Settings& s, std::FILE* out, std::FILE* err) {
  if (s.positional.empty()) return usage(err, "missing the PromQL expression");
  if (s.positional.size() > 1)
    return usage(err, "expected one expression, got " + std::to_string(s.positional.size()) +
                          " arguments (quote the expression: llmon query 'sum by (job) (up)')");
  const std::string& expr = s.positional[0];
  const std::string& start = s.get(config::flag::kStart);
  const std::string& end = s.get(config::flag::kEnd);
  const std::string& step = s.get(config::flag::kStep);
  const std::string& time = s.get(config::flag::kTime);
  const bool range = !start.empty() || !end.empty() || !step.empty();
  if (range && (start.empty() || end.empty() || step.empty()))
    return usage(err, "a range query needs all of --start, --end and --step");
  if (range && !time.empty())
    return usage(err, "--time is for instant queries; a range query takes --start/--end/--step");

  auto url = agent_url(s);
  if (!url) return usage(err, url.error());

  std::string target = range ? "/api/v1/query_range?query=" : "/api/v1/query?query=";
  target += net::url_encode(expr);
  if (range) {
    target += "&start=" + net::url_encode(start) + "&end=" + net::url_encode(end) + "&step=" + net::url_encode(step);
  } else if (!time.empty()) {
    target += "&time=" + net::url_encode(time);
  }
  auto res = net::http_get(*url, target, kTimeoutMs);
  if (!res) {
    std::fprintf(err, "llmon query: %s (is `llmon agent` running there? set --url or --web.listen-address)\n",
                 res.error().c_str());
    return 2;
  }
  auto answer = summary::render_answer(res->body);
  if (!answer) {
    std::string body = res->body.substr(0, 200);
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
    std::fprintf(err, "llmon query: unexpected answer from %s (HTTP %d): %s: %s\n", net::url_text(*url).c_str(),
                 res->status, answer.error().c_str(), body.c_str());
    return 2;
  }
  if (s.get(config::flag::kJson)) {
    std::fwrite(res->body.data(), 1, res->body.size(), out);
    if (res->body.empty() || res->body.back() != '\n') std::fputc('\n', out);
    return answer->success ? 0 : 1;
  }
  for (const auto& w : answer->warnings) std::fprintf(err, "warning: %s\n", w.c_str());
  for (const auto& i : answer->infos) std::fprintf(err, "info: %s\n", i.c_str());
  if (!answer->success) {
    std::fprintf(err, "llmon query: %s: %s\n", answer->error_type.c_str(), answer->error.c_str());
    return 1;
  }
  if (answer->text.empty()) std::fprintf(err, "(empty result)\n");
  std::fwrite(answer->text.data(), 1, answer->text.size(), out);
  return 0;
}

}  // namespace llmon::app
