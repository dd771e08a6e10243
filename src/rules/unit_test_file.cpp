// Rule unit-test file parsing (unit_test_file.h): promtool 2.42's
// unitTestFile/testGroup/series/alertTestCase/alert/promqlTestCase/sample
// structs decoded with yaml.v2 UnmarshalStrict semantics (rule_file_yaml.h).
#include "rules/unit_test_file.h"

#include "rules/rule_file_yaml.h"

namespace llmon::rules {

namespace {

using yaml::Decoder;
using yaml::MapEntry;
using yaml::Node;

StringPairs to_pairs(const std::vector<MapEntry>& entries) {
  StringPairs out;
  for (const auto& e : entries) out.emplace_back(e.key, e.value);
  return out;
}

class TestFileDecoder {
 public:
  explicit TestFileDecoder(std::string_view file) : file_(file), dec_(yaml::Dialect::kV2) {}

  void file(const Node& root, RuleTestFile& out) {
    static const std::vector<std::string_view> kFields = {"rule_files", "evaluation_interval", "group_eval_order",
                                                          "tests"};
    dec_.structure(root, "main.unitTestFile", kFields, [&](size_t f, const Node&, const Node& v) {
      switch (f) {
        case 0:
          dec_.string_list(v, out.rule_files);
          break;
        case 1:
          dec_.duration(v, out.evaluation_interval_ms);
          break;
        case 2:
          dec_.string_list(v, out.group_eval_order);
          break;
        case 3:
          dec_.sequence(v, "[]main.testGroup", false, [&](const Node& item) {
            out.tests.emplace_back();
            group(item, out.tests.back());
          });
          break;
      }
    });
  }

  const Decoder& decoder() const { return dec_; }

 private:
  SourcePos pos(const Node& n) const {
    const Node& d = Decoder::deref(n);
    return SourcePos{std::string(file_), d.line, d.column};
  }

  void group(const Node& n, RuleTestGroup& g) {
    g.pos = pos(n);
    static const std::vector<std::string_view> kFields = {
        "interval", "input_series", "alert_rule_test", "promql_expr_test", "external_labels", "external_url", "name"};
    dec_.structure(n, "main.testGroup", kFields, [&](size_t f, const Node&, const Node& v) {
      switch (f) {
        case 0:
          dec_.duration(v, g.interval_ms);
          break;
        case 1:
          dec_.sequence(v, "[]main.series", false, [&](const Node& item) {
            TestInputSeries s;
            s.pos = pos(item);
            dec_.structure(item, "main.series", {"series", "values"}, [&](size_t sf, const Node&, const Node& sv) {
              dec_.str(sv, sf == 0 ? s.series : s.values);
            });
            g.input_series.push_back(std::move(s));
          });
          break;
        case 2:
          dec_.sequence(v, "[]main.alertTestCase", false, [&](const Node& item) {
            g.alert_rule_tests.emplace_back();
            alert_case(item, g.alert_rule_tests.back());
          });
          break;
        case 3:
          dec_.sequence(v, "[]main.promqlTestCase", false, [&](const Node& item) {
            g.promql_expr_tests.emplace_back();
            promql_case(item, g.promql_expr_tests.back());
          });
          break;
        case 4: {
          std::vector<MapEntry> labels;
          dec_.string_map(v, "map[string]string", labels);
          g.external_labels = to_pairs(labels);
          break;
        }
        case 5:
          dec_.str(v, g.external_url);
          break;
        case 6:
          dec_.str(v, g.name);
          break;
      }
    });
  }

  void alert_case(const Node& n, AlertTestCase& c) {
    c.pos = pos(n);
    static const std::vector<std::string_view> kFields = {"eval_time", "alertname", "exp_alerts"};
    dec_.structure(n, "main.alertTestCase", kFields, [&](size_t f, const Node&, const Node& v) {
      switch (f) {
        case 0:
          dec_.duration(v, c.eval_time_ms);
          break;
        case 1:
          dec_.str(v, c.alertname);
          break;
        case 2:
          dec_.sequence(v, "[]main.alert", false, [&](const Node& item) {
            TestExpectedAlert a;
            dec_.structure(item, "main.alert", {"exp_labels", "exp_annotations"},
                           [&](size_t af, const Node&, const Node& av) {
                             std::vector<MapEntry> m;
                             dec_.string_map(av, "map[string]string", m);
                             (af == 0 ? a.exp_labels : a.exp_annotations) = to_pairs(m);
                           });
            c.exp_alerts.push_back(std::move(a));
          });
          break;
      }
    });
  }

  void promql_case(const Node& n, PromqlTestCase& c) {
    c.pos = pos(n);
    static const std::vector<std::string_view> kFields = {"expr", "eval_time", "exp_samples"};
    dec_.structure(n, "main.promqlTestCase", kFields, [&](size_t f, const Node&, const Node& v) {
      switch (f) {
        case 0:
          dec_.str(v, c.expr);
          break;
        case 1:
          dec_.duration(v, c.eval_time_ms);
          break;
        case 2:
          dec_.sequence(v, "[]main.sample", false, [&](const Node& item) {
            TestExpectedSample s;
            dec_.structure(item, "main.sample", {"labels", "value"}, [&](size_t sf, const Node&, const Node& sv) {
              if (sf == 0) {
                dec_.str(sv, s.labels);
              } else {
                dec_.float64(sv, s.value);
              }
            });
            c.exp_samples.push_back(std::move(s));
          });
          break;
      }
    });
  }

  std::string_view file_;
  Decoder dec_;
};

}  // namespace

Expected<RuleTestFile> parse_rule_test_file(std::string_view file, std::string_view content) {
  const std::string prefix = std::string(file) + ": ";
  auto root = yaml::parse(content);
  if (!root) return Status::error(prefix + root.error());
  RuleTestFile out;
  TestFileDecoder d(file);
  if (*root) d.file(**root, out);
  const Decoder& dec = d.decoder();
  if (dec.ok()) return out;
  std::string msg;
  if (!dec.type_errors().empty()) {
    msg = prefix + "yaml: unmarshal errors:";
    for (const auto& e : dec.type_errors()) msg += "\n  " + e;
  }
  for (const auto& e : dec.fatal_errors()) {
    if (!msg.empty()) msg += "\n";
    msg += prefix + e;
  }
  return Status::error(msg);
}

}  // namespace llmon::rules
