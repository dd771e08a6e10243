// Routing tree: first match, `continue`, fall back to the parent, defaults
// inherited from the parent, route keys/ids and group keys in Alertmanager's
// format (cases modelled on dispatch/route_test.go).
#include <gtest/gtest.h>

#include "notify/config/notify_config.h"
#include "notify/routing/route.h"

namespace llmon::notify {
namespace {

std::unique_ptr<Route> tree(const std::string& yaml) {
  auto c = parse_notify_config(yaml, "t.yml");
  EXPECT_TRUE(c.has_value()) << c.error();
  if (!c.has_value()) return nullptr;
  return Route::build(c->route);
}

constexpr const char* kTree = R"YAML(route:
  receiver: notify-def
  group_by: [alertname]
  routes:
    - matchers: [owner="team-A"]
      receiver: notify-A
      routes:
        - matchers: [env="testing"]
          receiver: notify-testing
          group_by: ['...']
        - matchers: [env="production"]
          receiver: notify-productionA
          group_wait: 1m
          continue: true
        - matchers: [env=~"produ.*", job=~".*"]
          receiver: notify-productionB
          group_wait: 30s
          group_interval: 5m
          repeat_interval: 1h
          group_by: [job]
    - matchers: [owner=~"team-(B|C)"]
      group_by: [foo, bar]
      group_wait: 2m
      receiver: notify-BC
    - matchers: [group_by="role"]
      group_by: [role]
      routes:
        - matchers: [env="testing"]
          receiver: notify-testing
          routes:
            - matchers: [wait="long"]
              group_wait: 2m
receivers:
  - name: notify-def
  - name: notify-A
  - name: notify-testing
  - name: notify-productionA
  - name: notify-productionB
  - name: notify-BC
)YAML";

std::vector<std::string> receivers_for(const Route& root, const LabelPairs& labels) {
  std::vector<std::string> out;
  for (const Route* r : root.match(labels)) out.push_back(r->opts().receiver);
  return out;
}

TEST(RouteTree, MatchingFirstMatchContinueAndFallback) {
  auto root = tree(kTree);
  ASSERT_TRUE(root);
  using V = std::vector<std::string>;
  EXPECT_EQ(receivers_for(*root, {{"owner", "team-A"}}), V{"notify-A"});
  EXPECT_EQ(receivers_for(*root, {{"env", "testing"}, {"owner", "team-A"}}), V{"notify-testing"});
  // continue: the production route and the next sibling both match.
  EXPECT_EQ(receivers_for(*root, {{"env", "production"}, {"owner", "team-A"}}),
            (V{"notify-productionA", "notify-productionB"}));
  EXPECT_EQ(receivers_for(*root, {{"owner", "team-C"}}), V{"notify-BC"});
  EXPECT_EQ(receivers_for(*root, {{"owner", "team-X"}}), V{"notify-def"});
  EXPECT_EQ(receivers_for(*root, {}), V{"notify-def"});
  // Inherited receiver from the parent (no receiver on the group_by=role route).
  EXPECT_EQ(receivers_for(*root, {{"env", "testing"}, {"group_by", "role"}, {"wait", "long"}}), V{"notify-testing"});
  EXPECT_EQ(receivers_for(*root, {{"group_by", "role"}}), V{"notify-def"});
}

TEST(RouteTree, DefaultsInheritedFromParent) {
  auto root = tree(kTree);
  ASSERT_TRUE(root);
  const RouteOpts& r = root->opts();
  EXPECT_EQ(r.group_wait_ms, 30'000);
  EXPECT_EQ(r.group_interval_ms, 300'000);
  EXPECT_EQ(r.repeat_interval_ms, 4 * 3'600'000);
  EXPECT_EQ(r.group_by, std::vector<std::string>{"alertname"});

  auto routes = root->match({{"env", "production"}, {"owner", "team-A"}});
  ASSERT_EQ(routes.size(), 2u);
  EXPECT_EQ(routes[0]->opts().group_wait_ms, 60'000);
  EXPECT_EQ(routes[0]->opts().group_by, std::vector<std::string>{"alertname"});  // from the root
  EXPECT_EQ(routes[1]->opts().group_by, std::vector<std::string>{"job"});
  EXPECT_EQ(routes[1]->opts().repeat_interval_ms, 3'600'000);

  auto testing = root->match({{"env", "testing"}, {"owner", "team-A"}});
  ASSERT_EQ(testing.size(), 1u);
  EXPECT_TRUE(testing[0]->opts().group_by_all);

  auto deep = root->match({{"env", "testing"}, {"group_by", "role"}, {"wait", "long"}});
  ASSERT_EQ(deep.size(), 1u);
  EXPECT_EQ(deep[0]->opts().group_wait_ms, 120'000);
  EXPECT_EQ(deep[0]->opts().group_by, std::vector<std::string>{"role"});  // from its grandparent
  EXPECT_EQ(deep[0]->opts().receiver, "notify-testing");
}

TEST(RouteTree, KeysAndIds) {
  auto root = tree(kTree);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->key(), "{}");
  EXPECT_EQ(root->id(), "{}");
  auto routes = root->match({{"env", "production"}, {"owner", "team-A"}});
  ASSERT_EQ(routes.size(), 2u);
  EXPECT_EQ(routes[0]->key(), R"({}/{owner="team-A"}/{env="production"})");
  EXPECT_EQ(routes[0]->id(), R"({}/{owner="team-A"}/{env="production"}/1)");
  EXPECT_EQ(routes[1]->key(), R"({}/{owner="team-A"}/{env=~"produ.*",job=~".*"})");
  EXPECT_EQ(routes[1]->id(), R"({}/{owner="team-A"}/{env=~"produ.*",job=~".*"}/2)");
}

TEST(RouteTree, GroupLabelsAndKeys) {
  auto root = tree(kTree);
  ASSERT_TRUE(root);
  LabelPairs labels = {{"alertname", "DiskFull"}, {"env", "testing"}, {"instance", "gpu01"}, {"owner", "team-A"}};
  auto routes = root->match(labels);
  ASSERT_EQ(routes.size(), 1u);
  LabelPairs gl = routes[0]->group_labels(labels);
  EXPECT_EQ(gl, labels);  // `...`: all labels
  EXPECT_EQ(
      routes[0]->group_key(gl),
      R"({}/{owner="team-A"}/{env="testing"}:{alertname="DiskFull", env="testing", instance="gpu01", owner="team-A"})");

  LabelPairs other = {{"alertname", "X"}, {"instance", "a"}};
  auto def = root->match(other);
  ASSERT_EQ(def.size(), 1u);
  EXPECT_EQ(def[0]->group_key(def[0]->group_labels(other)), R"({}:{alertname="X"})");
  // Group labels missing from the alert are simply absent.
  LabelPairs bc = {{"alertname", "Y"}, {"foo", "1"}, {"owner", "team-B"}};
  auto bcr = root->match(bc);
  ASSERT_EQ(bcr.size(), 1u);
  EXPECT_EQ(bcr[0]->group_key(bcr[0]->group_labels(bc)), R"X({}/{owner=~"team-(B|C)"}:{foo="1"})X");
}

TEST(LabelSetString, GoFormatting) {
  EXPECT_EQ(label_set_string({}), "{}");
  EXPECT_EQ(label_set_string({{"b", "2"}, {"a", "x\"y\n"}}), R"({a="x\"y\n", b="2"})");
  // Sorted as formatted strings: `a1="..."` sorts before `a="..."` ('1' < '=').
  EXPECT_EQ(label_set_string({{"a", "1"}, {"a1", "2"}}), R"({a1="2", a="1"})");
}

TEST(LabelSetFingerprint, PrometheusModelValues) {
  // Values from prometheus/common model/signature_test.go (LabelsToSignature /
  // labelSetToFingerprint use the same FNV-1a with 0xFF separators).
  EXPECT_EQ(labels_fingerprint({}), 14695981039346656037ULL);
  EXPECT_EQ(labels_fingerprint({{"name", "garland, briggs"}, {"fear", "love is not enough"}}), 5799056148416392346ULL);
  // Order of input does not matter.
  EXPECT_EQ(labels_fingerprint({{"a", "1"}, {"b", "2"}}), labels_fingerprint({{"b", "2"}, {"a", "1"}}));
  EXPECT_NE(labels_fingerprint({{"a", "1"}, {"b", "2"}}), labels_fingerprint({{"a", "12"}}));
}

}  // namespace
}  // namespace llmon::notify
