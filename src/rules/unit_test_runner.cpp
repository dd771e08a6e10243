// The rule unit-test runner (unit_test_runner.h), after promtool 2.42's
// cmd/promtool/unittest.go and promql's LazyLoader (promql/test.go).
#include "rules/unit_test_runner.h"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "base/clock.h"
#include "promql/engine.h"
#include "go/strconv.h"
#include "promql/parser.h"
#include "promql/series_notation.h"
#include "rules/group.h"
#include "rules/rule_file.h"
#include "tsdb/head.h"

namespace llmon::rules {

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// At most this many evaluation steps per test group (promtool has no limit;
// an `evaluation_interval: 1ms` with `eval_time: 1y` would run for days).
constexpr int64_t kMaxEvalSteps = 10'000'000;

void print(std::FILE* f, const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), f);
  std::fflush(f);
}

// Prometheus's labels.Labels.String(): {a="1", b="2"}.
std::string labels_string(const Pairs& ls) {
  std::string s = "{";
  for (size_t i = 0; i < ls.size(); ++i) {
    if (i > 0) s += ", ";
    s += ls[i].first + "=" + go::quote(ls[i].second);
  }
  return s + "}";
}

Pairs sorted(Pairs p) {
  std::sort(p.begin(), p.end());
  return p;
}

Pairs to_pairs(const model::Labels& l) {
  Pairs out;
  for (const auto& p : l.pairs()) out.emplace_back(p.name, p.value);
  return out;
}

// promtool's indentLines: every line but the first gets `indent`.
std::string indent_lines(const std::string& lines, const std::string& indent) {
  std::string out;
  size_t start = 0;
  bool first = true;
  for (;;) {
    size_t nl = lines.find('\n', start);
    if (!first) out += indent;
    first = false;
    out += lines.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (nl == std::string::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

struct LabelsAndAnnotations {
  Pairs labels;
  Pairs annotations;
  bool operator<(const LabelsAndAnnotations& o) const {
    if (labels != o.labels) return labels < o.labels;
    return annotations < o.annotations;
  }
  bool operator==(const LabelsAndAnnotations& o) const = default;
  std::string str() const { return "Labels:" + labels_string(labels) + "\nAnnotations:" + labels_string(annotations); }
};

std::string alerts_string(const std::vector<LabelsAndAnnotations>& la) {
  if (la.empty()) return "[]";
  std::string s = "[\n0:" + indent_lines("\n" + la[0].str(), "  ");
  for (size_t i = 1; i < la.size(); ++i) s += ",\n" + std::to_string(i) + ":" + indent_lines("\n" + la[i].str(), "  ");
  return s + "\n]";
}

// strconv.FormatFloat(v, 'E', -1, 64): the shortest representation that
// round-trips, "1.1E+01", "1E+00", "+Inf", "NaN".
std::string format_float_e(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  for (char& c : s) {
    if (c == 'e') c = 'E';
  }
  return s;
}

struct ParsedSample {
  Pairs labels;
  double value = 0;
  std::string str() const { return labels_string(labels) + " " + format_float_e(value); }
};

std::string samples_string(const std::vector<ParsedSample>& ss) {
  if (ss.empty()) return "nil";
  std::string s = ss[0].str();
  for (size_t i = 1; i < ss.size(); ++i) s += ", " + ss[i].str();
  return s;
}

// "column N: msg" from the series notation parser, in Prometheus's
// ParseErr form for a one-line input: "1:N: parse error: msg".
std::string go_parse_error(const std::string& msg) {
  if (msg.compare(0, 7, "column ") == 0) {
    size_t colon = msg.find(':');
    if (colon != std::string::npos) return "1:" + msg.substr(7, colon - 7) + ": parse error:" + msg.substr(colon + 1);
  }
  return msg;
}

std::string go_trim_space(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

struct InputSeries {
  model::Labels labels;
  std::vector<model::Sample> points;
  size_t next = 0;  // first point not appended yet
};

// promtool's seriesLoadingString + LazyLoader.parse/parseLoad: the series
// become lines of a `load` command; lines are trimmed, '#' lines are
// comments (empty), and the first empty line ends the command.
Expected<std::vector<InputSeries>> load_series(const RuleTestGroup& tg, int64_t interval_ms) {
  std::string text = "load " + promql::format_duration_ms(interval_ms) + "\n";
  for (const auto& s : tg.input_series) text += "  " + s.series + " " + s.values + "\n";
  std::vector<std::string> lines;
  size_t start = 0;
  for (;;) {
    size_t nl = text.find('\n', start);
    std::string l = go_trim_space(std::string_view(text).substr(start, nl == std::string::npos ? nl : nl - start));
    if (!l.empty() && l[0] == '#') l.clear();
    lines.push_back(std::move(l));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  std::vector<InputSeries> out;
  std::map<model::Labels, size_t> index;  // a later definition replaces an earlier one
  for (size_t i = 1; i < lines.size() && !lines[i].empty(); ++i) {
    auto desc = promql::parse_series_description(lines[i]);
    if (!desc) return Status::error(go_parse_error(desc.error()));
    InputSeries s;
    s.labels = desc->labels;
    for (size_t k = 0; k < desc->values.size(); ++k) {
      if (desc->values[k].omitted) continue;
      s.points.push_back(model::Sample{static_cast<int64_t>(k) * interval_ms, desc->values[k].value});
    }
    auto [it, inserted] = index.emplace(s.labels, out.size());
    if (inserted) {
      out.push_back(std::move(s));
    } else {
      out[it->second] = std::move(s);
    }
  }
  return out;
}

// Appends every input point at or before t (LazyLoader.appendTill).
Status append_till(storage::Storage& st, std::vector<InputSeries>& series, int64_t t_ms) {
  auto app = st.appender();
  for (auto& s : series) {
    while (s.next < s.points.size() && s.points[s.next].t_ms <= t_ms) {
      const auto& p = s.points[s.next++];
      auto r = app->append(0, s.labels, p.t_ms, p.v);
      if (!r) return Status::error(r.error());
    }
  }
  return app->commit();
}

bool has_glob_meta(const std::string& s) {
  return s.find_first_of("*?[\\") != std::string::npos;
}

// Go's filepath.Glob: a name without meta characters is itself if it exists.
std::vector<std::string> go_glob(const std::string& pattern) {
  if (!has_glob_meta(pattern)) {
    struct stat st {};
    if (::lstat(pattern.c_str(), &st) != 0) return {};
    return {pattern};
  }
  glob_t g{};
  std::vector<std::string> out;
  if (::glob(pattern.c_str(), GLOB_NOSORT | GLOB_PERIOD, nullptr, &g) == 0) {
    out.assign(g.gl_pathv, g.gl_pathv + g.gl_pathc);
  }
  ::globfree(&g);
  std::sort(out.begin(), out.end());
  return out;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Go's path Clean.
std::string go_clean(const std::string& p) {
  if (p.empty()) return ".";
  bool rooted = p[0] == '/';
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    std::string e = p.substr(i, j - i);
    i = j + 1;
    if (e.empty() || e == ".") continue;
    if (e == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!rooted) {
        parts.push_back("..");
      }
      continue;
    }
    parts.push_back(e);
  }
  std::string out = rooted ? "/" : "";
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k > 0) out += "/";
    out += parts[k];
  }
  return out.empty() ? "." : out;
}

class GroupRunner {
 public:
  GroupRunner(const RuleTestGroup& tg, int index, int64_t eval_interval_ms, const std::map<std::string, int>& order,
              const std::vector<std::string>& rule_files)
      : tg_(tg), index_(index), eval_interval_ms_(eval_interval_ms), order_(order), rule_files_(rule_files) {}

  std::vector<RuleTestFailure> run() {
    auto series = load_series(tg_, tg_.interval_ms);
    if (!series) return {fail(RuleTestFailure::Kind::kSetup, series.error())};
    series_ = std::move(*series);

    promql::EngineOptions eo;
    eo.max_samples = 10000;
    eo.timeout = std::chrono::seconds(100);
    eo.default_subquery_step_ms = eval_interval_ms_;
    engine_ = std::make_unique<promql::Engine>(head_, eo);

    if (auto errs = load_groups(); !errs.empty()) return errs;

    // Alert tests by eval time.
    std::map<int64_t, std::vector<const AlertTestCase*>> alert_tests;
    for (const auto& a : tg_.alert_rule_tests) {
      if (a.alertname.empty()) {
        std::string where = tg_.name.empty() ? "" : " (in TestGroup " + tg_.name + ")";
        return {fail(RuleTestFailure::Kind::kSetup,
                     "an item under alert_rule_test misses required attribute alertname at "
                     "eval_time " +
                         promql::format_duration_ms(a.eval_time_ms) + where)};
      }
      alert_tests[a.eval_time_ms].push_back(&a);
    }
    int64_t maxt = 0;
    for (const auto& a : tg_.alert_rule_tests) maxt = std::max(maxt, a.eval_time_ms);
    for (const auto& p : tg_.promql_expr_tests) maxt = std::max(maxt, p.eval_time_ms);
    if (maxt / eval_interval_ms_ > kMaxEvalSteps) {
      return {fail(RuleTestFailure::Kind::kSetup, "more than " + std::to_string(kMaxEvalSteps) +
                                                      " evaluation steps up to eval_time " +
                                                      promql::format_duration_ms(maxt))};
    }

    std::vector<RuleTestFailure> failures;
    auto next_alert = alert_tests.begin();
    for (int64_t ts = 0; ts <= maxt; ts += eval_interval_ms_) {
      clock_.set_ms(ts);
      if (Status s = append_till(head_, series_, ts); !s) {
        failures.push_back(fail(RuleTestFailure::Kind::kSetup, s.message()));
      } else {
        std::vector<RuleTestFailure> eval_errors;
        for (auto& g : groups_) {
          g->eval(ts);
          for (size_t i = 0; i < g->size(); ++i) {
            RuleStatus st = g->rule(i).status();
            if (st.health != RuleHealth::kErr) continue;
            eval_errors.push_back(fail(RuleTestFailure::Kind::kEvaluation,
                                       "    rule: " + g->rule(i).name() + ", time: " + go_time_duration_string(ts) +
                                           ", err: " + st.last_error));
          }
        }
        if (!eval_errors.empty()) {
          failures.insert(failures.end(), eval_errors.begin(), eval_errors.end());
          return failures;
        }
      }
      while (next_alert != alert_tests.end() && ts <= next_alert->first && next_alert->first < ts + eval_interval_ms_) {
        check_alerts(next_alert->second, failures);
        ++next_alert;
      }
    }
    for (const auto& pt : tg_.promql_expr_tests) check_promql(pt, failures);
    return failures;
  }

 private:
  RuleTestFailure fail(RuleTestFailure::Kind kind, std::string message) const {
    return RuleTestFailure{kind, index_, std::move(message)};
  }

  std::vector<RuleTestFailure> load_groups() {
    std::vector<GroupSpec> specs;
    std::set<std::string> keys;
    for (const auto& f : rule_files_) {
      RuleFileResult r = read_rule_file(f);
      if (!r.ok()) {
        std::vector<RuleTestFailure> out;
        for (auto& e : r.errors) out.push_back(fail(RuleTestFailure::Kind::kSetup, std::move(e)));
        return out;
      }
      for (auto& g : r.groups) {
        if (keys.insert(g.file + ";" + g.name).second) specs.push_back(std::move(g));
      }
    }
    auto rank = [&](const GroupSpec& g) {
      auto it = order_.find(g.name);
      return it == order_.end() ? 0 : it->second;
    };
    std::stable_sort(specs.begin(), specs.end(),
                     [&](const GroupSpec& a, const GroupSpec& b) { return rank(a) < rank(b); });
    for (auto& spec : specs) {
      GroupOptions o;
      o.storage = &head_;
      o.engine = engine_.get();
      o.clock = &clock_;
      o.external_labels = std::map<std::string, std::string>(tg_.external_labels.begin(), tg_.external_labels.end());
      o.external_url = tg_.external_url;
      o.default_interval_ms = tg_.interval_ms;
      o.restored = true;
      auto g = Group::create(std::move(spec), std::move(o));
      if (!g) return {fail(RuleTestFailure::Kind::kSetup, g.error())};
      groups_.push_back(std::move(*g));
    }
    return {};
  }

  void check_alerts(const std::vector<const AlertTestCase*>& cases, std::vector<RuleTestFailure>& failures) {
    std::set<std::string> names;
    for (const auto* c : cases) names.insert(c->alertname);
    std::map<std::string, std::vector<LabelsAndAnnotations>> got;
    for (const auto& g : groups_) {
      for (size_t i = 0; i < g->size(); ++i) {
        const Rule& r = g->rule(i);
        if (r.kind() != RuleSpec::Kind::kAlerting || !names.count(r.name())) continue;
        auto& dst = got[r.name()];
        for (const auto& a : g->alerts_of(i)) {
          if (a.state != AlertState::kFiring) continue;
          dst.push_back(LabelsAndAnnotations{sorted(a.labels), sorted(a.annotations)});
        }
      }
    }
    for (const auto* c : cases) {
      std::vector<LabelsAndAnnotations> exp;
      for (const auto& a : c->exp_alerts) {
        std::map<std::string, std::string> labels(a.exp_labels.begin(), a.exp_labels.end());
        labels["alertname"] = c->alertname;
        std::map<std::string, std::string> annotations(a.exp_annotations.begin(), a.exp_annotations.end());
        exp.push_back(
            LabelsAndAnnotations{Pairs(labels.begin(), labels.end()), Pairs(annotations.begin(), annotations.end())});
      }
      std::vector<LabelsAndAnnotations> have = got[c->alertname];
      std::sort(exp.begin(), exp.end());
      std::sort(have.begin(), have.end());
      if (exp == have) continue;
      std::string name = tg_.name.empty() ? "" : "    name: " + tg_.name + ",\n";
      failures.push_back(fail(RuleTestFailure::Kind::kAlert,
                              name + "    alertname: " + c->alertname +
                                  ", time: " + promql::format_duration_ms(c->eval_time_ms) +
                                  ", \n        exp:" + indent_lines(alerts_string(exp), "            ") +
                                  ", \n        got:" + indent_lines(alerts_string(have), "            ")));
    }
  }

  void check_promql(const PromqlTestCase& pt, std::vector<RuleTestFailure>& failures) {
    const std::string head =
        "    expr: " + go::quote(pt.expr) + ", time: " + promql::format_duration_ms(pt.eval_time_ms);
    auto got = query_vector(*engine_, pt.expr, pt.eval_time_ms);
    if (!got) {
      failures.push_back(fail(RuleTestFailure::Kind::kPromql, head + ", err: " + got.error()));
      return;
    }
    std::vector<ParsedSample> have;
    for (const auto& s : *got) have.push_back(ParsedSample{to_pairs(s.labels), s.v});
    std::vector<ParsedSample> exp;
    for (const auto& s : pt.exp_samples) {
      model::Labels labels;
      if (!go_trim_space(s.labels).empty()) {
        auto l = promql::parse_series_labels(s.labels);
        if (!l) {
          failures.push_back(
              fail(RuleTestFailure::Kind::kPromql,
                   head + ", err: labels " + go::quote(s.labels) + ": " + go_parse_error(l.error())));
          return;
        }
        labels = *l;
      }
      exp.push_back(ParsedSample{to_pairs(labels), s.value});
    }
    auto by_labels = [](const ParsedSample& a, const ParsedSample& b) { return a.labels < b.labels; };
    std::stable_sort(exp.begin(), exp.end(), by_labels);
    std::stable_sort(have.begin(), have.end(), by_labels);
    bool equal = exp.size() == have.size();
    for (size_t i = 0; equal && i < exp.size(); ++i) {
      equal = exp[i].labels == have[i].labels && exp[i].value == have[i].value;  // NaN != NaN, as Go's DeepEqual
    }
    if (equal) return;
    failures.push_back(fail(RuleTestFailure::Kind::kPromql, head + ",\n        exp: " + samples_string(exp) +
                                                                "\n        got: " + samples_string(have)));
  }

  const RuleTestGroup& tg_;
  int index_;
  int64_t eval_interval_ms_;
  const std::map<std::string, int>& order_;
  const std::vector<std::string>& rule_files_;
  tsdb::Head head_;
  std::unique_ptr<promql::Engine> engine_;
  base::ManualClock clock_;
  std::vector<std::unique_ptr<Group>> groups_;
  std::vector<InputSeries> series_;
};

}  // namespace

std::string go_time_duration_string(int64_t ms) {
  if (ms == 0) return "0s";
  std::string sign = ms < 0 ? "-" : "";
  uint64_t u = ms < 0 ? static_cast<uint64_t>(-(ms + 1)) + 1 : static_cast<uint64_t>(ms);
  if (u < 1000) return sign + std::to_string(u) + "ms";
  uint64_t h = u / 3'600'000, m = u / 60'000 % 60, s = u / 1000 % 60, frac = u % 1000;
  std::string secs = std::to_string(s);
  if (frac != 0) {
    std::string f = std::to_string(frac + 1000).substr(1);
    while (f.back() == '0') f.pop_back();
    secs += "." + f;
  }
  std::string out = sign;
  if (h > 0) out += std::to_string(h) + "h";
  if (h > 0 || m > 0) out += std::to_string(m) + "m";
  return out + secs + "s";
}

std::string go_path_join(const std::string& dir, const std::string& name) {
  if (!name.empty() && name[0] == '/') return go_clean(name);
  if (dir.empty()) return go_clean(name);
  return go_clean(dir + "/" + name);
}

RuleTestFileResult run_rule_test(const std::string& file, const RuleTestFile& tests) {
  RuleTestFileResult result;
  result.file = file;
  // resolveAndGlobFilepaths: relative names are joined to the test file's directory.
  std::vector<std::string> rule_files;
  for (const auto& rf : tests.rule_files) {
    std::string p = !rf.empty() && rf[0] != '/' ? go_path_join(dir_of(file), rf) : rf;
    auto m = go_glob(p);
    if (m.empty()) result.warnings.push_back("no file match pattern " + p);
    rule_files.insert(rule_files.end(), m.begin(), m.end());
  }
  const int64_t eval_interval = tests.evaluation_interval_ms != 0 ? tests.evaluation_interval_ms : 60'000;
  std::map<std::string, int> order;
  for (size_t i = 0; i < tests.group_eval_order.size(); ++i) {
    const std::string& gn = tests.group_eval_order[i];
    if (order.count(gn)) {
      result.failures.push_back({RuleTestFailure::Kind::kFile, -1, "group name repeated in evaluation order: " + gn});
      return result;
    }
    order[gn] = static_cast<int>(i);
  }
  for (size_t i = 0; i < tests.tests.size(); ++i) {
    RuleTestGroup tg = tests.tests[i];
    if (tg.interval_ms == 0) tg.interval_ms = eval_interval;
    GroupRunner runner(tg, static_cast<int>(i), eval_interval, order, rule_files);
    auto f = runner.run();
    result.failures.insert(result.failures.end(), f.begin(), f.end());
  }
  return result;
}

RuleTestFileResult run_rule_test_file(const std::string& file) {
  auto content = read_rule_file_bytes(file);
  if (!content) {
    RuleTestFileResult r;
    r.file = file;
    r.failures.push_back({RuleTestFailure::Kind::kFile, -1, content.error()});
    return r;
  }
  auto parsed = parse_rule_test_file(file, *content);
  if (!parsed) {
    RuleTestFileResult r;
    r.file = file;
    r.failures.push_back({RuleTestFailure::Kind::kFile, -1, parsed.error()});
    return r;
  }
  return run_rule_test(file, *parsed);
}

int rules_test(const std::vector<std::string>& files, std::FILE* out, std::FILE* err) {
  bool failed = false;
  for (const auto& f : files) {
    print(out, "Unit Testing:  " + f + "\n");
    RuleTestFileResult r = run_rule_test_file(f);
    for (const auto& w : r.warnings) print(err, "  WARNING: " + w + "\n");
    if (!r.ok()) {
      print(err, "  FAILED:\n");
      for (const auto& e : r.failures) {
        print(err, e.message + "\n");
        print(out, "\n");
      }
      failed = true;
    } else {
      print(out, "  SUCCESS\n");
    }
    print(out, "\n");
  }
  return failed ? 1 : 0;
}

}  // namespace llmon::rules
