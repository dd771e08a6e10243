// Oracle test: group keys, receivers and group membership computed by our
// route tree must equal what the real Alertmanager 0.25 sends in its webhook
// payloads (groupKey, receiver, alerts) for the same config and alerts,
// including matchers and label values that need quoting/escaping, label names
// whose formatted order differs from name order (a, a1), `...`, continue and
// nested defaults.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "notify/config/notify_config.h"
#include "notify/route_am_harness.h"
#include "notify/routing/route.h"

namespace llmon::notify {
namespace {

using nlohmann::json;

std::string config_yaml(const std::string& url) {
  std::string rcv = "    webhook_configs: [{url: '" + url + "', send_resolved: true}]\n";
  return R"(route:
  receiver: def
  group_by: [alertname]
  group_wait: 0s
  group_interval: 1h
  routes:
    - matchers: ['severity=~"crit.*"', 'msg="a\"b\\c"']
      receiver: crit
      group_by: [a, a1, instance]
    - match: {team: db}
      match_re: {service: 'pg|my.*'}
      receiver: db
      group_by: ['...']
      continue: true
    - matchers: ['{team="db", env!="prod"}']
      receiver: db2
      routes:
        - matchers: [zone=~".+"]
          receiver: zone
          group_by: [zone]
receivers:
  - name: def
)" + rcv +
         "  - name: crit\n" + rcv + "  - name: db\n" + rcv + "  - name: db2\n" + rcv + "  - name: zone\n" + rcv;
}

std::vector<LabelPairs> test_alerts() {
  return {
      {{"a", "x"},
       {"a1", "y"},
       {"alertname", "Disk"},
       {"instance", "gpu01"},
       {"msg", "a\"b\\c"},
       {"severity", "critical"}},
      {{"alertname", "Load"},
       {"env", "staging"},
       {"service", "pg"},
       {"team", "db"},
       {"val", "\xc3\xa9\xc2\xa0\n\t\"q\\"},
       {"zone", "z1"}},
      {{"alertname", "Mem"}, {"env", "prod"}, {"service", "other"}, {"team", "db"}},
      {{"alertname", "Net"}, {"env", "prod"}, {"service", "mysql"}, {"team", "db"}},
      {{"alertname", "Uni"}, {"x", "\xe2\x80\x8b\xf0\x9f\x94\xa5 \xc3\xbcn\xc3\xaf"}},
      {{"alertname", "Disk"}, {"env", "dev"}, {"team", "db"}},
  };
}

// receiver + group key -> set of alert label sets
using Groups = std::map<std::pair<std::string, std::string>, std::set<LabelPairs>>;

TEST(RouteGroupKeyVsAlertmanager, SameKeysReceiversAndMembers) {
  if (amtest::Alertmanager::binary().empty())
    GTEST_SKIP() << "prometheus-alertmanager not installed (Debian package prometheus-alertmanager)";
  amtest::TempDir dir;
  amtest::WebhookSink sink;
  ASSERT_TRUE(sink.ok());
  const std::string yaml = config_yaml(sink.url());

  // Ours.
  auto cfg = parse_notify_config(yaml, "am.yml");
  ASSERT_TRUE(cfg.has_value()) << cfg.error();
  auto root = Route::build(cfg->route);
  Groups ours;
  for (const auto& labels : test_alerts())
    for (const Route* r : root->match(labels))
      ours[{r->opts().receiver, r->group_key(r->group_labels(labels))}].insert(labels);

  // Alertmanager's.
  amtest::Alertmanager am;
  std::string err;
  ASSERT_TRUE(am.start(dir, yaml, &err)) << err;
  json arr = json::array();
  for (const auto& labels : test_alerts()) {
    json l = json::object();
    for (const auto& [k, v] : labels) l[k] = v;
    arr.push_back({{"labels", l}, {"annotations", {{"summary", "s"}}}});
  }
  std::string body;
  ASSERT_EQ(am.post_alerts(arr.dump(), &body), 200) << body;
  ASSERT_TRUE(sink.wait_for(ours.size(), 30000))
      << "got " << sink.posted().size() << " of " << ours.size() << " notifications\n"
      << am.log();
  Groups theirs;
  for (const auto& p : sink.posted()) {
    json j = json::parse(p.body);
    auto& set = theirs[{j["receiver"].get<std::string>(), j["groupKey"].get<std::string>()}];
    for (const auto& a : j["alerts"]) {
      LabelPairs labels;
      for (auto it = a["labels"].begin(); it != a["labels"].end(); ++it)
        labels.emplace_back(it.key(), it.value().get<std::string>());
      std::sort(labels.begin(), labels.end());
      set.insert(labels);
    }
  }
  ASSERT_EQ(theirs.size(), ours.size());
  for (const auto& [key, members] : theirs) {
    auto it = ours.find(key);
    ASSERT_NE(it, ours.end()) << "Alertmanager group not computed by llmon: receiver=" << key.first
                              << " groupKey=" << key.second;
    EXPECT_EQ(it->second, members) << key.second;
  }
  // The cases that motivated the test are really in there.
  EXPECT_TRUE(theirs.count({"crit", R"({}/{msg="a\"b\\c",severity=~"crit.*"}:{a1="y", a="x", instance="gpu01"})"}));
  EXPECT_TRUE(theirs.count({"zone", R"({}/{env!="prod",team="db"}/{zone=~".+"}:{zone="z1"})"}));
}

}  // namespace
}  // namespace llmon::notify
