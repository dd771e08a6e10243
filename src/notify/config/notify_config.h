// The notification config file: the subset of alertmanager.yml (0.25) that a
// single llmon node implements, so users can copy the file from their
// Alertmanager: `global` (resolve_timeout, smtp_*, http_config), `route`
// (receiver, group_by incl. `...`, continue, matchers/match/match_re,
// group_wait/group_interval/repeat_interval, nested routes), `receivers`
// (email_configs, webhook_configs and llmon's own exec_configs) and
// `inhibit_rules`. `templates`, `time_intervals`, `mute_time_intervals` and
// the other Alertmanager integrations (slack_configs, pagerduty_configs...)
// are rejected with a "not supported by llmon" error; email `html`/`text`
// are accepted and ignored with a warning, as are global settings of
// integrations llmon lacks (slack_api_url...).
//
// Parsing is pure (text in, plain structs out; yaml-cpp exceptions stay
// inside); errors read "FILE:LINE:COL: what" with 1-based line and column.
// Validation follows Alertmanager's config.Load: unknown fields, duplicate
// keys, duplicate receiver names, undefined receivers, a root route without a
// receiver or with matchers or `continue`, bad group_by, zero intervals, bad
// URLs and smarthosts are errors. Defaults are applied as Alertmanager does:
// email settings from `global`, webhook http_config from global http_config.
// Route defaults (group_by, timers, receiver) are inherited from the parent
// when the route tree is built (route.h), not here. Sender construction is
// not here either: the structs below are what senders are built from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "notify/routing/matchers.h"

namespace llmon::notify {

struct ConfigPos {  // 1-based; 0 when unknown
  int line = 0;
  int column = 0;
};

struct NotifierTlsConfig {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string server_name;
  bool insecure_skip_verify = false;
};

struct NotifierBasicAuth {
  std::string username;
  std::string password;
  std::string password_file;
};

struct NotifierHttpConfig {
  std::optional<NotifierBasicAuth> basic_auth;
  std::string bearer_token;
  std::string bearer_token_file;
  NotifierTlsConfig tls_config;
  bool follow_redirects = true;
};

struct EmailNotifierConfig {
  bool send_resolved = false;
  std::string to;
  std::string from;       // defaulted from global.smtp_from
  std::string smarthost;  // "host:port", defaulted from global.smtp_smarthost
  std::string smarthost_host;
  std::string smarthost_port;
  std::string hello;  // defaulted from global.smtp_hello ("localhost")
  std::string auth_username;
  std::string auth_password;
  std::string auth_password_file;
  std::string auth_secret;
  std::string auth_identity;
  bool require_tls = true;  // defaulted from global.smtp_require_tls
  NotifierTlsConfig tls_config;
  LabelPairs headers;  // canonical MIME header names (Subject, X-Foo), sorted by name
};

struct WebhookNotifierConfig {
  bool send_resolved = true;
  std::string url;
  uint64_t max_alerts = 0;         // 0: all
  NotifierHttpConfig http_config;  // defaulted from global.http_config
};

// llmon's extension: run a program with the notification as JSON on stdin
// (the webhook payload). amtool rejects this field.
struct ExecNotifierConfig {
  bool send_resolved = true;
  std::vector<std::string> command;  // argv; command[0] is the program
  int64_t timeout_ms = 30'000;
  int max_concurrent = 1;
};

// llmon's extension: capture a PyTorch profiler trace from the processes
// the alert's labels name (docs/trace.md#alert-triggered-capture); needs the
// agent's --trace.capture-dir. amtool rejects this field.
struct TraceCaptureNotifierConfig {
  bool send_resolved = false;
  std::string pid_label = "pid";     // label whose value selects a pid (and its descendants)
  std::string gpu_label = "gpu";     // ... a GPU index
  std::string job_label = "job_id";  // ... a job id (SLURM_JOB_ID)
  bool match_all = false;            // an alert without any of these labels captures every registered process
  int64_t duration_ms = 500;
  int64_t iterations = 0;  // > 0: iterations instead of a duration
  int64_t timeout_ms = 60'000;
};

struct ReceiverConfig {
  std::string name;
  std::vector<EmailNotifierConfig> email_configs;
  std::vector<WebhookNotifierConfig> webhook_configs;
  std::vector<ExecNotifierConfig> exec_configs;
  std::vector<TraceCaptureNotifierConfig> trace_capture_configs;
  ConfigPos pos;
};

struct RouteConfig {
  std::string receiver;  // empty: inherited
  // As written; nullopt (absent, empty or only "...") inherits the parent's.
  std::optional<std::vector<std::string>> group_by;
  bool group_by_all = false;  // group_by contains "..."
  Matchers matchers;          // match + match_re + matchers, sorted
  bool continue_matching = false;
  std::optional<int64_t> group_wait_ms;
  std::optional<int64_t> group_interval_ms;
  std::optional<int64_t> repeat_interval_ms;
  std::vector<RouteConfig> routes;
  ConfigPos pos;
};

struct InhibitRuleConfig {
  Matchers source_matchers;  // source_match + source_match_re + source_matchers
  Matchers target_matchers;  // target_match + target_match_re + target_matchers
  std::vector<std::string> equal;
  ConfigPos pos;
};

struct GlobalConfig {
  int64_t resolve_timeout_ms = 5 * 60'000;
  std::string smtp_from;
  std::string smtp_smarthost;
  std::string smtp_hello = "localhost";
  std::string smtp_auth_username;
  std::string smtp_auth_password;
  std::string smtp_auth_password_file;
  std::string smtp_auth_secret;
  std::string smtp_auth_identity;
  bool smtp_require_tls = true;
  NotifierHttpConfig http_config;
};

struct NotifyConfig {
  GlobalConfig global;
  RouteConfig route;
  std::vector<ReceiverConfig> receivers;
  std::vector<InhibitRuleConfig> inhibit_rules;
  std::vector<std::string> warnings;  // "FILE:LINE:COL: ... ignored" for accepted-but-ignored settings

  const ReceiverConfig* receiver(std::string_view name) const;
};

// Parses and validates `text`; `file` is only used in messages.
Expected<NotifyConfig> parse_notify_config(std::string_view text, std::string_view file);
// Reads `path` and parses it.
Expected<NotifyConfig> load_notify_config(const std::string& path);

// Prometheus's model.ParseDuration, which Alertmanager's config uses: units
// y w d h m s ms, each at most once and in that order, or "0".
Expected<int64_t> parse_am_duration_ms(std::string_view s);

}  // namespace llmon::notify
