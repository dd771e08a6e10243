// Differential test of Relabeler::process against a real Prometheus 2.42:
// each case becomes one scrape job whose static target carries the case's
// labels and whose relabel_configs are the case's rules (written from the
// same RelabelConfig values). Prometheus reports, per target, the labels it
// discovered (its defaults job, __scheme__, __metrics_path__, ... included)
// and the labels after relabelling (or the target under droppedTargets).
// We run process() on the discovered labels and apply what Prometheus does
// after relabelling (instance defaults to __address__, "__" labels go); the
// result must be the same, or both must drop the target.
//
// Skipped (with the reason) when prometheus is not installed.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "scrape/relabel.h"
#include "support/http_client.h"
#include "support/prometheus_process.h"
#include "support/test_paths.h"

namespace llmon::scrape {
namespace {

using A = RelabelAction;
using Map = std::map<std::string, std::string>;

struct Case {
  std::string name;
  Map labels;  // static_configs labels of the one target 127.0.0.1:9
  std::vector<RelabelConfig> rules;
};

RelabelConfig rule(A action, std::vector<std::string> src, std::string regex, std::string target,
                   std::string replacement = "$1") {
  RelabelConfig c;
  c.action = action;
  if (!src.empty()) {
    c.source_labels = std::move(src);
    c.set_source_labels = true;
  }
  if (!regex.empty()) {
    c.regex = std::move(regex);
    c.set_regex = true;
  }
  c.target_label = std::move(target);
  c.replacement = std::move(replacement);
  return c;
}

RelabelConfig hashmod(std::vector<std::string> src, std::string target, uint64_t modulus) {
  RelabelConfig c = rule(A::kHashMod, std::move(src), "", std::move(target));
  c.modulus = modulus;
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> cs;
  auto add = [&](Map labels, std::vector<RelabelConfig> rules) {
    cs.push_back({"case_" + std::to_string(cs.size()), std::move(labels), std::move(rules)});
  };
  add({{"a", "foo"}, {"b", "bar"}}, {rule(A::kReplace, {"a"}, "f(.*)", "d", "ch${1}-ch$1")});
  add({{"a", "foo-bar"}}, {rule(A::kReplace, {"a"}, "(\\w+)-(\\w+)", "d", "$1x|${2}x|$$1|a$|${1|$-")});
  add({{"a", "foo-bar"}}, {rule(A::kReplace, {"a"}, "(?P<first>\\w+)-(?P<second>\\w+)", "${first}_l", "$second")});
  add({{"a", "name"}, {"name", "v"}}, {rule(A::kReplace, {"a"}, "(.*)", "${1}", "")});  // issue #8186
  add({{"a", "some-name-0"}}, {rule(A::kReplace, {"a"}, "some-([^-]+)(-[^,]+)", "${2}", "x")});
  add({{"a", "x"}, {"b", "y"}}, {rule(A::kReplace, {"a", "missing", "b"}, "", "j")});
  add({{"a", "x"}}, {rule(A::kReplace, {"missing"}, "", "a")});
  add({{"__meta_sd_tags", "path:/secret,job:some-job,label:foo=bar"}},
      {rule(A::kReplace, {"__meta_sd_tags"}, "(?:.+,|^)job:([^,]+).*", "job", "${1}"),
       rule(A::kReplace, {"__meta_sd_tags"}, "(?:.+,|^)label:([^=]+)=([^,]+).*", "${1}", "${2}")});
  add({{"__meta_my_bar", "aaa"}, {"__meta_my_baz", "bbb"}, {"__meta_other", "c"}},
      {rule(A::kLabelMap, {}, "__meta_(my.*)", "", "${1}")});
  add({{"a_x", "1"}, {"x", "2"}}, {rule(A::kLabelMap, {}, "(?:a_)?(x)", "", "y_$1")});
  add({{"c", "baz"}, {"e", "foo\nbar"}},
      {hashmod({"c"}, "d", 1000), hashmod({"e"}, "f", 1000), hashmod({"c", "e"}, "g", 1000000007)});
  add({{"a", "bAr123Foo Grüße ǅ ΣΑΣ"}}, {rule(A::kUppercase, {"a"}, "", "up"), rule(A::kLowercase, {"a"}, "", "low")});
  add({{"a", "foo"}}, {rule(A::kKeep, {"a"}, "no-match", "")});
  add({{"a", "foo"}}, {rule(A::kKeep, {"a"}, "f.*", "")});
  add({{"a", "foo"}}, {rule(A::kDrop, {"a"}, "f|o", "")});
  add({{"a", "foo"}}, {rule(A::kDrop, {"a"}, ".*o.*", "")});
  add({{"a", "foo\nbar"}}, {rule(A::kKeep, {"a"}, "foo.*", "")});
  add({{"a", "foo\nbar"}}, {rule(A::kKeep, {"a"}, "(?s)foo.*", "")});
  add({{"p", "1234"}, {"q", "1234"}}, {rule(A::kKeepEqual, {"p"}, "", "q")});
  add({{"p", "1234"}, {"q", "5678"}}, {rule(A::kKeepEqual, {"p"}, "", "q")});
  add({{"p", "1234"}, {"q", "1234"}}, {rule(A::kDropEqual, {"p"}, "", "q")});
  add({{"a", "1"}, {"b1", "2"}, {"b2", "3"}}, {rule(A::kLabelDrop, {}, "b.*", "")});
  add({{"a", "1"}, {"b1", "2"}, {"b2", "3"}}, {rule(A::kLabelKeep, {}, "__.*|b.*", "")});
  add({{"a", "abcd"}}, {rule(A::kReplace, {"a"}, "(a|ab)(c|bcd)(d*)", "d", "$1,$2,$3")});
  add({{"a", "aaa"}}, {rule(A::kReplace, {"a"}, "(a+?)(a*)", "d", "$1,$2")});
  add({{"a", "Ünïcode 42"}},
      {rule(A::kReplace, {"a"}, "(\\pL+)\\s+(\\d+)", "d", "$2-$1"), rule(A::kReplace, {"a"}, "(?i)ÜNÏ(.*)", "e", "$1"),
       rule(A::kReplace, {"a"}, "([[:alpha:]]*).*", "f", "<$1>")});
  add({{"a", "x"}}, {rule(A::kReplace, {"a"}, "x", "instance", "custom:1"),
                     rule(A::kReplace, {}, "", "__address__", "127.0.0.1:10")});
  add({{"a", "x"}}, {rule(A::kReplace, {"__scheme__", "__metrics_path__"}, "(.*);/(.*)", "d", "$1 $2")});
  return cs;
}

std::string q(const std::string& s) {
  return nlohmann::json(s).dump();
}

std::string config_yaml(const std::vector<Case>& cs) {
  std::string y = "global:\n  scrape_interval: 1h\n  scrape_timeout: 10s\nscrape_configs:\n";
  for (const auto& c : cs) {
    y += "- job_name: " + q(c.name) + "\n  static_configs:\n  - targets: [\"127.0.0.1:9\"]\n    labels:\n";
    for (const auto& [k, v] : c.labels) y += "      " + k + ": " + q(v) + "\n";
    if (c.labels.empty()) y += "      {}\n";
    y += "  relabel_configs:\n";
    for (const auto& r : c.rules) {
      y += "  - action: " + std::string(relabel_action_name(r.action)) + "\n";
      if (r.set_source_labels) {
        y += "    source_labels: [";
        for (size_t i = 0; i < r.source_labels.size(); ++i) y += (i ? ", " : "") + q(r.source_labels[i]);
        y += "]\n";
      }
      if (r.separator != ";") y += "    separator: " + q(r.separator) + "\n";
      if (r.set_regex) y += "    regex: " + q(r.regex) + "\n";
      if (r.modulus != 0) y += "    modulus: " + std::to_string(r.modulus) + "\n";
      if (!r.target_label.empty()) y += "    target_label: " + q(r.target_label) + "\n";
      if (r.replacement != "$1") y += "    replacement: " + q(r.replacement) + "\n";
    }
  }
  return y;
}

Map to_map(const nlohmann::json& j) {
  Map m;
  for (const auto& [k, v] : j.items()) m[k] = v.get<std::string>();
  return m;
}

// What Prometheus 2.42's populateLabels does after relabel_configs.
Map after_relabel(const std::vector<model::Label>& ls) {
  Map m;
  for (const auto& l : ls) m[l.name] = l.value;
  if (!m.count("instance") && m.count("__address__")) m["instance"] = m["__address__"];
  for (auto it = m.begin(); it != m.end();) it = it->first.rfind("__", 0) == 0 ? m.erase(it) : std::next(it);
  return m;
}

std::string show(const Map& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) out += k + "=" + q(v) + " ";
  return out + "}";
}

TEST(RelabelPrometheusDiff, ProcessMatchesPrometheus242) {
  const std::string prometheus = llmon::testing::find_program("prometheus");
  if (prometheus.empty()) GTEST_SKIP() << "prometheus not installed";
  std::string dir = ::testing::TempDir() + "llmon_relabel_diff_XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  const auto cs = cases();
  { std::ofstream(dir + "/prometheus.yml") << config_yaml(cs); }
  llmon::testing::PrometheusProcess p;
  Status started = p.start(prometheus, dir + "/prometheus.yml", dir + "/data", {}, dir);
  ASSERT_TRUE(started) << started.message();

  // Targets appear after the discovery and scrape managers' first update.
  nlohmann::json data;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (true) {
    auto r = llmon::testing::http_request(p.port(), "GET", "/api/v1/targets?state=any");
    if (r.status == 200) {
      auto j = nlohmann::json::parse(r.body, nullptr, false);
      if (!j.is_discarded() && j.contains("data")) {
        data = j["data"];
        if (data["activeTargets"].size() + data["droppedTargets"].size() >= cs.size()) break;
      }
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "targets did not all appear:\n" << p.log();
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }

  struct Seen {
    Map discovered;
    bool dropped = true;
    Map labels;
  };
  std::map<std::string, Seen> seen;
  for (const auto& t : data["activeTargets"]) {
    seen[t["scrapePool"].get<std::string>()] = {to_map(t["discoveredLabels"]), false, to_map(t["labels"])};
  }
  for (const auto& t : data["droppedTargets"]) {
    Map d = to_map(t["discoveredLabels"]);
    seen[d["job"]] = {d, true, {}};
  }
  for (const auto& c : cs) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(seen.count(c.name));
    const Seen& s = seen[c.name];
    auto r = Relabeler::compile(c.rules);
    ASSERT_TRUE(r.has_value()) << r.error();
    std::vector<model::Label> ls;
    for (const auto& [k, v] : s.discovered) ls.push_back({k, v});
    const bool kept = r->process(ls);
    EXPECT_EQ(!kept, s.dropped) << "discovered " << show(s.discovered);
    if (kept && !s.dropped) {
      EXPECT_EQ(show(after_relabel(ls)), show(s.labels)) << "discovered " << show(s.discovered);
    }
  }
  p.stop();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace llmon::scrape
