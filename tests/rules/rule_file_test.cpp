// Rule file parsing and validation (src/rules/rule_file.h) on literal YAML:
// good files into GroupSpecs, every error kind with its exact message (the
// texts are promtool 2.42's, with the positions we add), garbage, empty and
// huge input; loading directories and globs; `llmon rules check` output.
#include "rules/rule_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "promql/parser.h"
#include "rules/check_command.h"

namespace llmon::rules {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

Strings errors_of(const std::string& yaml) {
  return parse_rule_file("r.yml", yaml).errors;
}

class TempDir {
 public:
  TempDir() {
    std::string t = ::testing::TempDir() + "llmon_rule_file_XXXXXX";
    if (::mkdtemp(t.data())) path_ = t;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string write(const std::string& name, const std::string& content) const {
    std::string p = path_ + "/" + name;
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  std::string path_;
};

// Runs rules_check with its streams captured.
struct CheckRun {
  int rc = 0;
  std::string out, err;
};
std::string slurp(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}
CheckRun check(const Strings& files, const RulesCheckOptions& opts = {}) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  CheckRun r;
  r.rc = rules_check(files, opts, out, err);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

TEST(RuleFile, GoodFileBecomesGroupSpecs) {
  const std::string yaml = R"(groups:
  - name: gpu
    interval: 30s
    limit: 10
    query_offset: 1m
    labels:
      team: ml
    rules:
      - record: job:gpu_util:avg
        expr: avg by (job) (DCGM_FI_DEV_GPU_UTIL)
        labels:
          z: "1"
          a: "2"
      - alert: GPUHot
        expr: |
          DCGM_FI_DEV_GPU_TEMP > 85
        for: 5m
        keep_firing_for: 1m
        labels:
          severity: critical
          gpu: "{{ $labels.gpu }}"
        annotations:
          summary: "GPU {{ $labels.gpu }} at {{ $value }}"
          description: hot
  - name: second
    rules: []
)";
  RuleFileResult r = parse_rule_file("rules/gpu.yml", yaml);
  ASSERT_TRUE(r.ok()) << r.errors[0];
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.rule_count(), 2u);
  const GroupSpec& g = r.groups[0];
  EXPECT_EQ(g.name, "gpu");
  EXPECT_EQ(g.file, "rules/gpu.yml");
  EXPECT_EQ(g.interval_ms, 30'000);
  EXPECT_EQ(g.limit, 10);
  ASSERT_TRUE(g.query_offset_ms.has_value());
  EXPECT_EQ(*g.query_offset_ms, 60'000);
  EXPECT_EQ(g.labels, (StringPairs{{"team", "ml"}}));
  EXPECT_EQ(g.pos.line, 2);
  EXPECT_EQ(g.pos.column, 5);
  ASSERT_EQ(g.rules.size(), 2u);
  const RuleSpec& rec = g.rules[0];
  EXPECT_EQ(rec.kind, RuleSpec::Kind::kRecording);
  EXPECT_EQ(rec.name, "job:gpu_util:avg");
  EXPECT_EQ(rec.labels, (StringPairs{{"z", "1"}, {"a", "2"}}));  // file order
  ASSERT_NE(rec.parsed, nullptr);
  EXPECT_EQ(promql::format(*rec.parsed), "avg by (job) (DCGM_FI_DEV_GPU_UTIL)");
  EXPECT_EQ(rec.pos.line, 9);
  EXPECT_EQ(rec.pos.column, 9);
  const RuleSpec& al = g.rules[1];
  EXPECT_EQ(al.kind, RuleSpec::Kind::kAlerting);
  EXPECT_EQ(al.name, "GPUHot");
  EXPECT_EQ(al.expr, "DCGM_FI_DEV_GPU_TEMP > 85\n");
  EXPECT_EQ(al.for_ms, 300'000);
  EXPECT_EQ(al.keep_firing_for_ms, 60'000);
  EXPECT_EQ(al.labels, (StringPairs{{"severity", "critical"}, {"gpu", "{{ $labels.gpu }}"}}));
  EXPECT_EQ(al.annotations,
            (StringPairs{{"summary", "GPU {{ $labels.gpu }} at {{ $value }}"}, {"description", "hot"}}));
  EXPECT_EQ(al.pos.line, 14);
  EXPECT_FALSE(r.groups[1].query_offset_ms.has_value());
  EXPECT_EQ(r.groups[1].interval_ms, 0);
}

TEST(RuleFile, EmptyInputsHaveNoGroups) {
  for (const std::string yaml : {"", "groups:", "# only a comment\n", "---\n", "groups: []\n", "\xEF\xBB\xBFgroups:"}) {
    RuleFileResult r = parse_rule_file("r.yml", yaml);
    EXPECT_TRUE(r.ok()) << yaml << ": " << (r.errors.empty() ? "" : r.errors[0]);
    EXPECT_TRUE(r.groups.empty()) << yaml;
  }
  // A group without rules is a group.
  RuleFileResult r = parse_rule_file("r.yml", "groups:\n  - name: x\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.groups.size(), 1u);
}

TEST(RuleFile, GoYamlQuirksKept) {
  // Null items of the lists are dropped (rule numbering follows), `expr:
  // null` is the PromQL selector `null`, only the first document counts,
  // a float limit is truncated.
  RuleFileResult r = parse_rule_file("r.yml", R"(groups:
  -
  - name: x
    limit: 2.9
    rules:
      -
      - record: a
        expr: null
---
garbage: [
)");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].limit, 2);
  ASSERT_EQ(r.groups[0].rules.size(), 1u);
  EXPECT_EQ(r.groups[0].rules[0].expr, "null");
}

TEST(RuleFile, AnchorsAliasesAndMergeKeys) {
  RuleFileResult r = parse_rule_file("r.yml", R"(groups:
  - name: x
    rules:
      - &base
        alert: A
        expr: up == 0
        labels: &sev {severity: page}
      - <<: *base
        alert: B
      - record: c
        expr: up
        labels: *sev
)");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  const auto& rules = r.groups[0].rules;
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[1].name, "B");
  EXPECT_EQ(rules[1].expr, "up == 0");
  EXPECT_EQ(rules[1].labels, (StringPairs{{"severity", "page"}}));
  EXPECT_EQ(rules[2].labels, (StringPairs{{"severity", "page"}}));
}

struct ErrorCase {
  const char* name;
  const char* yaml;
  Strings errors;
};

class RuleFileErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(RuleFileErrors, ExactMessages) {
  const ErrorCase& c = GetParam();
  RuleFileResult r = parse_rule_file("r.yml", c.yaml);
  EXPECT_EQ(r.errors, c.errors);
  EXPECT_TRUE(r.groups.empty());
}

const ErrorCase kErrorCases[] = {
    {"unknown_fields",
     "groups:\n  - name: x\n    foo: 1\n    rules:\n      - record: a\n        expr: up\n        bar: 2\nbaz: 3\n",
     {"r.yml: yaml: unmarshal errors:\n  line 3:5: field foo not found in type rulefmt.RuleGroup\n"
      "  line 7:9: field bar not found in type rulefmt.RuleNode\n"
      "  line 8:1: field baz not found in type rulefmt.RuleGroups"}},
    {"type_errors",
     "groups:\n  - name: [x]\n    limit: abcdefghijk\n    rules:\n      - 5\n      - alert: a\n        expr: up\n"
     "        labels: [a]\n        annotations: {a: {b: c}}\n",
     {"r.yml: yaml: unmarshal errors:\n  line 2:11: cannot unmarshal !!seq into string\n"
      "  line 3:12: cannot unmarshal !!str `abcdefg...` into int\n"
      "  line 5:9: cannot unmarshal !!int `5` into rulefmt.RuleNode\n"
      "  line 8:17: cannot unmarshal !!seq into map[string]string\n"
      "  line 9:26: cannot unmarshal !!map into string"}},
    {"top_level_not_a_map",
     "- a\n",
     {"r.yml: yaml: unmarshal errors:\n  line 1:1: cannot unmarshal !!seq into rulefmt.RuleGroups"}},
    {"groups_not_a_list",
     "groups: 5\n",
     {"r.yml: yaml: unmarshal errors:\n  line 1:9: cannot unmarshal !!int `5` into []rulefmt.RuleGroup"}},
    {"duplicate_key",
     "groups:\n  - name: x\n    name: y\n",
     {"r.yml: yaml: unmarshal errors:\n  line 3:5: mapping key \"name\" already defined at line 2"}},
    {"bad_duration", "groups:\n  - name: x\n    interval: 5x\n", {"r.yml: 3:15: not a valid duration string: \"5x\""}},
    {"negative_duration",
     "groups:\n  - name: x\n    rules:\n      - alert: a\n        expr: up\n        for: -5m\n",
     {"r.yml: 6:14: not a valid duration string: \"-5m\""}},
    {"empty_duration", "groups:\n  - name: x\n    interval: ''\n", {"r.yml: 3:15: empty duration string"}},
    {"duration_out_of_range", "groups:\n  - name: x\n    interval: 300y\n", {"r.yml: 3:15: duration out of range"}},
    {"all_duration_errors_reported",
     "groups:\n  - name: x\n    interval: 1h1h\n    rules:\n      - alert: a\n        expr: up\n        "
     "keep_firing_for: 2\n",
     {"r.yml: 3:15: not a valid duration string: \"1h1h\"", "r.yml: 7:26: not a valid duration string: \"2\""}},
    {"group_name_empty_and_repeated",
     "groups:\n  - name: x\n  - name: ''\n  - name: x\n",
     {"r.yml: 3:5: Groupname must not be empty", "r.yml: 4:5: groupname: \"x\" is repeated in the same file"}},
    {"record_and_alert",
     "groups:\n  - name: g\n    rules:\n      - alert: A\n        record: b\n        expr: up\n",
     {"r.yml: 5:17: 4:16: group \"g\", rule 1, \"A\": only one of 'record' and 'alert' must be set"}},
    {"neither_record_nor_alert",
     "groups:\n  - name: g\n    rules:\n      - expr: up\n      - record: ''\n        expr: up\n",
     {"r.yml: 4:9: group \"g\", rule 1, \"\": one of 'record' or 'alert' must be set",
      "r.yml: 5:17: group \"g\", rule 2, \"\": one of 'record' or 'alert' must be set"}},
    {"expr_missing_and_empty",
     "groups:\n  - name: g\n    rules:\n      - record: a\n      - record: b\n        expr: ''\n",
     {"r.yml: 4:9: group \"g\", rule 1, \"a\": field 'expr' must be set in rule",
      "r.yml: 6:15: group \"g\", rule 2, \"b\": field 'expr' must be set in rule"}},
    {"expr_unparsable",
     "groups:\n  - name: g\n    rules:\n      - record: a\n        expr: sum((\n",
     {"r.yml: 5:15: group \"g\", rule 1, \"a\": could not parse expression: 1:6: parse error: unclosed left "
      "parenthesis"}},
    {"expr_type_error",
     "groups:\n  - name: g\n    rules:\n      - record: a\n        expr: rate(x)\n",
     {"r.yml: 5:15: group \"g\", rule 1, \"a\": could not parse expression: 1:6: parse error: expected type range "
      "vector in call to function \"rate\", got instant vector"}},
    {"recording_rule_fields",
     "groups:\n  - name: g\n    rules:\n      - record: 'a b'\n        expr: up\n        for: 1m\n"
     "        keep_firing_for: 1m\n        annotations: {x: y}\n",
     {"r.yml: 4:17: group \"g\", rule 1, \"a b\": invalid field 'annotations' in recording rule",
      "r.yml: 4:17: group \"g\", rule 1, \"a b\": invalid field 'for' in recording rule",
      "r.yml: 4:17: group \"g\", rule 1, \"a b\": invalid field 'keep_firing_for' in recording rule",
      "r.yml: 4:17: group \"g\", rule 1, \"a b\": invalid recording rule name: a b"}},
    {"label_and_annotation_names",
     "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up\n        labels:\n          __name__: x\n"
     "          a-b: c\n        annotations:\n          'x y': z\n",
     {"r.yml: 7:11: group \"g\", rule 1, \"A\": invalid label name: __name__",
      "r.yml: 8:11: group \"g\", rule 1, \"A\": invalid label name: a-b",
      "r.yml: 10:11: group \"g\", rule 1, \"A\": invalid annotation name: x y"}},
    {"templates",
     "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up\n        labels:\n"
     "          a: '{{ $foo }}'\n        annotations:\n          b: '{{ .X | nope }}'\n          c: '{{ end }}'\n",
     {"r.yml: 7:14: group \"g\", rule 1, \"A\": label \"a\": template: __alert_A:1: undefined variable \"$foo\"",
      "r.yml: 9:14: group \"g\", rule 1, \"A\": annotation \"b\": template: __alert_A:1: function \"nope\" not defined",
      "r.yml: 10:14: group \"g\", rule 1, \"A\": annotation \"c\": template: __alert_A:1: unexpected {{end}}"}},
    {"recording_rule_templates_not_checked",
     "groups:\n  - name: g\n    rules:\n      - record: a\n        expr: up\n        labels: {x: '{{'}\n"
     "      - record: b\n        expr: (\n",
     {"r.yml: 8:15: group \"g\", rule 2, \"b\": could not parse expression: 1:2: parse error: unclosed left "
      "parenthesis"}},
    {"group_labels",
     "groups:\n  - name: g\n    labels: {__name__: x, ok: y}\n",
     {"r.yml: 3:14: group \"g\": invalid label name: __name__"}},
    {"tab_indentation", "groups:\n\t- name: x\n", {"r.yml: yaml: line 2:2: illegal block entry"}},
    {"control_character", "groups:\n  - name: x\x01\n", {"r.yml: yaml: line 2:12: control characters are not allowed"}},
    {"invalid_utf8", "groups:\n  - name: x\xff\n", {"r.yml: yaml: line 2:12: invalid leading UTF-8 octet"}},
    {"binary_garbage",
     "\x7f"
     "ELF\x02\x01\x01",
     {"r.yml: yaml: line 1:1: control characters are not allowed"}},
    {"truncated_quote", "groups:\n  - name: \"x\n", {"r.yml: yaml: line 2:11: illegal EOF in scalar"}},
    {"unterminated_flow", "groups: [\n", {"r.yml: yaml: line 2:1: end of sequence flow not found"}},
    {"scalar_document",
     "just text\n",
     {"r.yml: yaml: unmarshal errors:\n  line 1:1: cannot unmarshal !!str `just text` into rulefmt.RuleGroups"}},
};

INSTANTIATE_TEST_SUITE_P(All, RuleFileErrors, ::testing::ValuesIn(kErrorCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& i) { return std::string(i.param.name); });

TEST(RuleFile, NulBytesAreControlCharacters) {
  EXPECT_EQ(errors_of(std::string("groups:\n\0\0", 10)),
            (Strings{"r.yml: yaml: line 2:1: control characters are not allowed"}));
}

TEST(RuleFile, EveryErrorOfAFileIsReported) {
  Strings errs = errors_of(R"(groups:
  - name: a
    rules:
      - record: x y
        expr: sum((
      - alert: A
        expr: up
        annotations: {s: '{{'}
  - name: a
)");
  ASSERT_EQ(errs.size(), 4u);
  EXPECT_EQ(errs[0],
            "r.yml: 5:15: group \"a\", rule 1, \"x y\": could not parse expression: 1:6: parse error: unclosed left "
            "parenthesis");
  EXPECT_EQ(errs[1], "r.yml: 4:17: group \"a\", rule 1, \"x y\": invalid recording rule name: x y");
  EXPECT_EQ(errs[2],
            "r.yml: 8:26: group \"a\", rule 2, \"A\": annotation \"s\": template: __alert_A:1: unclosed action");
  EXPECT_EQ(errs[3], "r.yml: 9:5: groupname: \"a\" is repeated in the same file");
}

TEST(RuleFile, ColumnsCountCharactersNotBytes) {
  // "é" is two bytes; Go's yaml (and promtool) count it as one column.
  EXPECT_EQ(errors_of("groups:\n  - {name: é, rules: [{record: é, expr: up}]}\n"),
            (Strings{"r.yml: 2:32: group \"é\", rule 1, \"é\": invalid recording rule name: é"}));
}

std::string alias_bomb(int n) {
  // n groups sharing one list of n rules: Go's decoder (and ours) would
  // visit n * n rules, nearly all through aliases.
  std::string yaml = "groups:\n  - name: g0\n    rules: &r1 [&r0 {record: x, expr: up}";
  for (int i = 1; i < n; ++i) yaml += ", *r0";
  yaml += "]\n";
  for (int i = 1; i < n; ++i) yaml += "  - {name: g" + std::to_string(i) + ", rules: *r1}\n";
  return yaml;
}

TEST(RuleFile, ExcessiveAliasingIsRefused) {
  Strings errs = errors_of(alias_bomb(1000));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_NE(errs[0].find(": yaml: document contains excessive aliasing"), std::string::npos) << errs[0];
  // Moderate sharing is fine.
  RuleFileResult r = parse_rule_file("r.yml", alias_bomb(30));
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.rule_count(), 900u);
}

TEST(RuleFile, LargeFileParses) {
  std::string yaml = "groups:\n";
  for (int g = 0; g < 20; ++g) {
    yaml += "  - name: g" + std::to_string(g) + "\n    rules:\n";
    for (int r = 0; r < 250; ++r) {
      yaml += "      - record: r" + std::to_string(r) + "\n        expr: sum by (a) (rate(x{a=\"" + std::to_string(r) +
              "\"}[5m]))\n";
    }
  }
  RuleFileResult r = parse_rule_file("big.yml", yaml);
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.rule_count(), 5000u);
}

TEST(RuleFile, OversizedFileIsRefusedUnread) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string p = dir.path() + "/huge.yml";
  {
    std::ofstream f(p, std::ios::binary);
    f << "groups:\n";
  }
  fs::resize_file(p, kMaxRuleFileBytes + 1);
  RuleFileResult r = read_rule_file(p);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], p + ": file is " + std::to_string(kMaxRuleFileBytes + 1) +
                             " bytes, larger than the limit of " + std::to_string(kMaxRuleFileBytes) + " bytes");
}

TEST(RuleFile, ReadErrorsInGoWords) {
  TempDir dir;
  RuleFileResult missing = read_rule_file(dir.path() + "/nope.yml");
  EXPECT_EQ(missing.errors,
            (Strings{dir.path() + "/nope.yml: open " + dir.path() + "/nope.yml: no such file or directory"}));
  RuleFileResult isdir = read_rule_file(dir.path());
  EXPECT_EQ(isdir.errors, (Strings{dir.path() + ": read " + dir.path() + ": is a directory"}));
}

TEST(RuleFileLoad, DirectoriesGlobsAndTestFiles) {
  TempDir dir;
  const std::string ok = "groups:\n  - name: g\n    rules:\n      - record: r\n        expr: up\n";
  dir.write("b.yml", ok);
  dir.write("a.yaml", ok);
  dir.write("a.test.yml", "rule_files: [a.yaml]\n");
  dir.write("c.test.yaml", "rule_files: [a.yaml]\n");
  dir.write("notes.txt", "not yaml");
  dir.write("sub/d.yml", ok);
  auto files =
      expand_rule_paths({dir.path(), dir.path() + "/sub/*.yml", dir.path() + "/b.yml", dir.path() + "/none*.yml"});
  ASSERT_TRUE(files) << files.error();
  EXPECT_EQ(*files, (Strings{dir.path() + "/a.yaml", dir.path() + "/b.yml", dir.path() + "/sub/d.yml"}));

  auto globbed = expand_rule_paths({dir.path() + "/*.y*ml"});
  ASSERT_TRUE(globbed);
  EXPECT_EQ(*globbed, (Strings{dir.path() + "/a.yaml", dir.path() + "/b.yml"}));  // test files skipped

  RuleFilesResult all = load_rule_files({dir.path(), dir.path() + "/sub"});
  ASSERT_TRUE(all.ok()) << all.errors[0];
  EXPECT_EQ(all.files.size(), 3u);
  ASSERT_EQ(all.groups.size(), 3u);
  EXPECT_EQ(all.groups[0].file, dir.path() + "/a.yaml");
  EXPECT_EQ(all.groups[2].file, dir.path() + "/sub/d.yml");
}

TEST(RuleFileLoad, AnyErrorMeansNoGroups) {
  TempDir dir;
  dir.write("a.yml", "groups:\n  - name: g\n    rules:\n      - record: r\n        expr: up\n");
  dir.write("b.yml", "groups:\n  - name: g\n    rules:\n      - record: r\n        expr: up(\n");
  dir.write("c.yml", "groups: 1\n");
  RuleFilesResult r = load_rule_files({dir.path()});
  EXPECT_TRUE(r.groups.empty());
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].rfind(dir.path() + "/b.yml: 5:15: group \"g\", rule 1, \"r\": could not parse expression", 0),
            0u)
      << r.errors[0];
  EXPECT_EQ(r.errors[1].rfind(dir.path() + "/c.yml: yaml: unmarshal errors:", 0), 0u) << r.errors[1];

  RuleFilesResult missing = load_rule_files({dir.path() + "/a.yml", dir.path() + "/gone.yml"});
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_NE(missing.errors[0].find("no such file or directory"), std::string::npos);
  EXPECT_TRUE(missing.groups.empty());
}

TEST(RulesCheck, SuccessAndFailureOutput) {
  TempDir dir;
  std::string good = dir.write("good.yml",
                               "groups:\n  - name: g\n    rules:\n      - record: a\n        expr: up\n"
                               "      - alert: B\n        expr: up == 0\n");
  std::string bad = dir.write("bad.yml", "groups:\n  - name: g\n    rules:\n      - record: a\n        expr: (\n");
  CheckRun ok = check({good});
  EXPECT_EQ(ok.rc, 0);
  EXPECT_EQ(ok.out, "Checking " + good + "\n  SUCCESS: 2 rules found\n\n");
  EXPECT_EQ(ok.err, "");

  CheckRun both = check({bad, good});
  EXPECT_EQ(both.rc, 1);
  EXPECT_EQ(both.out, "Checking " + bad + "\n\nChecking " + good + "\n  SUCCESS: 2 rules found\n\n");
  EXPECT_EQ(both.err,
            "  FAILED:\n" + bad +
                ": 5:15: group \"g\", rule 1, \"a\": could not parse expression: 1:2: parse error: unclosed left "
                "parenthesis\n");
}

TEST(RulesCheck, DuplicateRulesLint) {
  TempDir dir;
  std::string f = dir.write("dup.yml", R"(groups:
  - name: x
    rules:
      - record: job:up:sum
        expr: sum(up)
        labels: {c: d, a: b}
      - record: job:up:sum
        expr: sum by (job) (up)
        labels: {a: b, c: d}
      - record: foo
        expr: up
      - alert: foo
        expr: up
  - name: y
    rules:
      - record: foo
        expr: up
      - record: other
        expr: up
        labels: {a: b}
      - record: other
        expr: up
)");
  const std::string lint =
      "lint error 2 duplicate rule(s) found.\nMetric: foo\nLabel(s):\nMetric: job:up:sum\nLabel(s):\n\ta: b\n\tc: d\n"
      "Might cause inconsistency while recording expressions\n";
  CheckRun r = check({f});
  EXPECT_EQ(r.rc, 0);  // promtool: lint findings fail the file but not the run
  EXPECT_EQ(r.out, "Checking " + f + "\n\n");
  EXPECT_EQ(r.err, "  FAILED:\n" + lint);

  CheckRun fatal = check({f}, RulesCheckOptions{true, true});
  EXPECT_EQ(fatal.rc, 3);
  CheckRun none = check({f}, RulesCheckOptions{false, false});
  EXPECT_EQ(none.rc, 0);
  EXPECT_EQ(none.out, "Checking " + f + "\n  SUCCESS: 7 rules found\n\n");
}

TEST(RulesCheck, DeployedRulePackPasses) {
  const std::string dir = std::string(LLMON_SOURCE_DIR) + "/deploy/rules";
  auto files = expand_rule_paths({dir});
  ASSERT_TRUE(files) << files.error();
  ASSERT_GE(files->size(), 4u);
  CheckRun r = check(*files);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const auto& f : *files) EXPECT_NE(r.out.find("Checking " + f + "\n  SUCCESS: "), std::string::npos) << f;
}

}  // namespace
}  // namespace llmon::rules
