// Differential test of the PromQL function library against Prometheus 2.42
// itself: random series (counters with resets, gauges with NaN, gaps, large
// and negative values, classic histograms) are evaluated here by
// range_functions / instant_functions / histogram_functions / aggregate_math /
// label_functions, and the same expressions on the same data by
// `promtool test rules`, which compares every result exactly (Go's
// reflect.DeepEqual on float64). NaN results are checked as
// count((E) != (E)) == 1. Functions whose C library implementation differs
// from Go's (exp, trig, hyperbolic; see instant_functions.h) are compared
// with a relative tolerance of 1e-9 instead.
//
// Window selection follows 2.42: samples with eval_t - range <= t <= eval_t.
// Skipped (with the reason) when promtool is not installed.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "promql/aggregate_math.h"
#include "promql/function_test_util.h"
#include "promql/histogram_functions.h"
#include "promql/instant_functions.h"
#include "promql/label_functions.h"
#include "promql/range_functions.h"
#include "support/test_paths.h"

namespace llmon::promql {
namespace {

using model::Sample;
using testutil::apply_simple_function;
using testutil::date_function;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string num(double v) {  // a PromQL / series-notation number literal
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string yaml_num(double v) {
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  return num(v);
}

std::string single_quoted(const std::string& s) {  // YAML single-quoted scalar
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

struct Case {
  std::string expr;
  int64_t eval_ms;
  std::optional<double> want;  // nullopt: no sample expected
  std::string labels = "{}";
  bool approx = false;  // compare within a few ulps (libm vs Go math)
};

struct Group {
  int interval_s = 10;
  std::vector<std::pair<std::string, std::string>> series;  // notation, values
  std::vector<Case> cases;
};

std::string find_promtool() {
  return testing::find_program("promtool");
}

// A fresh directory under the test temp dir ("" on failure).
std::string scratch_dir() {
  std::string t = ::testing::TempDir() + "llmon_promtool_diff_XXXXXX";
  return ::mkdtemp(t.data()) ? t : "";
}

void write_case(std::ostream& out, const Case& c) {
  const auto ms = std::to_string(c.eval_ms) + "ms";
  if (c.want && std::isnan(*c.want)) {
    out << "      - expr: " << single_quoted("count((" + c.expr + ") != (" + c.expr + "))") << "\n"
        << "        eval_time: " << ms << "\n        exp_samples:\n"
        << "          - labels: '{}'\n            value: 1\n";
    return;
  }
  if (c.want && c.approx && std::isfinite(*c.want) && *c.want != 0) {
    // |E - want| <= 1e-9 * |want|: one sample of value 1 (bool comparison).
    const double tol = 1e-9 * std::fabs(*c.want);
    out << "      - expr: " << single_quoted("abs((" + c.expr + ") - " + num(*c.want) + ") <= bool " + num(tol))
        << "\n        eval_time: " << ms << "\n        exp_samples:\n"
        << "          - labels: " << single_quoted(c.labels) << "\n            value: 1\n";
    return;
  }
  out << "      - expr: " << single_quoted(c.expr) << "\n        eval_time: " << ms << "\n";
  if (c.want) {
    out << "        exp_samples:\n          - labels: " << single_quoted(c.labels)
        << "\n            value: " << yaml_num(*c.want) << "\n";
  }
}

// Writes the groups as a promtool rules-test file, runs it, returns promtool's
// output and exit status.
std::pair<int, std::string> run_promtool(const std::string& promtool, const std::vector<Group>& groups,
                                         const std::string& dir) {
  const std::string file = dir + "/functions_test.yml";
  {
    std::ofstream out(file);
    // evaluation_interval 1s: promtool loads input samples only up to the last
    // evaluation step at or before the latest eval_time.
    out << "rule_files: []\nevaluation_interval: 1s\ntests:\n";
    for (const auto& g : groups) {
      out << "  - interval: " << g.interval_s << "s\n    input_series:\n";
      for (const auto& [name, values] : g.series) {
        out << "      - series: " << single_quoted(name) << "\n        values: " << single_quoted(values) << "\n";
      }
      out << "    promql_expr_test:\n";
      for (const auto& c : g.cases) write_case(out, c);
    }
  }
  const std::string cmd = promtool + " test rules " + file + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string output;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  return {::pclose(p), output};
}

// A random series with samples at multiples of interval_s; '_' marks gaps.
struct Series {
  std::vector<std::optional<double>> values;
  std::string notation() const {
    std::string s;
    for (const auto& v : values) {
      if (!s.empty()) s += ' ';
      s += v ? num(*v) : "_";
    }
    return s;
  }
  std::vector<Sample> window(int interval_s, int64_t start_ms, int64_t end_ms) const {
    std::vector<Sample> out;
    for (size_t i = 0; i < values.size(); i++) {
      const int64_t t = static_cast<int64_t>(i) * interval_s * 1000;
      if (values[i] && t >= start_ms && t <= end_ms) out.push_back({t, *values[i]});
    }
    return out;
  }
};

Series random_counter(std::mt19937_64& rng, int n) {
  Series s;
  std::uniform_real_distribution<double> u(0, 1);
  double v = u(rng) < 0.3 ? 0 : std::floor(u(rng) * 1000);
  const double scale = u(rng) < 0.2 ? 1e15 : (u(rng) < 0.5 ? 1 : 0.01);
  for (int i = 0; i < n; i++) {
    const double r = u(rng);
    if (r < 0.08) {
      s.values.push_back(std::nullopt);  // missed scrape
      continue;
    }
    if (r < 0.12)
      v = std::floor(u(rng) * 5);  // counter reset
    else if (r < 0.2)
      v += 0;  // unchanged
    else
      v += std::floor(u(rng) * 50 * scale * 100) / 100;
    s.values.push_back(v);
  }
  return s;
}

Series random_gauge(std::mt19937_64& rng, int n) {
  Series s;
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> g(0, 1);
  const double base = u(rng) < 0.3 ? 1e9 : 0;
  const double scale = u(rng) < 0.3 ? 1e-3 : 100;
  for (int i = 0; i < n; i++) {
    const double r = u(rng);
    if (r < 0.06)
      s.values.push_back(std::nullopt);
    else if (r < 0.09)
      s.values.push_back(kNaN);
    else if (r < 0.1)
      s.values.push_back(u(rng) < 0.5 ? kInf : -kInf);
    else if (r < 0.15)
      s.values.push_back(s.values.empty() || !s.values.back() ? 1.0 : *s.values.back());
    else
      s.values.push_back(base + g(rng) * scale);
  }
  return s;
}

void add(std::vector<Case>& cases, std::string expr, int64_t t, std::optional<double> want, std::string labels = "{}",
         bool approx = false) {
  cases.push_back({std::move(expr), t, want, std::move(labels), approx});
}

// Range-function cases on one series.
void range_cases(std::mt19937_64& rng, const std::string& name, const Series& s, int interval_s, Group& g) {
  std::uniform_real_distribution<double> u(0, 1);
  const int64_t span_ms = static_cast<int64_t>(s.values.size()) * interval_s * 1000;
  const int ranges_s[] = {interval_s, 30, 60, 95, 300};
  for (int k = 0; k < 6; k++) {
    const int64_t range_ms = ranges_s[k % 5] * 1000LL;
    // Eval times on and off the sample grid, including ms offsets.
    const int64_t t = static_cast<int64_t>(u(rng) * static_cast<double>(span_ms)) / 500 * 500 + (k == 5 ? 7 : 0);
    const auto w = s.window(interval_s, t - range_ms, t);
    const std::string sel = name + "[" + std::to_string(range_ms) + "ms]";
    add(g.cases, "rate(" + sel + ")", t, extrapolated_rate(w, t - range_ms, t, true, true));
    add(g.cases, "increase(" + sel + ")", t, extrapolated_rate(w, t - range_ms, t, true, false));
    add(g.cases, "delta(" + sel + ")", t, extrapolated_rate(w, t - range_ms, t, false, false));
    add(g.cases, "irate(" + sel + ")", t, instant_rate(w, true));
    add(g.cases, "idelta(" + sel + ")", t, instant_rate(w, false));
    if (w.empty()) {
      add(g.cases, "sum_over_time(" + sel + ")", t, std::nullopt);
      continue;
    }
    add(g.cases, "sum_over_time(" + sel + ")", t, sum_over_time(w));
    add(g.cases, "avg_over_time(" + sel + ")", t, avg_over_time(w));
    add(g.cases, "min_over_time(" + sel + ")", t, min_over_time(w));
    add(g.cases, "max_over_time(" + sel + ")", t, max_over_time(w));
    add(g.cases, "count_over_time(" + sel + ")", t, count_over_time(w));
    add(g.cases, "last_over_time(" + sel + ")", t, last_over_time(w), "{__name__=\"" + name + "\"}");
    add(g.cases, "present_over_time(" + sel + ")", t, present_over_time(w));
    add(g.cases, "stddev_over_time(" + sel + ")", t, stddev_over_time(w));
    add(g.cases, "stdvar_over_time(" + sel + ")", t, stdvar_over_time(w));
    const double qs[] = {0, 0.25, 0.5, 0.9, 1, -0.5, 1.5};
    const double q = qs[rng() % 7];
    add(g.cases, "quantile_over_time(" + num(q) + ", " + sel + ")", t, quantile_over_time(q, w));
    add(g.cases, "changes(" + sel + ")", t, changes(w));
    add(g.cases, "resets(" + sel + ")", t, resets(w));
    add(g.cases, "deriv(" + sel + ")", t, deriv(w));
    const double d = std::floor((u(rng) - 0.3) * 7200);
    add(g.cases, "predict_linear(" + sel + ", " + num(d) + ")", t, predict_linear(w, d, t));
    const double sf = std::round(u(rng) * 98 + 1) / 100, tf = std::round(u(rng) * 98 + 1) / 100;
    auto hw = double_exponential_smoothing(w, sf, tf);
    ASSERT_TRUE(hw) << hw.error();
    add(g.cases, "holt_winters(" + sel + ", " + num(sf) + ", " + num(tf) + ")", t, *hw);
  }
}

TEST(FunctionsPromtoolDiff, RangeFunctions) {
  const std::string promtool = find_promtool();
  if (promtool.empty()) GTEST_SKIP() << "promtool not installed (apt-get install prometheus)";
  std::mt19937_64 rng(20240531);
  std::vector<Group> groups;
  {
    // Pinned: a counter whose zero point (10 s before its first sample) lies
    // between half an interval (5 s) and the threshold (11 s) while the
    // window starts 30 s earlier. 2.42 extrapolates the 10 s (increase 40),
    // 3.x only 5 s (35). Also: 2.42 includes a sample on the window start.
    Group g;
    g.series.push_back({"pinned", "_ _ _ 10 20 30 _ _"});
    const Series s{{std::nullopt, std::nullopt, std::nullopt, 10, 20, 30, std::nullopt, std::nullopt}};
    const auto w = s.window(10, 0, 60000);
    add(g.cases, "increase(pinned[60s])", 60000, extrapolated_rate(w, 0, 60000, true, false));
    EXPECT_EQ(extrapolated_rate(w, 0, 60000, true, false), 40);
    add(g.cases, "count_over_time(pinned[30s])", 60000, count_over_time(s.window(10, 30000, 60000)));
    EXPECT_EQ(count_over_time(s.window(10, 30000, 60000)), 3);
    groups.push_back(std::move(g));
  }
  for (int i = 0; i < 40; i++) {
    Group g;
    g.interval_s = (i % 3 == 0) ? 15 : 10;
    const bool counter = i % 2 == 0;
    const Series s = counter ? random_counter(rng, 60) : random_gauge(rng, 60);
    const std::string name = (counter ? "c" : "g") + std::to_string(i);
    g.series.push_back({name, s.notation()});
    range_cases(rng, name, s, g.interval_s, g);
    groups.push_back(std::move(g));
  }
  const std::string tmpl = scratch_dir();
  ASSERT_FALSE(tmpl.empty());
  const auto [rc, out] = run_promtool(promtool, groups, tmpl);
  size_t ncases = 0;
  for (const auto& g : groups) ncases += g.cases.size();
  EXPECT_EQ(rc, 0) << ncases << " cases; promtool says:\n" << out.substr(0, 6000);
  std::filesystem::remove_all(tmpl);
}

TEST(FunctionsPromtoolDiff, InstantAndDateFunctions) {
  const std::string promtool = find_promtool();
  if (promtool.empty()) GTEST_SKIP() << "promtool not installed (apt-get install prometheus)";
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  Group g;
  g.series.push_back({"dummy", "0"});
  std::vector<double> values = {0,         -0.0,       1,      -1,    0.5,  -2.5,  2.5,        1000,
                                1e-300,    1e300,      -1e300, kNaN,  kInf, -kInf, 1709214330, -2208988800,
                                951782400, 4107542399, -1,     0.999, 1e18, -1e18, 9.2e18};
  for (int i = 0; i < 40; i++) values.push_back((u(rng) - 0.5) * std::pow(10, std::floor(u(rng) * 24 - 8)));
  for (int i = 0; i < 20; i++) values.push_back(std::floor(u(rng) * 8e9 - 3e9) + std::floor(u(rng) * 1000) / 1000);
  const char* const exact[] = {"abs", "ceil", "floor", "sqrt", "sgn", "deg", "rad", "ln", "log2", "log10"};
  const char* const approx[] = {"exp",  "sin",  "cos",  "tan",   "asin",  "acos", "atan",
                                "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"};
  const char* const dates[] = {"year",        "month",         "day_of_month", "day_of_week",
                               "day_of_year", "days_in_month", "hour",         "minute"};
  for (double v : values) {
    const std::string arg = "vector(" + num(v) + ")";
    for (const char* name : exact) {
      add(g.cases, std::string(name) + "(" + arg + ")", 0, apply_simple_function(name, v));
    }
    for (const char* name : approx) {
      add(g.cases, std::string(name) + "(" + arg + ")", 0, apply_simple_function(name, v), "{}", true);
    }
    for (const char* name : dates) add(g.cases, std::string(name) + "(" + arg + ")", 0, date_function(name, v));
    const double to = std::vector<double>{1, 0.1, 5, 0.25, 3, 0}[rng() % 6];
    add(g.cases, "round(" + arg + ", " + num(to) + ")", 0, round_to(v, to));
    const double a = std::floor((u(rng) - 0.5) * 20), b = std::floor((u(rng) - 0.3) * 20);
    add(g.cases, "clamp(" + arg + ", " + num(a) + ", " + num(b) + ")", 0,
        a > b ? std::nullopt : std::optional<double>(clamp(v, a, b)));
    add(g.cases, "clamp_min(" + arg + ", " + num(a) + ")", 0, clamp(v, a, kInf));
    add(g.cases, "clamp_max(" + arg + ", " + num(b) + ")", 0, clamp(v, -kInf, b));
  }
  // ln / log2 / log10 reproduce Go's algorithm: exact on many magnitudes.
  for (int i = 0; i < 300; i++) {
    const double v = u(rng) * std::pow(10, std::floor(u(rng) * 40 - 20));
    add(g.cases, "ln(vector(" + num(v) + "))", 0, apply_simple_function("ln", v));
    add(g.cases, "log2(vector(" + num(v) + "))", 0, apply_simple_function("log2", v));
    add(g.cases, "log10(vector(" + num(v) + "))", 0, apply_simple_function("log10", v));
  }
  const std::string tmpl = scratch_dir();
  ASSERT_FALSE(tmpl.empty());
  const auto [rc, out] = run_promtool(promtool, {g}, tmpl);
  EXPECT_EQ(rc, 0) << g.cases.size() << " cases; promtool says:\n" << out.substr(0, 6000);
  std::filesystem::remove_all(tmpl);
}

TEST(FunctionsPromtoolDiff, HistogramQuantileAndAggregations) {
  const std::string promtool = find_promtool();
  if (promtool.empty()) GTEST_SKIP() << "promtool not installed (apt-get install prometheus)";
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Group> groups;
  for (int i = 0; i < 60; i++) {
    Group g;
    // A classic histogram, sometimes with negative bounds, duplicate le
    // spellings, a missing +Inf bucket or non-monotonic counts.
    std::vector<Bucket> buckets;
    const int n = 1 + static_cast<int>(rng() % 6);
    double bound = u(rng) < 0.3 ? -1 - std::floor(u(rng) * 5) : std::floor(u(rng) * 3) / 10;
    double count = std::floor(u(rng) * 3);
    for (int k = 0; k < n; k++) {
      buckets.push_back({bound, count});
      bound += std::floor(u(rng) * 20 + 1) / 10;
      count += u(rng) < 0.15 ? -2 : std::floor(u(rng) * 10);
    }
    if (u(rng) > 0.1) buckets.push_back({kInf, count + std::floor(u(rng) * 5)});
    std::vector<Bucket> all = buckets;
    for (size_t k = 0; k < buckets.size(); k++) {
      const auto& b = buckets[k];
      const std::string le = std::isinf(b.upper_bound) ? "+Inf" : num(b.upper_bound);
      g.series.push_back({"h_bucket{le=\"" + le + "\"}", num(b.count)});
      if (k == 1 && !std::isinf(b.upper_bound) && le.find('e') == std::string::npos && u(rng) < 0.4) {
        // The same bound spelled differently is another series; Prometheus
        // adds the two buckets' counts.
        const std::string alt = le + (le.find('.') == std::string::npos ? ".0" : "0");
        const double c = std::floor(u(rng) * 4);
        g.series.push_back({"h_bucket{le=\"" + alt + "\"}", num(c)});
        all.push_back({b.upper_bound, c});
      }
    }
    for (double q : {0.0, 0.1, 0.5, 0.75, 0.99, 1.0, -0.1, 1.1}) {
      add(g.cases, "histogram_quantile(" + num(q) + ", h_bucket)", 0, bucket_quantile(q, all).value);
    }
    // Aggregations over x{i="00".."nn"}.
    std::vector<double> xs;
    const int m = 1 + static_cast<int>(rng() % 7);
    for (int j = 0; j < m; j++) {
      const double r = u(rng);
      double v = r < 0.05 ? kNaN : r < 0.08 ? kInf : (u(rng) - 0.4) * std::pow(10, std::floor(u(rng) * 12 - 3));
      if (r > 0.97) v = -kInf;
      xs.push_back(v);
      char lbl[32];
      std::snprintf(lbl, sizeof lbl, "x{i=\"%02d\"}", j);
      g.series.push_back({lbl, num(v)});
    }
    MeanAccumulator mean;
    WelfordAccumulator var;
    double plain_sum = 0;
    for (double v : xs) {
      mean.add(v);
      var.add(v);
      plain_sum += v;
    }
    // promtool loads series in Go map order, so the order in which the
    // aggregators see them (and the last bits of sum/avg/stddev/stdvar) vary
    // from run to run: those are compared within the tolerance. NaN and Inf
    // results do not depend on the order and are compared exactly.
    add(g.cases, "sum(x)", 0, plain_sum, "{}", true);
    add(g.cases, "avg(x)", 0, mean.value(), "{}", true);
    add(g.cases, "stdvar(x)", 0, var.variance(), "{}", true);
    add(g.cases, "stddev(x)", 0, var.stddev(), "{}", true);
    for (double q : {0.0, 0.3, 0.5, 0.99, 1.0, -1.0, 2.0}) {
      add(g.cases, "quantile(" + num(q) + ", x)", 0, quantile_of(q, xs));
    }
    groups.push_back(std::move(g));
  }
  const std::string tmpl = scratch_dir();
  ASSERT_FALSE(tmpl.empty());
  const auto [rc, out] = run_promtool(promtool, groups, tmpl);
  EXPECT_EQ(rc, 0) << "promtool says:\n" << out.substr(0, 6000);
  std::filesystem::remove_all(tmpl);
}

TEST(FunctionsPromtoolDiff, LabelFunctions) {
  const std::string promtool = find_promtool();
  if (promtool.empty()) GTEST_SKIP() << "promtool not installed (apt-get install prometheus)";
  const auto in = model::Labels::make({{"__name__", "m"}, {"src", "ab-12.x"}, {"other", "o"}});
  ASSERT_TRUE(in);
  Group g;
  g.series.push_back({"m{src=\"ab-12.x\", other=\"o\"}", "1"});
  struct R {
    const char *dst, *repl, *src, *re;
  };
  const R rs[] = {{"dst", "$1", "src", "(.*)-.*"},
                  {"dst", "${1}x", "src", "([a-z]+)-(\\d+).*"},
                  {"dst", "$1x", "src", "([a-z]+)-(\\d+).*"},
                  {"dst", "$2$1", "src", "([a-z]+)-(\\d+).*"},
                  {"dst", "$$1", "src", "(.*)"},
                  {"dst", "a$", "src", ".*"},
                  {"dst", "${1", "src", "(.*)"},
                  {"dst", "$name", "src", "(?P<name>a)b.*"},
                  {"src", "", "src", ".*"},
                  {"dst", "v", "missing", ""},
                  {"dst", "v", "src", "ab"},
                  {"other", "$0!", "src", "a(b)?.*"},
                  {"__name__", "n", "src", ".*"},
                  {"dst", "$3", "src", "(a)(b)"},
                  {"dst", "[$1]", "src", "(z)?ab-12\\.x"},
                  {"dst", "$01", "src", "(a).*"}};
  for (const auto& r : rs) {
    auto out = label_replace(*in, r.dst, r.repl, r.src, r.re);
    ASSERT_TRUE(out) << out.error();
    // Expected label set in the form Prometheus prints it (no name when empty).
    std::string labels = out->to_string();
    add(g.cases,
        "label_replace(m, \"" + std::string(r.dst) + "\", \"" + r.repl + "\", \"" + r.src + "\", \"" + r.re + "\")", 0,
        1, labels);
  }
  const std::vector<std::vector<std::string>> joins = {{"src", "other"}, {"missing"}, {}, {"other", "missing", "src"}};
  for (const auto& srcs : joins) {
    auto out = label_join(*in, "dst", "-", srcs);
    ASSERT_TRUE(out);
    std::string call = "label_join(m, \"dst\", \"-\"";
    for (const auto& s : srcs) call += ", \"" + s + "\"";
    add(g.cases, call + ")", 0, 1, out->to_string());
  }
  // Backslashes in PromQL double-quoted strings are escapes: write them doubled.
  for (auto& c : g.cases) {
    std::string e;
    for (char ch : c.expr) {
      e += ch;
      if (ch == '\\') e += '\\';
    }
    c.expr = e;
  }
  const std::string tmpl = scratch_dir();
  ASSERT_FALSE(tmpl.empty());
  const auto [rc, out] = run_promtool(promtool, {g}, tmpl);
  EXPECT_EQ(rc, 0) << "promtool says:\n" << out.substr(0, 6000);
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace llmon::promql
