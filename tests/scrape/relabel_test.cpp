// Relabelling (scrape/relabel.h): the cases of Prometheus 2.42's
// model/relabel/relabel_test.go as facts (input, rules, expected output),
// plus Go's Regexp.Expand details and the validation messages.
#include "scrape/relabel.h"

#include <gtest/gtest.h>

#include <map>

namespace llmon::scrape {
namespace {

using A = RelabelAction;
using Map = std::map<std::string, std::string>;

std::vector<model::Label> from_map(const Map& m) {
  std::vector<model::Label> out;
  for (const auto& [k, v] : m) out.push_back({k, v});
  return out;
}

RelabelConfig rule(A action) {
  RelabelConfig c;
  c.action = action;
  return c;
}

RelabelConfig replace(std::vector<std::string> src, std::string regex, std::string target, std::string replacement) {
  RelabelConfig c;
  c.source_labels = std::move(src);
  c.set_source_labels = true;
  c.regex = std::move(regex);
  c.set_regex = true;
  c.target_label = std::move(target);
  c.replacement = std::move(replacement);
  return c;
}

RelabelConfig with_regex(A action, std::vector<std::string> src, std::string regex) {
  RelabelConfig c = rule(action);
  if (!src.empty()) {
    c.source_labels = std::move(src);
    c.set_source_labels = true;
  }
  c.regex = std::move(regex);
  c.set_regex = true;
  return c;
}

RelabelConfig with_target(A action, std::vector<std::string> src, std::string target) {
  RelabelConfig c = rule(action);
  c.source_labels = std::move(src);
  c.set_source_labels = true;
  c.target_label = std::move(target);
  return c;
}

// Runs the rules; nullopt when the set was dropped.
std::optional<Map> run(const Map& input, const std::vector<RelabelConfig>& rules) {
  auto r = Relabeler::compile(rules);
  EXPECT_TRUE(r.has_value()) << r.error();
  if (!r) return std::nullopt;
  auto labels = from_map(input);
  if (!r->process(labels)) return std::nullopt;
  Map out;
  std::string prev;
  for (const auto& l : labels) {
    EXPECT_LT(prev, l.name) << "output not sorted";
    EXPECT_FALSE(l.value.empty());
    prev = l.name;
    out[l.name] = l.value;
  }
  return out;
}

std::string compile_error(const std::vector<RelabelConfig>& rules) {
  auto r = Relabeler::compile(rules);
  return r ? "" : r.error();
}

// --- relabel_test.go TestRelabel ---

TEST(Relabel, ReplaceBraceReferences) {
  EXPECT_EQ(run({{"a", "foo"}, {"b", "bar"}, {"c", "baz"}}, {replace({"a"}, "f(.*)", "d", "ch${1}-ch${1}")}),
            (Map{{"a", "foo"}, {"b", "bar"}, {"c", "baz"}, {"d", "choo-choo"}}));
}

TEST(Relabel, ReplaceChainSeesEarlierRules) {
  EXPECT_EQ(run({{"a", "foo"}, {"b", "bar"}, {"c", "baz"}}, {replace({"a", "b"}, "f(.*);(.*)r", "a", "b${1}${2}m"),
                                                             replace({"c", "a"}, "(b).*b(.*)ba(.*)", "d", "$1$2$2$3")}),
            (Map{{"a", "boobam"}, {"b", "bar"}, {"c", "baz"}, {"d", "boooom"}}));
}

TEST(Relabel, DropStopsBeforeLaterRules) {
  EXPECT_EQ(run({{"a", "foo"}}, {with_regex(A::kDrop, {"a"}, ".*o.*"), replace({"a"}, "f(.*)", "d", "ch$1-ch$1")}),
            std::nullopt);
  EXPECT_EQ(run({{"a", "foo"}, {"b", "bar"}}, {with_regex(A::kDrop, {"a"}, ".*o.*")}), std::nullopt);
}

TEST(Relabel, ReplaceSubmatch) {
  EXPECT_EQ(run({{"a", "abc"}}, {replace({"a"}, ".*(b).*", "d", "$1")}), (Map{{"a", "abc"}, {"d", "b"}}));
}

TEST(Relabel, DropNoMatchKeeps) {
  EXPECT_EQ(run({{"a", "foo"}}, {with_regex(A::kDrop, {"a"}, "no-match")}), (Map{{"a", "foo"}}));
  // Anchored: "f|o" does not match "foo" as a whole.
  EXPECT_EQ(run({{"a", "foo"}}, {with_regex(A::kDrop, {"a"}, "f|o")}), (Map{{"a", "foo"}}));
}

TEST(Relabel, Keep) {
  EXPECT_EQ(run({{"a", "foo"}}, {with_regex(A::kKeep, {"a"}, "no-match")}), std::nullopt);
  EXPECT_EQ(run({{"a", "foo"}}, {with_regex(A::kKeep, {"a"}, "f.*")}), (Map{{"a", "foo"}}));
}

TEST(Relabel, ReplaceWithoutMatchChangesNothing) {
  EXPECT_EQ(run({{"a", "boo"}}, {replace({"a"}, "f", "b", "bar")}), (Map{{"a", "boo"}}));
}

TEST(Relabel, HashMod) {
  RelabelConfig c = with_target(A::kHashMod, {"c"}, "d");
  c.modulus = 1000;
  EXPECT_EQ(run({{"a", "foo"}, {"b", "bar"}, {"c", "baz"}}, {c}),
            (Map{{"a", "foo"}, {"b", "bar"}, {"c", "baz"}, {"d", "976"}}));
  RelabelConfig nl = with_target(A::kHashMod, {"a"}, "b");
  nl.modulus = 1000;
  EXPECT_EQ(run({{"a", "foo\nbar"}}, {nl}), (Map{{"a", "foo\nbar"}, {"b", "734"}}));
}

TEST(Relabel, LabelMap) {
  RelabelConfig c = with_regex(A::kLabelMap, {}, "(b.*)");
  c.replacement = "bar_${1}";
  EXPECT_EQ(run({{"a", "foo"}, {"b1", "bar"}, {"b2", "baz"}}, {c}),
            (Map{{"a", "foo"}, {"b1", "bar"}, {"b2", "baz"}, {"bar_b1", "bar"}, {"bar_b2", "baz"}}));
  RelabelConfig meta = with_regex(A::kLabelMap, {}, "__meta_(my.*)");
  meta.replacement = "${1}";
  EXPECT_EQ(run({{"a", "foo"}, {"__meta_my_bar", "aaa"}, {"__meta_my_baz", "bbb"}, {"__meta_other", "ccc"}}, {meta}),
            (Map{{"a", "foo"},
                 {"__meta_my_bar", "aaa"},
                 {"__meta_my_baz", "bbb"},
                 {"__meta_other", "ccc"},
                 {"my_bar", "aaa"},
                 {"my_baz", "bbb"}}));
}

TEST(Relabel, TargetLabelTemplate) {
  // valid case
  EXPECT_EQ(run({{"a", "some-name-value"}}, {replace({"a"}, "some-([^-]+)-([^,]+)", "${1}", "${2}")}),
            (Map{{"a", "some-name-value"}, {"name", "value"}}));
  // invalid replacement "": nothing is set
  EXPECT_EQ(run({{"a", "some-name-value"}}, {replace({"a"}, "some-([^-]+)-([^,]+)", "${1}", "${3}")}),
            (Map{{"a", "some-name-value"}}));
  // invalid target_labels: "${3}" expands to "", "-0" is no label name
  EXPECT_EQ(run({{"a", "some-name-0"}}, {replace({"a"}, "some-([^-]+)-([^,]+)", "${3}", "${1}"),
                                         replace({"a"}, "some-([^-]+)-([^,]+)", "${3}", "${1}"),
                                         replace({"a"}, "some-([^-]+)(-[^,]+)", "${3}", "${1}")}),
            (Map{{"a", "some-name-0"}}));
}

TEST(Relabel, RealLifeTags) {
  const Map in{{"__meta_sd_tags", "path:/secret,job:some-job,label:foo=bar"}};
  EXPECT_EQ(run(in, {replace({"__meta_sd_tags"}, "(?:.+,|^)path:(/[^,]+).*", "__metrics_path__", "${1}"),
                     replace({"__meta_sd_tags"}, "(?:.+,|^)job:([^,]+).*", "job", "${1}"),
                     replace({"__meta_sd_tags"}, "(?:.+,|^)label:([^=]+)=([^,]+).*", "${1}", "${2}")}),
            (Map{{"__meta_sd_tags", "path:/secret,job:some-job,label:foo=bar"},
                 {"__metrics_path__", "/secret"},
                 {"job", "some-job"},
                 {"foo", "bar"}}));
}

TEST(Relabel, LabelDropThenReplaceThenKeep) {  // Prometheus issue #12283
  const Map in{{"__meta_kubernetes_pod_container_port_name", "foo"},
               {"__meta_kubernetes_pod_annotation_XXX_metrics_port", "9091"}};
  EXPECT_EQ(run(in, {with_regex(A::kLabelDrop, {}, "^__meta_kubernetes_pod_container_port_name$"),
                     replace({"__meta_kubernetes_pod_annotation_XXX_metrics_port"}, "(.+)",
                             "__meta_kubernetes_pod_container_port_name", "metrics"),
                     with_regex(A::kKeep, {"__meta_kubernetes_pod_container_port_name"}, "^metrics$")}),
            (Map{{"__meta_kubernetes_pod_annotation_XXX_metrics_port", "9091"},
                 {"__meta_kubernetes_pod_container_port_name", "metrics"}}));
}

TEST(Relabel, LabelKeepAndDrop) {
  const Map in{{"a", "foo"}, {"b1", "bar"}, {"b2", "baz"}};
  EXPECT_EQ(run(in, {with_regex(A::kLabelKeep, {}, "(b.*)")}), (Map{{"b1", "bar"}, {"b2", "baz"}}));
  EXPECT_EQ(run(in, {with_regex(A::kLabelDrop, {}, "(b.*)")}), (Map{{"a", "foo"}}));
}

TEST(Relabel, LowerAndUpperCase) {
  EXPECT_EQ(run({{"foo", "bAr123Foo"}}, {with_target(A::kUppercase, {"foo"}, "foo_uppercase"),
                                         with_target(A::kLowercase, {"foo"}, "foo_lowercase")}),
            (Map{{"foo", "bAr123Foo"}, {"foo_lowercase", "bar123foo"}, {"foo_uppercase", "BAR123FOO"}}));
  // Go's strings.ToUpper maps rune by rune: non-ASCII letters too, but "ß"
  // has no one-rune upper case and stays (no "SS").
  EXPECT_EQ(run({{"a", "Grüße"}}, {with_target(A::kUppercase, {"a"}, "u")}), (Map{{"a", "Grüße"}, {"u", "GRÜßE"}}));
}

TEST(Relabel, KeepEqualDropEqual) {
  const Map in{{"__tmp_port", "1234"}, {"__port1", "1234"}, {"__port2", "5678"}};
  EXPECT_EQ(run(in, {with_target(A::kKeepEqual, {"__tmp_port"}, "__port1")}), in);
  EXPECT_EQ(run(in, {with_target(A::kDropEqual, {"__tmp_port"}, "__port1")}), std::nullopt);
  EXPECT_EQ(run(in, {with_target(A::kDropEqual, {"__tmp_port"}, "__port2")}), in);
  EXPECT_EQ(run(in, {with_target(A::kKeepEqual, {"__tmp_port"}, "__port2")}), std::nullopt);
  // Absent on both sides: "" == "".
  EXPECT_EQ(run(in, {with_target(A::kKeepEqual, {"x"}, "y")}), in);
}

// --- details beyond relabel_test.go ---

TEST(Relabel, DefaultsCopyOrDelete) {
  // Default regex (.*) and replacement $1: a copy of the joined sources.
  RelabelConfig c = with_target(A::kReplace, {"a", "b"}, "c");
  EXPECT_EQ(run({{"a", "x"}, {"b", "y"}}, {c}), (Map{{"a", "x"}, {"b", "y"}, {"c", "x;y"}}));
  // An empty result deletes the (literal) target.
  RelabelConfig del = with_target(A::kReplace, {"missing"}, "a");
  EXPECT_EQ(run({{"a", "x"}, {"b", "y"}}, {del}), (Map{{"b", "y"}}));
  // No source labels: the source value is "", (.*) matches; a static label.
  RelabelConfig stat = rule(A::kReplace);
  stat.target_label = "env";
  stat.replacement = "prod";
  EXPECT_EQ(run({{"a", "x"}}, {stat}), (Map{{"a", "x"}, {"env", "prod"}}));
}

TEST(Relabel, EmptyResultWithTemplatedTargetDeletesNothing) {
  // 2.42 deletes target_label as written ("${1}"), not "name" (issue #8186).
  EXPECT_EQ(run({{"a", "name"}, {"name", "v"}}, {replace({"a"}, "(.*)", "${1}", "")}),
            (Map{{"a", "name"}, {"name", "v"}}));
}

TEST(Relabel, GoExpandSyntax) {
  const Map in{{"a", "foo-bar"}};
  auto d = [&](const std::string& regex, const std::string& repl) {
    auto out = run(in, {replace({"a"}, regex, "d", repl)});
    if (!out) return std::string("<dropped>");
    auto it = out->find("d");
    return it == out->end() ? std::string("<absent>") : it->second;
  };
  EXPECT_EQ(d("(\\w+)-(\\w+)", "$2.$1"), "bar.foo");
  EXPECT_EQ(d("(\\w+)-(\\w+)", "$$1"), "$1");        // $$ is a '$'
  EXPECT_EQ(d("(\\w+)-(\\w+)", "$1x"), "<absent>");  // the group named "1x": ""
  EXPECT_EQ(d("(\\w+)-(\\w+)", "${1}x"), "foox");
  EXPECT_EQ(d("(?P<first>\\w+)-(?P<second>\\w+)", "$second/${first}"), "bar/foo");
  EXPECT_EQ(d("(\\w+)-(\\w+)", "a$"), "a$");              // '$' at the end stays
  EXPECT_EQ(d("(\\w+)-(\\w+)", "${1"), "${1");            // unclosed brace stays
  EXPECT_EQ(d("(\\w+)-(\\w+)", "$-$1"), "$-foo");         // '$' before a non-name
  EXPECT_EQ(d("(\\w+)-(\\w+)", "$01"), "<absent>");       // leading zero: a name
  EXPECT_EQ(d("(\\w+)-(\\w+)", "${0}"), "foo-bar");       // the whole match
  EXPECT_EQ(d("(\\w+)-(\\w+)", "[$9]"), "[]");            // no such group
  EXPECT_EQ(d("(\\w+)-(x)?(\\w+)", "<$2>"), "<>");        // unmatched group
  EXPECT_EQ(d("(?P<n>\\w+)-(\\w+)", "$né"), "<absent>");  // Unicode name "né": unknown
}

TEST(Relabel, AnchoredAndNoNewlineDot) {
  EXPECT_EQ(run({{"a", "xfoo"}}, {with_regex(A::kKeep, {"a"}, "foo")}), std::nullopt);
  // 2.42: `.` does not match a newline (3.x's (?s:) would).
  EXPECT_EQ(run({{"a", "foo\nbar"}}, {with_regex(A::kKeep, {"a"}, "foo.*")}), std::nullopt);
  EXPECT_EQ(run({{"a", "foo\nbar"}}, {with_regex(A::kKeep, {"a"}, "(?s)foo.*")}), (Map{{"a", "foo\nbar"}}));
}

TEST(Relabel, LabelMapUsesNamesBeforeTheRuleAndLaterCopyWins) {
  RelabelConfig c = with_regex(A::kLabelMap, {}, "(?:a_)?(x)");
  c.replacement = "$1";
  // Both a_x and x match and map to "x": in name order, x's own copy is last.
  EXPECT_EQ(run({{"a_x", "1"}, {"x", "2"}}, {c}), (Map{{"a_x", "1"}, {"x", "2"}}));
  RelabelConfig chain = with_regex(A::kLabelMap, {}, "b(.*)");
  chain.replacement = "bb$1";
  // "bbx" made by this rule is not mapped again within it.
  EXPECT_EQ(run({{"bx", "1"}}, {chain}), (Map{{"bx", "1"}, {"bbx", "1"}}));
}

TEST(Relabel, InputOrderAndEmptyValues) {
  auto r = Relabeler::compile({});
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->empty());
  std::vector<model::Label> ls{{"b", "2"}, {"a", "1"}, {"c", ""}};
  ASSERT_TRUE(r->process(ls));
  EXPECT_EQ(ls, (std::vector<model::Label>{{"a", "1"}, {"b", "2"}}));
}

TEST(Relabel, SeparatorAndAbsentSources) {
  RelabelConfig c = with_target(A::kReplace, {"a", "missing", "b"}, "j");
  c.separator = "/";
  EXPECT_EQ(run({{"a", "x"}, {"b", "y"}}, {c}), (Map{{"a", "x"}, {"b", "y"}, {"j", "x//y"}}));
}

TEST(Relabel, HashModMatchesPrometheusSharding) {
  // md5("") = d41d8cd98f00b204e9800998ecf8427e; last 8 bytes
  // 0xe9800998ecf8427e = 16825458760271544958.
  RelabelConfig c = with_target(A::kHashMod, {"missing"}, "h");
  c.modulus = 1000000007;
  EXPECT_EQ(run({}, {c}), (Map{{"h", std::to_string(16825458760271544958ull % 1000000007ull)}}));
}

// --- validation (2.42's Config.UnmarshalYAML), Prometheus's words ---

TEST(RelabelValidate, Messages) {
  EXPECT_EQ(compile_error({with_target(A::kHashMod, {"a"}, "h")}),
            "rule 1: relabel configuration for hashmod requires non-zero modulus");
  EXPECT_EQ(compile_error({rule(A::kReplace)}),
            "rule 1: relabel configuration for replace action requires 'target_label' value");
  EXPECT_EQ(compile_error({rule(A::kKeep), rule(A::kLowercase)}),
            "rule 2: relabel configuration for lowercase action requires 'target_label' value");
  RelabelConfig hm = with_target(A::kHashMod, {"a"}, "");
  hm.modulus = 3;
  EXPECT_EQ(compile_error({hm}), "rule 1: relabel configuration for hashmod action requires 'target_label' value");
  EXPECT_EQ(compile_error({replace({"a"}, "some-([^-]+)-([^,]+)", "0${3}", "${1}")}),
            "rule 1: \"0${3}\" is invalid 'target_label' for replace action");
  EXPECT_EQ(compile_error({replace({"a"}, "some-([^-]+)-([^,]+)", "-${3}", "${1}")}),
            "rule 1: \"-${3}\" is invalid 'target_label' for replace action");
  EXPECT_EQ(compile_error({with_target(A::kReplace, {"a"}, "a-b")}),
            "rule 1: \"a-b\" is invalid 'target_label' for replace action");
  EXPECT_EQ(compile_error({with_target(A::kUppercase, {"a"}, "1a")}),
            "rule 1: \"1a\" is invalid 'target_label' for uppercase action");
  RelabelConfig lc = with_target(A::kLowercase, {"a"}, "b");
  lc.replacement = "x";
  EXPECT_EQ(compile_error({lc}), "rule 1: 'replacement' can not be set for lowercase action");
  RelabelConfig lm = with_regex(A::kLabelMap, {}, "(.*)");
  lm.replacement = "a-$1";
  EXPECT_EQ(compile_error({lm}), "rule 1: \"a-$1\" is invalid 'replacement' for labelmap action");
  RelabelConfig ht = with_target(A::kHashMod, {"a"}, "${1}");
  ht.modulus = 2;
  EXPECT_EQ(compile_error({ht}), "rule 1: \"${1}\" is invalid 'target_label' for hashmod action");
  RelabelConfig ke = with_target(A::kKeepEqual, {"a"}, "b");
  ke.set_regex = true;  // even the default "(.*)" written out
  EXPECT_EQ(compile_error({ke}),
            "rule 1: keepequal action requires only 'source_labels' and `target_label`, and no other fields");
  RelabelConfig de = with_target(A::kDropEqual, {"a"}, "b");
  de.separator = ",";
  EXPECT_EQ(compile_error({de}),
            "rule 1: dropequal action requires only 'source_labels' and `target_label`, and no other fields");
  RelabelConfig ld = with_regex(A::kLabelDrop, {"a"}, "x");
  EXPECT_EQ(compile_error({ld}), "rule 1: labeldrop action requires only 'regex', and no other fields");
  RelabelConfig lk = with_regex(A::kLabelKeep, {}, "x");
  lk.target_label = "t";
  EXPECT_EQ(compile_error({lk}), "rule 1: labelkeep action requires only 'regex', and no other fields");
  RelabelConfig lks = with_regex(A::kLabelKeep, {}, "x");
  lks.separator = ";";  // the default value written out is fine
  EXPECT_EQ(compile_error({lks}), "");
}

TEST(RelabelValidate, TargetLabelTemplates) {
  // relabel_test.go TestTargetLabelValidity, through replace's check.
  const std::vector<std::pair<std::string, bool>> cases{
      {"-label", false}, {"label", true},       {"label${1}", true}, {"${1}label", true},
      {"${1}", true},    {"${", false},         {"$", false},        {"${}", false},
      {"foo${", false},  {"$1", true},          {"asd$2asd", true},  {"-foo${1}bar-", false},
      {"_${1}_", true},  {"foo${bar}foo", true}};
  for (const auto& [target, valid] : cases) {
    EXPECT_EQ(compile_error({with_target(A::kReplace, {"a"}, target)}).empty(), valid) << target;
  }
  // 2.42 checks lowercase/uppercase/keepequal targets against the same
  // template pattern only (later releases want a plain label name).
  EXPECT_EQ(compile_error({with_target(A::kLowercase, {"a"}, "${3}")}), "");
}

TEST(RelabelValidate, RegexErrorsAreGos) {
  EXPECT_EQ(compile_error({with_regex(A::kKeep, {"a"}, "(abc")}),
            "rule 1: error parsing regexp: missing closing ): `^(?:(abc)$`");
  EXPECT_EQ(compile_error({with_regex(A::kKeep, {"a"}, "a**")}),
            "rule 1: error parsing regexp: invalid nested repetition operator: `**`");
  EXPECT_EQ(compile_error({with_regex(A::kKeep, {"a"}, "\\C")}),
            "rule 1: error parsing regexp: invalid escape sequence: `\\C`");
}

TEST(RelabelAction, Names) {
  for (auto a : {A::kReplace, A::kKeep, A::kDrop, A::kKeepEqual, A::kDropEqual, A::kHashMod, A::kLabelMap,
                 A::kLabelDrop, A::kLabelKeep, A::kLowercase, A::kUppercase}) {
    EXPECT_EQ(parse_relabel_action(relabel_action_name(a)), a);
  }
  EXPECT_EQ(parse_relabel_action("LabelMap"), A::kLabelMap);  // lower-cased, as Prometheus does
  EXPECT_EQ(parse_relabel_action("rename"), std::nullopt);
  EXPECT_EQ(unknown_relabel_action_message("rename"), "unknown relabel action \"rename\"");
}

}  // namespace
}  // namespace llmon::scrape
