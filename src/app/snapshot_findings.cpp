#include "app/snapshot_findings.h"

#include "app/agent_client.h"
#include "config/flag_names.h"
#include "diagnose/report.h"
#include "net/api_client.h"

namespace llmon::app {

void add_agent_findings(const config::Settings& settings, summary::HostSummary& s) {
  std::string base = settings.get(config::flag::kUrl);
  const bool asked = !base.empty();
  if (!asked) base = "http://" + settings.get(config::flag::kWebListenAddress);
  auto url = net::parse_http_url(base);
  if (!url) {
    s.findings_note = "--url: " + url.error();
    return;
  }
  if (Status st = apply_http_config_file(settings.get(config::flag::kHttpConfigFile), url->client); !st) {
    s.findings_note = st.message();
    return;
  }
  const int64_t window_ms = settings.get(config::flag::kWindow);
  // An explicit --url may be a remote node; the default is loopback, which
  // answers or refuses at once.
  std::string target = "/api/v1/diagnosis?window=" + std::to_string(window_ms / 1000) + "s";
  if (const auto& m = settings.get(config::flag::kDiagnoseSelector); !m.empty())
    target += "&selector=" + net::url_encode(m);
  auto res = net::http_get(*url, target, asked ? 10'000 : 2'000);
  if (!res || res->status != 200) {
    std::string why = !res ? res.error() : "HTTP " + std::to_string(res->status);
    s.findings_note = asked ? "no findings: " + base + ": " + why
                            : "no agent at " + base + " (findings need its history: run `llmon agent`)";
    return;
  }
  auto d = diagnose::parse_json(res->body);
  if (!d) {
    s.findings_note = "no findings: " + base + " answered: " + d.error();
    return;
  }
  s.findings_source = base;
  s.findings_window_ms = window_ms;
  for (const auto& f : d->findings)
    s.findings.push_back({std::string(diagnose::severity_name(f.severity)), f.kind, f.summary, f.subject});
}

}  // namespace llmon::app
