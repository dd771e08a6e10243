// Differential test: every config in the corpus is checked by our parser and
// by `amtool check-config` (Alertmanager 0.25, Debian's prometheus-alertmanager)
// and both must accept or both must reject, except for the listed, documented
// differences (llmon-only extensions, Alertmanager features llmon rejects),
// which are asserted to still differ the stated way. Error wording differs on
// purpose (ours names FILE:LINE:COL and the path); the reasons are printed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>

#include "notify/config/notify_config.h"
#include "notify/route_am_harness.h"

namespace llmon::notify {
namespace {

enum class Diff { kNone, kOnlyLlmonAccepts, kOnlyAmtoolAccepts };

struct Case {
  const char* name;
  const char* yaml;
  Diff diff = Diff::kNone;
  const char* why = "";
};

// Receivers used by many cases.
#define RCV "receivers:\n  - name: r\n"
#define HOOK "    webhook_configs:\n      - url: http://127.0.0.1:9/x\n"
#define MAIL "    email_configs:\n      - {to: a@b, from: c@d, smarthost: 'mail:25'}\n"

const Case kCorpus[] = {
    {"minimal", "route: {receiver: r}\n" RCV},
    {"null receiver pattern", "route:\n  receiver: 'null'\nreceivers:\n  - name: 'null'\n"},
    {"webhook", "route: {receiver: r}\n" RCV HOOK},
    {"email", "route: {receiver: r}\n" RCV MAIL},
    {"email from global",
     "global: {smtp_from: a@b, smtp_smarthost: 'mail:25', smtp_require_tls: false}\nroute: {receiver: r}\n" RCV
     "    email_configs: [{to: x@y}]\n"},
    {"nested routes", "route:\n  receiver: r\n  group_by: [alertname, '...']\n  routes:\n    - receiver: r\n" RCV,
     Diff::kNone},
    {"group_by all", "route:\n  receiver: r\n  group_by: ['...']\n" RCV},
    {"full tree", R"(global: {resolve_timeout: 1m}
route:
  receiver: r
  group_by: [alertname, cluster]
  group_wait: 10s
  group_interval: 1m
  repeat_interval: 3h
  routes:
    - matchers: ['severity=~"crit|page"', 'team!="x"']
      receiver: s
      continue: true
      routes:
        - match: {gpu: '0'}
          match_re: {host: 'gpu[0-9]+'}
          group_by: [host]
    - match: {team: db}
      receiver: r
receivers:
  - name: r
    webhook_configs: [{url: 'https://h.example/x', max_alerts: 5, send_resolved: false}]
  - name: s
    email_configs: [{to: a@b, from: c@d, smarthost: 'mail:587', headers: {Subject: hi}, require_tls: true}]
inhibit_rules:
  - source_matchers: [severity="critical"]
    target_matchers: [severity="warning"]
    equal: [alertname]
  - source_match: {a: b}
    target_match_re: {c: 'd.*'}
)"},
    {"http_config auth",
     "route: {receiver: r}\n" RCV
     "    webhook_configs:\n      - url: http://h/\n        http_config:\n          basic_auth: {username: u, "
     "password: p}\n          tls_config: {insecure_skip_verify: true, ca_file: /x}\n"},
    {"bearer", "route: {receiver: r}\n" RCV "    webhook_configs:\n      - url: http://h/\n        http_config: "
               "{bearer_token: t}\n"},
    {"authorization bearer",
     "route: {receiver: r}\n" RCV
     "    webhook_configs:\n      - url: http://h/\n        http_config: {authorization: {credentials: t}}\n"},
    {"durations", "route:\n  receiver: r\n  group_wait: 0s\n  group_interval: 1h30m\n  repeat_interval: 1w2d\n" RCV},
    {"matchers list in one line", "route:\n  receiver: r\n  routes:\n    - matchers: ['{a=\"b\", c=~\"d,e\"}']\n" RCV},
    {"matcher with colon name", "route:\n  receiver: r\n  routes:\n    - matchers: ['a:b=c']\n" RCV},
    {"empty matcher value", "route:\n  receiver: r\n  routes:\n    - matchers: ['foo=']\n" RCV},
    {"empty lists",
     "route: {receiver: r, routes: []}\nreceivers:\n  - name: r\n    webhook_configs: []\ninhibit_rules: []\n"},
    {"yes/no booleans",
     "route: {receiver: r}\n" RCV "    webhook_configs:\n      - url: http://h/\n        send_resolved: no\n"},

    // Both reject.
    {"empty file", ""},
    {"no route", RCV},
    {"no root receiver", "route: {group_by: [a]}\n" RCV},
    {"undefined receiver", "route: {receiver: x}\n" RCV},
    {"undefined child receiver", "route:\n  receiver: r\n  routes: [{receiver: x}]\n" RCV},
    {"duplicate receiver", "route: {receiver: r}\nreceivers: [{name: r}, {name: r}]\n"},
    {"receiver without name", "route: {receiver: r}\nreceivers: [{name: r}, {webhook_configs: []}]\n"},
    {"root matchers", "route: {receiver: r, matchers: [a=b]}\n" RCV},
    {"root match", "route: {receiver: r, match: {a: b}}\n" RCV},
    {"root continue", "route: {receiver: r, continue: true}\n" RCV},
    {"unknown top field", "foo: 1\nroute: {receiver: r}\n" RCV},
    {"unknown route field", "route: {receiver: r, bar: 1}\n" RCV},
    {"unknown webhook field", "route: {receiver: r}\n" RCV HOOK "        url_file: /x\n"},
    {"duplicate key", "route: {receiver: r}\nroute: {receiver: r}\n" RCV},
    {"bad duration", "route: {receiver: r, group_wait: 5}\n" RCV},
    {"bad duration order", "route: {receiver: r, group_wait: 1s1m}\n" RCV},
    {"zero group_interval", "route: {receiver: r, group_interval: 0}\n" RCV},
    {"zero repeat_interval", "route: {receiver: r, repeat_interval: 0s}\n" RCV},
    {"group_by mixed wildcard", "route: {receiver: r, group_by: [a, '...']}\n" RCV},
    {"group_by duplicate", "route: {receiver: r, group_by: [a, a]}\n" RCV},
    {"group_by bad name", "route: {receiver: r, group_by: ['a.b']}\n" RCV},
    {"bad matcher", "route:\n  receiver: r\n  routes:\n    - matchers: ['a']\n" RCV},
    {"bad matcher quote", "route:\n  receiver: r\n  routes:\n    - matchers: ['a=\"b\"c\"']\n" RCV},
    {"bad matcher regex", "route:\n  receiver: r\n  routes:\n    - matchers: ['a=~\"(\"']\n" RCV},
    {"bad match_re", "route:\n  receiver: r\n  routes:\n    - match_re: {a: '['}\n" RCV},
    {"bad match name", "route:\n  receiver: r\n  routes:\n    - match: {'a-b': c}\n" RCV},
    {"webhook without url", "route: {receiver: r}\n" RCV "    webhook_configs: [{send_resolved: true}]\n"},
    {"webhook ftp url", "route: {receiver: r}\n" RCV "    webhook_configs: [{url: 'ftp://h/'}]\n"},
    {"webhook no host", "route: {receiver: r}\n" RCV "    webhook_configs: [{url: 'http:///x'}]\n"},
    {"webhook negative max_alerts", "route: {receiver: r}\n" RCV HOOK "        max_alerts: -1\n"},
    {"two bearer tokens",
     "route: {receiver: r}\n" RCV HOOK "        http_config: {bearer_token: a, bearer_token_file: b}\n"},
    {"basic and bearer",
     "route: {receiver: r}\n" RCV HOOK "        http_config: {bearer_token: a, basic_auth: {username: u}}\n"},
    {"email without to", "route: {receiver: r}\n" RCV "    email_configs: [{from: a, smarthost: 'h:25'}]\n"},
    {"email without smarthost", "route: {receiver: r}\n" RCV "    email_configs: [{to: a, from: b}]\n"},
    {"email without from", "route: {receiver: r}\n" RCV "    email_configs: [{to: a, smarthost: 'h:25'}]\n"},
    {"email smarthost without port",
     "route: {receiver: r}\n" RCV "    email_configs: [{to: a, from: b, smarthost: h}]\n"},
    {"email smarthost empty port",
     "route: {receiver: r}\n" RCV "    email_configs: [{to: a, from: b, smarthost: 'h:'}]\n"},
    {"email duplicate header",
     "route: {receiver: r}\n" RCV
     "    email_configs: [{to: a, from: b, smarthost: 'h:1', headers: {subject: x, SUBJECT: y}}]\n"},
    {"global smtp_tls_config (not in 0.25)", "global: {smtp_tls_config: {}}\nroute: {receiver: r}\n" RCV},
    {"inhibit bad equal", "route: {receiver: r}\n" RCV "inhibit_rules: [{equal: ['a b']}]\n"},
    {"inhibit bad matcher", "route: {receiver: r}\n" RCV "inhibit_rules: [{source_matchers: ['x']}]\n"},
    {"yaml syntax error", "route: {receiver: r\n" RCV},
    {"route is a list", "route: [receiver]\n" RCV},
    {"bool typo", "route: {receiver: r}\n" RCV HOOK "        send_resolved: maybe\n"},

    // Documented differences.
    {"exec_configs", "route: {receiver: r}\n" RCV "    exec_configs: [{command: [/bin/true], timeout: 5s}]\n",
     Diff::kOnlyLlmonAccepts, "exec_configs is llmon's extension; amtool: field exec_configs not found"},
    {"slack_configs",
     "route: {receiver: r}\n" RCV "    slack_configs: [{api_url: 'https://hooks.slack.example/x', channel: '#a'}]\n",
     Diff::kOnlyAmtoolAccepts, "llmon has no Slack integration and says so instead of never delivering"},
    {"pagerduty_configs", "route: {receiver: r}\n" RCV "    pagerduty_configs: [{routing_key: k}]\n",
     Diff::kOnlyAmtoolAccepts, "llmon has no PagerDuty integration"},
    {"templates", "templates: ['/etc/am/*.tmpl']\nroute: {receiver: r}\n" RCV, Diff::kOnlyAmtoolAccepts,
     "llmon does not implement Alertmanager's notification templates"},
    {"time_intervals", R"(time_intervals:
  - name: night
    time_intervals: [{times: [{start_time: '00:00', end_time: '06:00'}]}]
route:
  receiver: r
  routes: [{receiver: r, mute_time_intervals: [night]}]
)" RCV,
     Diff::kOnlyAmtoolAccepts, "time intervals are not implemented"},
    {"proxy_url", "route: {receiver: r}\n" RCV HOOK "        http_config: {proxy_url: 'http://proxy:3128'}\n",
     Diff::kOnlyAmtoolAccepts, "webhook through an HTTP proxy is not implemented"},
};

struct AmtoolResult {
  bool accepted = false;
  std::string output;
};

AmtoolResult run_amtool(const std::string& amtool, const std::string& file) {
  AmtoolResult r;
  std::string cmd = amtool + " check-config '" + file + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int st = ::pclose(p);
  r.accepted = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  return r;
}

TEST(ConfigAmtoolDiff, SameAcceptRejectAsAmtool) {
  const std::string amtool = amtest::find_program("amtool");
  if (amtool.empty()) GTEST_SKIP() << "amtool not installed (Debian package prometheus-alertmanager)";
  amtest::TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  int agreed = 0, documented = 0;
  for (size_t i = 0; i < std::size(kCorpus); ++i) {
    const Case& c = kCorpus[i];
    const std::string file = dir.file("case" + std::to_string(i) + ".yml");
    dir.write("case" + std::to_string(i) + ".yml", c.yaml);
    auto ours = load_notify_config(file);
    AmtoolResult theirs = run_amtool(amtool, file);
    SCOPED_TRACE(std::string(c.name) + "\n--- yaml:\n" + c.yaml +
                 "--- llmon: " + (ours.has_value() ? "accepted" : ours.error()) + "\n--- amtool: " + theirs.output);
    switch (c.diff) {
      case Diff::kNone:
        EXPECT_EQ(ours.has_value(), theirs.accepted);
        ++agreed;
        break;
      case Diff::kOnlyLlmonAccepts:
        EXPECT_TRUE(ours.has_value()) << c.why;
        EXPECT_FALSE(theirs.accepted) << c.why;
        ++documented;
        break;
      case Diff::kOnlyAmtoolAccepts:
        EXPECT_FALSE(ours.has_value()) << c.why;
        EXPECT_TRUE(theirs.accepted) << c.why;
        if (!ours.has_value()) {
          EXPECT_NE(ours.error().find("not supported by llmon"), std::string::npos);
        }
        ++documented;
        break;
    }
  }
  std::printf("amtool differential: %d cases agree, %d documented differences\n", agreed, documented);
}

}  // namespace
}  // namespace llmon::notify
