// `llmon trace capture [--pid=P | --job=J | --gpu=N] [--duration-ms=N |
// --iterations=N] [--trace.capture-timeout=60s] [--url=URL] [--json]`
// (docs/trace.md#capture): asks the running agent (POST
// /api/v1/trace/capture) to capture a trace from the matching Kineto
// processes, waits for the answer and prints, per trace, its .json.gz and
// the headline numbers of the analysis; on failure, the agent's message
// (which processes are registered, which matched, the file awaited).
// Exit codes: 0 every matched process gave a trace, 1 a capture failed,
// 2 usage or connection errors.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "app/agent_client.h"
#include "app/commands.h"
#include "config/flag_names.h"
#include "net/api_client.h"
#include "net/http_client.h"

namespace llmon::app {

int run_trace_capture(const config::Settings& s, std::FILE* out, std::FILE* err) {
  auto usage = [err](const std::string& why) {
    std::fprintf(err,
                 "llmon trace capture: %s\n"
                 "usage: llmon trace capture [--pid=P | --job=J | --gpu=N] [--duration-ms=500 | --iterations=N] "
                 "[--trace.capture-timeout=60s] [--url=http://HOST:PORT] [--json]\n",
                 why.c_str());
    return 2;
  };
  if (s.positional.size() != 1) return usage("capture takes no arguments");
  nlohmann::json body = nlohmann::json::object();
  if (s.get(config::flag::kPid) >= 0) body["pid"] = s.get(config::flag::kPid);
  if (s.get(config::flag::kJob) >= 0) body["job_id"] = s.get(config::flag::kJob);
  if (s.get(config::flag::kGpu) >= 0) body["gpu"] = s.get(config::flag::kGpu);
  int64_t dur = s.get(config::flag::kDurationMs), it = s.get(config::flag::kIterations);
  int64_t timeout = s.get(config::flag::kTraceCaptureTimeout);
  if (dur <= 0) return usage("--duration-ms must be positive");
  if (it < 0) return usage("--iterations must be 0 or more");
  body["duration_ms"] = dur;
  body["iterations"] = it;
  body["timeout_ms"] = timeout;
  std::string base = s.get(config::flag::kUrl);
  if (base.empty()) base = net::url_for_listen_address(s.get(config::flag::kWebListenAddress));
  if (base.find("://") == std::string::npos) base = "http://" + base;
  auto url = net::http::parse_url(base + "/api/v1/trace/capture");
  if (!url) return usage(url.error());
  net::http::ClientOptions o;
  if (Status st = apply_http_config_file(s.get(config::flag::kHttpConfigFile), o); !st) return usage(st.message());
  // The agent waits up to 15 s for the pickup, then the duration and the timeout.
  o.timeout_ms = static_cast<int>(15'000 + dur + timeout + 30'000);
  o.max_response_body_bytes = 64 << 20;
  net::http::Client client(o);
  auto r = client.request("POST", *url, "application/json", body.dump());
  if (!r) {
    std::fprintf(err, "llmon trace capture: %s (is `llmon agent --trace.capture-dir=DIR` running there? set --url)\n",
                 r.error().c_str());
    return 2;
  }
  nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("status")) {
    std::fprintf(err, "llmon trace capture: unexpected answer (HTTP %d): %.300s%s\n", r->status, r->body.c_str(),
                 r->status == 404 ? " (the agent runs without --trace.capture-dir)" : "");
    return 2;
  }
  if (s.get(config::flag::kJson)) {
    std::fprintf(out, "%s\n", r->body.c_str());
    return j["status"] == "success" ? 0 : 1;
  }
  const nlohmann::json& d = j.contains("data") ? j["data"] : nlohmann::json::object();
  if (d.contains("traces"))
    for (const auto& t : d["traces"]) {
      if (t.value("error", std::string()).empty())
        std::fprintf(out, "pid %d: %s\n  %s\n", t.value("pid", 0), t.value("path", std::string()).c_str(),
                     t.value("headline", std::string()).c_str());
      else
        std::fprintf(out, "pid %d: no trace\n", t.value("pid", 0));
    }
  if (j["status"] != "success") {
    std::fprintf(err, "llmon trace capture: %s\n", j.value("error", std::string("error")).c_str());
    return 1;
  }
  return 0;
}

}  // namespace llmon::app
