// The notification config file: literal YAML in, plain structs out; defaults
// and validation as Alertmanager 0.25's config.Load; errors FILE:LINE:COL.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "notify/config/notify_config.h"

namespace llmon::notify {
namespace {

NotifyConfig must_parse(const std::string& yaml) {
  auto c = parse_notify_config(yaml, "am.yml");
  EXPECT_TRUE(c.has_value()) << c.error();
  return c.has_value() ? *c : NotifyConfig{};
}

std::string parse_error(const std::string& yaml) {
  auto c = parse_notify_config(yaml, "am.yml");
  EXPECT_FALSE(c.has_value()) << yaml;
  return c.has_value() ? "" : c.error();
}

TEST(NotifyConfig, FullExample) {
  const char* yaml = R"(global:
  resolve_timeout: 2m
  smtp_from: alerts@gpu01.example
  smtp_smarthost: mail.example:587
  smtp_auth_username: alerts
  smtp_auth_password: secret
  smtp_require_tls: false
route:
  receiver: team
  group_by: [alertname, cluster]
  group_wait: 10s
  routes:
    - matchers: ['severity="critical"', 'job=~"gpu.*"']
      receiver: pager
      continue: true
      group_interval: 1m
    - match: {team: db}
      match_re: {service: "^(mysql|pg)$"}
      receiver: db
      group_by: ['...']
      routes:
        - receiver: team
          repeat_interval: 12h
receivers:
  - name: team
    email_configs:
      - to: team@example
        headers: {subject: "GPU alert", x-llmon: "1"}
        send_resolved: true
  - name: pager
    webhook_configs:
      - url: https://pager.example/hook
        max_alerts: 20
        http_config:
          basic_auth: {username: u, password: p}
          tls_config: {ca_file: /etc/ca.pem, insecure_skip_verify: true, server_name: pager}
  - name: db
    exec_configs:
      - command: [/usr/local/bin/page-dba, --urgent]
        timeout: 45s
        max_concurrent: 2
        send_resolved: false
inhibit_rules:
  - source_matchers: [severity="critical"]
    target_matchers: [severity="warning"]
    equal: [alertname, instance]
)";
  NotifyConfig c = must_parse(yaml);
  EXPECT_EQ(c.global.resolve_timeout_ms, 120'000);
  EXPECT_EQ(c.route.receiver, "team");
  ASSERT_TRUE(c.route.group_by.has_value());
  EXPECT_EQ(*c.route.group_by, (std::vector<std::string>{"alertname", "cluster"}));
  EXPECT_EQ(c.route.group_wait_ms, 10'000);
  EXPECT_FALSE(c.route.group_interval_ms.has_value());
  ASSERT_EQ(c.route.routes.size(), 2u);
  EXPECT_EQ(matchers_to_string(c.route.routes[0].matchers), R"({job=~"gpu.*",severity="critical"})");
  EXPECT_TRUE(c.route.routes[0].continue_matching);
  EXPECT_EQ(c.route.routes[0].group_interval_ms, 60'000);
  EXPECT_EQ(c.route.routes[0].pos.line, 13);
  EXPECT_EQ(c.route.routes[0].pos.column, 7);
  EXPECT_EQ(matchers_to_string(c.route.routes[1].matchers), R"({service=~"^(?:^(mysql|pg)$)$",team="db"})");
  EXPECT_TRUE(c.route.routes[1].group_by_all);
  EXPECT_FALSE(c.route.routes[1].group_by.has_value());
  EXPECT_EQ(c.route.routes[1].routes[0].repeat_interval_ms, 12 * 3'600'000LL);

  ASSERT_EQ(c.receivers.size(), 3u);
  const EmailNotifierConfig& e = c.receivers[0].email_configs.at(0);
  EXPECT_EQ(e.to, "team@example");
  EXPECT_EQ(e.from, "alerts@gpu01.example");  // from global
  EXPECT_EQ(e.smarthost, "mail.example:587");
  EXPECT_EQ(e.smarthost_host, "mail.example");
  EXPECT_EQ(e.smarthost_port, "587");
  EXPECT_EQ(e.hello, "localhost");
  EXPECT_EQ(e.auth_username, "alerts");
  EXPECT_EQ(e.auth_password, "secret");
  EXPECT_FALSE(e.require_tls);  // from global
  EXPECT_TRUE(e.send_resolved);
  EXPECT_EQ(e.headers, (LabelPairs{{"Subject", "GPU alert"}, {"X-Llmon", "1"}}));

  const WebhookNotifierConfig& w = c.receivers[1].webhook_configs.at(0);
  EXPECT_EQ(w.url, "https://pager.example/hook");
  EXPECT_TRUE(w.send_resolved);
  EXPECT_EQ(w.max_alerts, 20u);
  ASSERT_TRUE(w.http_config.basic_auth.has_value());
  EXPECT_EQ(w.http_config.basic_auth->username, "u");
  EXPECT_EQ(w.http_config.basic_auth->password, "p");
  EXPECT_EQ(w.http_config.tls_config.ca_file, "/etc/ca.pem");
  EXPECT_TRUE(w.http_config.tls_config.insecure_skip_verify);
  EXPECT_EQ(w.http_config.tls_config.server_name, "pager");

  const ExecNotifierConfig& x = c.receivers[2].exec_configs.at(0);
  EXPECT_EQ(x.command, (std::vector<std::string>{"/usr/local/bin/page-dba", "--urgent"}));
  EXPECT_EQ(x.timeout_ms, 45'000);
  EXPECT_EQ(x.max_concurrent, 2);
  EXPECT_FALSE(x.send_resolved);

  ASSERT_EQ(c.inhibit_rules.size(), 1u);
  EXPECT_EQ(matchers_to_string(c.inhibit_rules[0].source_matchers), R"({severity="critical"})");
  EXPECT_EQ(c.inhibit_rules[0].equal, (std::vector<std::string>{"alertname", "instance"}));
  EXPECT_TRUE(c.warnings.empty());
  EXPECT_EQ(c.receiver("db"), &c.receivers[2]);
  EXPECT_EQ(c.receiver("nope"), nullptr);
}

TEST(NotifyConfig, Defaults) {
  NotifyConfig c = must_parse("route: {receiver: r}\nreceivers: [{name: r, webhook_configs: [{url: 'http://h/'}]}]\n");
  EXPECT_EQ(c.global.resolve_timeout_ms, 300'000);
  EXPECT_FALSE(c.route.group_by.has_value());
  EXPECT_FALSE(c.route.group_wait_ms.has_value());
  const WebhookNotifierConfig& w = c.receivers[0].webhook_configs[0];
  EXPECT_TRUE(w.send_resolved);
  EXPECT_EQ(w.max_alerts, 0u);
  EXPECT_FALSE(w.http_config.basic_auth.has_value());
  // Email: send_resolved defaults to false; require_tls to global's true.
  c = must_parse(
      "route: {receiver: r}\nreceivers: [{name: r, email_configs: [{to: a@b, from: c@d, smarthost: 'h:25'}]}]\n");
  EXPECT_FALSE(c.receivers[0].email_configs[0].send_resolved);
  EXPECT_TRUE(c.receivers[0].email_configs[0].require_tls);
  // Exec defaults.
  c = must_parse("route: {receiver: r}\nreceivers: [{name: r, exec_configs: [{command: [/bin/true]}]}]\n");
  EXPECT_TRUE(c.receivers[0].exec_configs[0].send_resolved);
  EXPECT_EQ(c.receivers[0].exec_configs[0].timeout_ms, 30'000);
  EXPECT_EQ(c.receivers[0].exec_configs[0].max_concurrent, 1);
  // A webhook without http_config takes global.http_config.
  c = must_parse(
      "global: {http_config: {bearer_token: tok}}\nroute: {receiver: r}\n"
      "receivers: [{name: r, webhook_configs: [{url: 'http://h/'}]}]\n");
  EXPECT_EQ(c.receivers[0].webhook_configs[0].http_config.bearer_token, "tok");
  // `group_by: []` inherits like Alertmanager (no labels given).
  c = must_parse("route: {receiver: r, group_by: []}\nreceivers: [{name: r}]\n");
  EXPECT_FALSE(c.route.group_by.has_value());
}

TEST(NotifyConfig, IgnoredFieldsWarn) {
  NotifyConfig c = must_parse(R"(global:
  slack_api_url: https://hooks.slack.example/x
route: {receiver: r}
receivers:
  - name: r
    email_configs:
      - to: a@b
        from: c@d
        smarthost: h:25
        html: '{{ template "email.default.html" . }}'
)");
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_EQ(c.warnings[0], "am.yml:2:3: global.slack_api_url: ignored (not used by llmon)");
  EXPECT_EQ(c.warnings[1].rfind("am.yml:10:15: receivers[0].email_configs[0].html: ignored", 0), 0u) << c.warnings[1];
}

TEST(NotifyConfig, ErrorsNameFileLineColumn) {
  struct Case {
    const char* yaml;
    const char* error;
  } cases[] = {
      {"", "am.yml: no route provided in config"},
      {"receivers: [{name: r}]\n", "am.yml:1:1: no route provided in config"},
      {"route:\n  receiver: r\n  foo: 1\nreceivers: [{name: r}]\n",
       "am.yml:3:3: route: unknown field \"foo\" (known: receiver, group_by, match, match_re, matchers, continue, "
       "routes, group_wait, group_interval, repeat_interval)"},
      {"route:\n  receiver: nope\nreceivers: [{name: r}]\n",
       "am.yml:2:13: route.receiver: undefined receiver \"nope\" used in route"},
      {"route:\n  receiver: r\n  routes:\n    - receiver: x\nreceivers: [{name: r}]\n",
       "am.yml:4:17: route.routes[0].receiver: undefined receiver \"x\" used in route"},
      {"route: {receiver: r}\nreceivers:\n  - name: r\n  - name: r\n",
       "am.yml:4:11: receivers[1]: notification config name \"r\" is not unique"},
      {"route:\n  group_by: [a]\nreceivers: [{name: r}]\n",
       "am.yml:2:3: route: root route must specify a default receiver"},
      {"route:\n  receiver: r\n  matchers: [a=b]\nreceivers: [{name: r}]\n",
       "am.yml:2:3: route: root route must not have any matchers"},
      {"route:\n  receiver: r\n  continue: true\nreceivers: [{name: r}]\n",
       "am.yml:3:13: route: cannot have continue in root route"},
      {"route:\n  receiver: r\n  group_wait: 1x\nreceivers: [{name: r}]\n",
       "am.yml:3:15: route.group_wait: not a valid duration string: \"1x\""},
      {"route:\n  receiver: r\n  group_interval: 0s\nreceivers: [{name: r}]\n",
       "am.yml:3:19: route.group_interval: group_interval cannot be zero"},
      {"route:\n  receiver: r\n  group_by: [a, '...']\nreceivers: [{name: r}]\n",
       "am.yml:3:13: route.group_by: cannot have wildcard group_by (`...`) and other labels at the same time"},
      {"route:\n  receiver: r\n  group_by: [a, a]\nreceivers: [{name: r}]\n",
       "am.yml:3:13: route.group_by: duplicated label \"a\" in group_by"},
      {"route:\n  receiver: r\n  group_by: [a-b]\nreceivers: [{name: r}]\n",
       "am.yml:3:14: route.group_by: invalid label name \"a-b\" in group_by list"},
      {"route:\n  receiver: r\n  routes:\n    - matchers: ['a=b,, c=d']\nreceivers: [{name: r}]\n",
       "am.yml:4:18: route.routes[0].matchers[0]: position 5: bad matcher format: "},
      {"route:\n  receiver: r\n  routes:\n    - match_re: {a: '('}\nreceivers: [{name: r}]\n",
       "am.yml:4:21: route.routes[0].match_re.a: invalid regular expression"},
      {"route: {receiver: r}\nreceivers:\n  - webhook_configs: [{url: 'http://h/'}]\n",
       "am.yml:3:5: receivers[0]: missing name in receiver"},
      {"route: {receiver: r}\nreceivers:\n  - name: r\n    webhook_configs:\n      - send_resolved: true\n",
       "am.yml:5:9: receivers[0].webhook_configs[0]: missing URL in webhook config"},
      {"route: {receiver: r}\nreceivers:\n  - name: r\n    webhook_configs:\n      - url: ftp://h/\n",
       "am.yml:5:14: receivers[0].webhook_configs[0].url: unsupported scheme \"ftp\" for URL"},
      {"route: {receiver: r}\nreceivers:\n  - name: r\n    email_configs:\n      - to: a@b\n",
       "am.yml:5:9: receivers[0].email_configs[0]: no global SMTP smarthost set"},
      {"route: {receiver: r}\nreceivers:\n  - name: r\n    email_configs:\n      - {to: a, from: b, smarthost: h}\n",
       "am.yml:5:37: receivers[0].email_configs[0].smarthost: address h: missing port in address"},
      {"route: {receiver: r}\nreceivers:\n  - name: r\n    slack_configs: [{channel: x}]\n",
       "am.yml:4:5: receivers[0].slack_configs: not supported by llmon"},
      {"templates: [a.tmpl]\nroute: {receiver: r}\nreceivers: [{name: r}]\n",
       "am.yml:1:1: templates: not supported by llmon"},
      {"time_intervals: [{name: x}]\nroute: {receiver: r}\nreceivers: [{name: r}]\n",
       "am.yml:1:1: time_intervals: not supported by llmon"},
      {"route:\n  receiver: r\n  receiver: r\nreceivers: [{name: r}]\n",
       "am.yml:3:3: route: field \"receiver\" already set (first at line 2)"},
      {"route: {receiver: r}\nreceivers: [{name: r, exec_configs: [{command: []}]}]\n",
       "am.yml:2:48: receivers[0].exec_configs[0].command: missing command"},
      {"route: {receiver: r}\nreceivers:\n  - name: r\n    webhook_configs:\n      - url: http://h/\n        "
       "max_alerts: -1\n",
       "am.yml:6:21: receivers[0].webhook_configs[0].max_alerts: expected a non-negative integer"},
      {"route: {receiver: r, continue: maybe}\nreceivers: [{name: r}]\n",
       "am.yml:1:32: route.continue: expected true or false"},
      {"route: [a]\n", "am.yml:1:8: route: expected a mapping, got a list"},
      {"route: {receiver: r\n", "am.yml:2:1: "},  // YAML syntax error
  };
  for (const auto& c : cases) {
    std::string err = parse_error(c.yaml);
    EXPECT_EQ(err.rfind(c.error, 0), 0u) << "yaml:\n" << c.yaml << "\ngot:      " << err << "\nexpected: " << c.error;
  }
}

TEST(NotifyConfig, TruncatedAndBinaryInputNeverThrow) {
  const std::string full = R"(route:
  receiver: r
  routes: [{matchers: ['a=~"b.*"'], receiver: r, continue: true}]
receivers: [{name: r, webhook_configs: [{url: 'http://h:1/x'}]}]
inhibit_rules: [{source_matchers: [a=b], target_matchers: [c=d], equal: [e]}]
)";
  for (size_t n = 0; n <= full.size(); ++n) (void)parse_notify_config(full.substr(0, n), "t.yml");
  std::string bin;
  for (int i = 0; i < 512; ++i) bin += static_cast<char>((i * 37) & 0xFF);
  auto r = parse_notify_config(bin, "bin.yml");
  EXPECT_FALSE(r.has_value());
  EXPECT_EQ(r.error().rfind("bin.yml", 0), 0u);
}

TEST(NotifyConfig, LoadFromFile) {
  std::string dir = ::testing::TempDir() + "nroute-cfg-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/am.yml") << "route: {receiver: r}\nreceivers: [{name: r}]\n";
  auto c = load_notify_config(dir + "/am.yml");
  EXPECT_TRUE(c.has_value()) << c.error();
  auto missing = load_notify_config(dir + "/nope.yml");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().find("nope.yml"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(AmDuration, ModelParseDuration) {
  EXPECT_EQ(*parse_am_duration_ms("0"), 0);
  EXPECT_EQ(*parse_am_duration_ms("30s"), 30'000);
  EXPECT_EQ(*parse_am_duration_ms("1h30m"), 5'400'000);
  EXPECT_EQ(*parse_am_duration_ms("1d2h"), 93'600'000);
  EXPECT_EQ(*parse_am_duration_ms("1w"), 604'800'000);
  EXPECT_EQ(*parse_am_duration_ms("1y"), 31'536'000'000);
  EXPECT_EQ(*parse_am_duration_ms("100ms"), 100);
  for (const char* bad : {"", "1", "1s1h", "1h1h", "1.5h", "-1s", "1S", "s", "1 s", "1000000000000y"})
    EXPECT_FALSE(parse_am_duration_ms(bad).has_value()) << bad;
}

}  // namespace
}  // namespace llmon::notify
