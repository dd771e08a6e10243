// Differential test of the alert template engine against Prometheus 2.42
// itself. Every template of the corpus is rendered here for alert data like
// Prometheus builds it (labels of the firing series, external labels, the
// value), then written into a rule file whose `promtool test rules` test
// expects exactly our output as the alert's annotation: promtool passes
// only when each expansion (or "<error expanding template: ...>" text) is
// byte-identical. Templates that must fail to parse are checked with
// `promtool check rules`, whose error line must equal ours. Queries made by
// `query` are answered here from a table that mirrors the test's input
// series. Skipped (with the reason) when promtool is not installed.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "go/strconv.h"
#include "rules/template.h"
#include "rules/template_test_corpus.h"
#include "support/test_paths.h"

namespace llmon::rules {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string find_promtool() { return testing::find_program("promtool"); }

std::string scratch_dir() {
  std::string t = ::testing::TempDir() + "llmon_template_diff_XXXXXX";
  return ::mkdtemp(t.data()) ? t : "";
}

// A YAML double-quoted scalar: JSON string syntax, plus escapes for the
// characters YAML does not allow raw (DEL and the C1 controls).
std::string yq(const std::string& s) {
  const std::string j = nlohmann::json(s).dump();
  std::string out;
  for (size_t i = 0; i < j.size(); ++i) {
    const auto c = static_cast<unsigned char>(j[i]);
    if (c == 0x7F) {
      out += "\\x7F";
    } else if (c == 0xC2 && i + 1 < j.size() && static_cast<unsigned char>(j[i + 1]) < 0xA0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned char>(j[++i]));
      out += buf;
    } else {
      out += j[i];
    }
  }
  return out;
}

std::string num(double v) {  // series-notation number
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::pair<int, std::string> run(const std::string& cmd) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// One alert: its series (labels without __name__) and value.
struct Dataset {
  std::string id;
  std::map<std::string, std::string> labels;
  double value;
};

const std::map<std::string, std::string> kExternalLabels = {{"cluster", "c1"}, {"region", "eu-west"}};
const std::string kExternalURL = "http://prom.example.com:9090/prom";

// The input series the `query` templates read, and what promtool's engine
// returns for each query string at the evaluation time.
struct QuerySeries {
  std::string query;
  std::vector<tmpl::Sample> result;
};

std::vector<QuerySeries> query_series() {
  return {
      {"tmpl_query",
       {{{{"__name__", "tmpl_query"}, {"instance", "b:9100"}, {"job", "node"}}, 2},
        {{{"__name__", "tmpl_query"}, {"instance", "a:9100"}, {"job", "node"}}, 1.5}}},
      {"tmpl_one", {{{{"__name__", "tmpl_one"}, {"instance", "host-1.example.com:9100"}, {"job", "api"}}, 42}}},
      {"tmpl_empty", {}},
  };
}

// Parses promtool's "Annotations:{a000=\"...\", ...}" into a map.
std::map<std::string, std::string> parse_annotations(const std::string& line) {
  std::map<std::string, std::string> out;
  size_t i = line.find('{');
  if (i == std::string::npos) return out;
  ++i;
  while (i < line.size() && line[i] != '}') {
    const size_t eq = line.find('=', i);
    if (eq == std::string::npos) break;
    const std::string key = line.substr(i, eq - i);
    size_t j = eq + 1;
    if (j >= line.size() || line[j] != '"') break;
    size_t k = j + 1;
    while (k < line.size() && line[k] != '"') k += line[k] == '\\' ? 2 : 1;
    auto v = go::unquote_prometheus(line.substr(j, k - j + 1));
    out[key] = v ? *v : "<unparsable>";
    i = k + 1;
    while (i < line.size() && (line[i] == ',' || line[i] == ' ')) ++i;
  }
  return out;
}

// From promtool's failure report, the annotations it got per alert name.
std::map<std::string, std::map<std::string, std::string>> parse_failures(const std::string& out) {
  std::map<std::string, std::map<std::string, std::string>> got;
  std::stringstream ss(out);
  std::string line, alert;
  bool in_got = false;
  while (std::getline(ss, line)) {
    const size_t a = line.find("alertname: ");
    if (a != std::string::npos) {
      alert = line.substr(a + 11, line.find(',', a) - a - 11);
      in_got = false;
    }
    if (line.find("got:[") != std::string::npos) in_got = true;
    const size_t an = line.find("Annotations:{");
    if (in_got && an != std::string::npos) got[alert] = parse_annotations(line.substr(an + 12));
  }
  return got;
}

TEST(TemplatePromtoolDiff, ExpansionsMatchPrometheus) {
  const std::string promtool = find_promtool();
  if (promtool.empty()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  const std::string dir = scratch_dir();
  ASSERT_FALSE(dir.empty());

  const std::vector<Dataset> datasets = [] {
    std::vector<Dataset> d;
    const std::map<std::string, std::string> base = {
        {"instance", "host-1.example.com:9100"}, {"job", "node"}, {"device", "nvidia0"}, {"severity", "page"}};
    const double values[] = {0,      1,         -1,       0.5,       1234.5678, -0.000123, 1e-9,    1e21,
                             -1e21,  123456789, 176523.5, 0.0015,    kNaN,      kInf,      -kInf,   1.7e308,
                             5e-324, 1.6725e9,  -1.5,     999.95,    1023.9,    1024,      1048576, 0.9995,
                             59.99,  3599.9,    1e19,     86399.999, 0.1,       100,       1e15,    -65.5};
    int i = 0;
    for (double v : values) {
      Dataset ds{"d" + std::to_string(i++), base, v};
      ds.labels["case"] = ds.id;
      d.push_back(ds);
    }
    return d;
  }();

  std::map<std::string, std::vector<tmpl::Sample>> answers;
  for (const auto& q : query_series()) answers[q.query] = q.result;
  TemplateEnv env;
  env.query = [&answers](std::string_view q) -> Expected<std::vector<tmpl::Sample>> {
    auto it = answers.find(std::string(q));
    if (it == answers.end()) return Status::error("test has no answer for query " + std::string(q));
    return it->second;
  };

  const auto& value_templates = test::value_templates();
  const auto& general_templates = test::general_templates();

  // alert -> annotation key -> (template, our output)
  std::map<std::string, std::map<std::string, std::pair<std::string, std::string>>> want;
  std::ofstream rules(dir + "/rules.yml");
  rules << "groups:\n- name: templates\n  rules:\n";
  for (size_t d = 0; d < datasets.size(); ++d) {
    const Dataset& ds = datasets[d];
    const std::string alert = "Tmpl" + ds.id;
    auto labels = ds.labels;
    labels["__name__"] = "tmpl_test";
    const tmpl::Value data = tmpl::alert_template_data(labels, kExternalLabels, kExternalURL, ds.value);
    rules << "  - alert: " << alert << "\n    expr: tmpl_test{case=\"" << ds.id << "\"}\n    annotations:\n";
    auto add = [&](const std::string& key, const std::string& t) {
      if (!parse_alert_template(alert, t)) {  // it would stop promtool loading the rules
        ADD_FAILURE() << "does not parse (move it to parse_error_templates): " << t;
        return;
      }
      want[alert][key] = {t, expand_alert_text(alert, t, data, env)};
      rules << "      " << key << ": " << yq(t) << "\n";
    };
    for (size_t i = 0; i < value_templates.size(); ++i) add("v" + std::to_string(i), value_templates[i]);
    if (d == 0)
      for (size_t i = 0; i < general_templates.size(); ++i) add("g" + std::to_string(i), general_templates[i]);
  }
  rules.close();

  std::ofstream test(dir + "/test.yml");
  test << "rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n- interval: 1m\n";
  test << "  external_labels:\n";
  for (const auto& [k, v] : kExternalLabels) test << "    " << k << ": " << yq(v) << "\n";
  test << "  external_url: " << yq(kExternalURL) << "\n  input_series:\n";
  for (const auto& ds : datasets) {
    std::string series = "tmpl_test{";
    bool first = true;
    for (const auto& [k, v] : ds.labels) {
      series += (first ? "" : ",") + k + "=" + go::quote(v);
      first = false;
    }
    test << "  - series: " << yq(series + "}") << "\n    values: " << yq(num(ds.value)) << "\n";
  }
  for (const auto& q : query_series()) {
    for (const auto& s : q.result) {
      std::string series = s.labels.at("__name__") + "{";
      bool first = true;
      for (const auto& [k, v] : s.labels) {
        if (k == "__name__") continue;
        series += (first ? "" : ",") + k + "=" + go::quote(v);
        first = false;
      }
      test << "  - series: " << yq(series + "}") << "\n    values: " << yq(num(s.value)) << "\n";
    }
  }
  test << "  alert_rule_test:\n";
  for (const auto& ds : datasets) {
    const std::string alert = "Tmpl" + ds.id;
    test << "  - eval_time: 0m\n    alertname: " << alert << "\n    exp_alerts:\n    - exp_labels:\n";
    for (const auto& [k, v] : ds.labels) test << "        " << k << ": " << yq(v) << "\n";
    test << "      exp_annotations:\n";
    for (const auto& [key, tv] : want[alert]) test << "        " << key << ": " << yq(tv.second) << "\n";
  }
  test.close();

  auto [rc, out] = run(promtool + " test rules " + dir + "/test.yml");
  if (rc != 0) {
    const auto got = parse_failures(out);
    int diffs = 0;
    for (const auto& [alert, annotations] : got) {
      for (const auto& [key, tv] : want[alert]) {
        auto it = annotations.find(key);
        const std::string theirs = it == annotations.end() ? "<missing>" : it->second;
        if (theirs == tv.second) continue;
        ++diffs;
        ADD_FAILURE() << alert << " " << key << "\n  template: " << tv.first << "\n  llmon:    " << tv.second
                      << "\n  promtool: " << theirs;
      }
    }
    if (diffs == 0) ADD_FAILURE() << "promtool failed:\n" << out.substr(0, 20000);
  }
  std::filesystem::remove_all(dir);
}

TEST(TemplatePromtoolDiff, ParseErrorsMatchPrometheus) {
  const std::string promtool = find_promtool();
  if (promtool.empty()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  const std::string dir = scratch_dir();
  ASSERT_FALSE(dir.empty());
  const auto& bad = test::parse_error_templates();
  std::vector<std::string> ours;
  std::ofstream rules(dir + "/rules.yml");
  rules << "groups:\n- name: g\n  rules:\n";
  for (size_t i = 0; i < bad.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "P%03zu", i);
    rules << "  - alert: " << name << "\n    expr: up\n    annotations:\n      a: " << yq(bad[i]) << "\n";
    auto t = Template::parse("__alert_" + std::string(name), std::string(kAlertTemplateDefs) + bad[i]);
    ours.push_back(t ? "<parsed>" : t.error());
  }
  rules.close();
  auto [rc, out] = run(promtool + " check rules " + dir + "/rules.yml");
  EXPECT_NE(rc, 0);
  std::map<size_t, std::string> theirs;
  std::stringstream ss(out);
  std::string line;
  while (std::getline(ss, line)) {
    const size_t p = line.find("\"P");
    const size_t a = line.find("\": annotation \"a\": ");
    if (p == std::string::npos || a == std::string::npos) continue;
    theirs[std::stoul(line.substr(p + 2, 3))] = line.substr(a + 19);
  }
  for (size_t i = 0; i < bad.size(); ++i) {
    auto it = theirs.find(i);
    EXPECT_EQ(ours[i], it == theirs.end() ? "<parsed>" : it->second) << "template: " << bad[i];
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace llmon::rules
