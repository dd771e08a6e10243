// `llmon health [--json] [--url=URL]`: each GPU's health verdict from a
// running agent (/api/v1/health): state, recommended action, and the
// evidence, strongest first. `llmon health set-healthy GPU [--url=URL]`:
// the operator's "repaired" for GPU (index, UUID or PCI address), POST
// /api/v1/health/set-healthy. Exit codes: 0 every GPU healthy (or the
// override taken), 1 a GPU degraded or unhealthy (or the agent refused),
// 2 usage or connection errors.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "app/agent_client.h"
#include "app/commands.h"
#include "net/api_client.h"
#include "net/http_client.h"

namespace llmon::app {

namespace {

int usage(std::FILE* err, const std::string& why) {
  std::fprintf(err,
               "llmon health: %s\n"
               "usage: llmon health [--json] [--url=http://HOST:PORT]\n"
               "       llmon health set-healthy GPU [--url=http://HOST:PORT]   (GPU: index, UUID or PCI address)\n",
               why.c_str());
  return 2;
}

int print_text(const nlohmann::json& data, std::FILE* out) {
  int rc = 0;
  const auto& gpus = data["gpus"];
  if (gpus.empty()) std::fprintf(out, "no GPUs\n");
  for (const auto& g : gpus) {
    std::string state = g.value("state", "");
    if (state != "healthy") rc = 1;
    std::fprintf(out, "GPU %-3s %-10s action %-16s %s  %s\n", g.value("gpu", "").c_str(), state.c_str(),
                 g.value("action", "").c_str(), g.value("UUID", "").c_str(), g.value("pci_bus_id", "").c_str());
    for (const auto& e : g["evidence"]) {
      std::fprintf(out, "    %-10s %-16s %s\n", e.value("state", "").c_str(), e.value("kind", "").c_str(),
                   e.value("detail", "").c_str());
      for (const char* line : {"nvml_line", "kernel_line"})
        if (e.contains(line)) std::fprintf(out, "        %s\n", e[line].get<std::string>().c_str());
    }
  }
  return rc;
}

}  // namespace

int run_health(const config::Settings& s, std::FILE* out, std::FILE* err) {
  std::string base = s.get(config::flag::kUrl);
  if (base.empty()) base = net::url_for_listen_address(s.get(config::flag::kWebListenAddress));
  if (base.find("://") == std::string::npos) base = "http://" + base;
  const bool set = !s.positional.empty() && s.positional[0] == "set-healthy";
  if (!s.positional.empty() && !set) return usage(err, "unknown subcommand \"" + s.positional[0] + "\"");
  if (set && s.positional.size() != 2) return usage(err, "set-healthy takes one GPU");
  const std::string path =
      set ? "/api/v1/health/set-healthy?gpu=" + net::url_encode(s.positional[1]) : "/api/v1/health";
  auto url = net::http::parse_url(base + path);
  if (!url) return usage(err, url.error());
  net::http::ClientOptions o;
  if (Status st = apply_http_config_file(s.get(config::flag::kHttpConfigFile), o); !st) return usage(err, st.message());
  o.timeout_ms = 10000;
  o.max_response_body_bytes = 64 << 20;
  net::http::Client client(o);
  auto r = client.request(set ? "POST" : "GET", *url, {}, {});
  if (!r) {
    std::fprintf(err, "llmon health: %s (is `llmon agent` running there? set --url)\n", r.error().c_str());
    return 2;
  }
  nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("status")) {
    std::fprintf(err, "llmon health: unexpected answer (HTTP %d): %.200s\n", r->status, r->body.c_str());
    return 2;
  }
  if (j["status"] != "success") {
    std::fprintf(err, "llmon health: %s\n", j.value("error", std::string("error")).c_str());
    return 1;
  }
  if (s.get(config::flag::kJson)) {
    std::fprintf(out, "%s\n", r->body.c_str());
    return 0;
  }
  if (set) {
    std::fprintf(out, "GPU %s marked healthy; evidence seen before now no longer counts\n", s.positional[1].c_str());
    print_text(j["data"], out);
    return 0;
  }
  return print_text(j["data"], out);
}

}  // namespace llmon::app
