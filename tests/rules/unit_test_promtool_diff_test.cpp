// Differential test of `llmon rules test` (src/rules/unit_test_runner.h)
// against `promtool test rules` 2.42: every deploy/rules/*.test.yml and
// every tests/rules/testdata/unit/*.test.yml (edge cases: pending vs firing,
// keep_firing_for, stale and `_`, recording rules feeding alerts, templates,
// group order, and files named fail_* that fail on purpose) is run by both.
// Both must agree with the file's name (fail_* fails, others pass) and with
// each other: exit status, stdout, and the failure text once our deliberate
// differences (kDifferences, each with its reason) are mapped back.
// Skipped, with the reason, when promtool is not on PATH.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "rules/unit_test_runner.h"
#include "support/test_paths.h"

namespace llmon::rules {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

std::string find_promtool() { return testing::find_program("promtool"); }

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Strings lines_of(const std::string& s) {
  Strings out;
  std::stringstream ss(s);
  std::string l;
  while (std::getline(ss, l)) out.push_back(l);
  return out;
}

struct Difference {
  const char* pattern;
  const char* replacement;
  const char* reason;
};
// Rewrites of our stderr lines into promtool's form.
const Difference kDifferences[] = {
    {R"(^\S+\.test\.yml: (yaml: unmarshal errors:)$)", "$1",
     "errors of the test file itself name the file (promtool prints them bare under \"Unit Testing:  FILE\")"},
    {R"(^  line (\d+):\d+: )", "  line $1: ", "Go's yaml type errors name only the line; ours add the column"},
    {R"(^\S+\.test\.yml: \d+:\d+: (not a valid duration string|empty duration string|duration out of range))", "$1",
     "Go's duration errors carry neither file nor position"},
    {R"(^(1:\d+: parse error: ).*$)", "$1...",
     "series notation errors: same position, our own wording (src/promql/series_notation.h)"},
};

std::string normalize(std::string line) {
  for (const auto& d : kDifferences) line = std::regex_replace(line, std::regex(d.pattern), d.replacement);
  return line;
}

std::string normalize_theirs(const std::string& line) {
  // Only the series-notation wording is elided on promtool's side too.
  return std::regex_replace(line, std::regex(R"(^(1:\d+: parse error: ).*$)"), "$1...");
}

struct CmdRun {
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

class UnitTestPromtoolDiff : public ::testing::Test {
 protected:
  void SetUp() override {
    promtool_ = find_promtool();
    if (promtool_.empty()) GTEST_SKIP() << "promtool is not on PATH (Debian: apt-get install prometheus)";
    std::string t = ::testing::TempDir() + "llmon_unit_diff_XXXXXX";
    ASSERT_NE(::mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  CmdRun run_promtool(const std::string& file) {
    const std::string cmd =
        "'" + promtool_ + "' test rules '" + file + "' >'" + dir_ + "/pt.out' 2>'" + dir_ + "/pt.err'";
    CmdRun r;
    const int st = std::system(cmd.c_str());
    r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = read_all(dir_ + "/pt.out");
    r.err = read_all(dir_ + "/pt.err");
    return r;
  }

  static CmdRun run_ours(const std::string& file) {
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    CmdRun r;
    r.rc = rules_test({file}, out, err);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  void compare(const std::string& file, bool expect_fail) {
    CmdRun theirs = run_promtool(file);
    CmdRun ours = run_ours(file);
    SCOPED_TRACE(file + "\n--- promtool stderr:\n" + theirs.err + "--- ours:\n" + ours.err);
    EXPECT_EQ(theirs.rc, expect_fail ? 1 : 0) << "promtool disagrees with the file's name";
    EXPECT_EQ(ours.rc, theirs.rc);
    EXPECT_EQ(ours.out, theirs.out);
    Strings t, o;
    for (const auto& l : lines_of(theirs.err)) t.push_back(normalize_theirs(l));
    for (const auto& l : lines_of(ours.err)) o.push_back(normalize(l));
    EXPECT_EQ(o, t);
  }

  std::string promtool_;
  std::string dir_;
};

Strings test_files(const std::string& dir) {
  Strings files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 9 && n.substr(n.size() - 9) == ".test.yml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST_F(UnitTestPromtoolDiff, EdgeCases) {
  const Strings files = test_files(std::string(LLMON_SOURCE_DIR) + "/tests/rules/testdata/unit");
  int failing = 0;
  for (const auto& f : files) {
    const bool expect_fail = fs::path(f).filename().string().rfind("fail_", 0) == 0;
    failing += expect_fail;
    compare(f, expect_fail);
  }
  EXPECT_GE(files.size(), 15u);
  EXPECT_GE(failing, 5);
  EXPECT_GE(static_cast<int>(files.size()) - failing, 8);
}

TEST_F(UnitTestPromtoolDiff, DeployedRulePack) {
  const Strings files = test_files(std::string(LLMON_SOURCE_DIR) + "/deploy/rules");
  ASSERT_GE(files.size(), 4u);
  for (const auto& f : files) compare(f, false);
}

}  // namespace
}  // namespace llmon::rules
