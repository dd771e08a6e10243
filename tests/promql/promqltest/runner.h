// Runs parsed promqltest scripts (script.h) against a Backend and compares
// results as Prometheus's promql/promqltest/test.go does: same series set,
// values within a relative 1e-6 (almost.Equal: NaN equals NaN), positions
// only for eval_ordered / `expect ordered`, errors only where expected.
// Like test.go, every instant eval is also run
//   * in range mode (t-1m .. t+1m step 1m, the middle step must match), and
//   * with `@ t` pinned on its selectors, evaluated at other times
//     (atModifierTestCases), unless it calls a function whose result depends
//     on the evaluation time.
// A staleness marker in a result is always a failure (queries never return
// one), and so is an exception escaping the backend (reported, and the next
// eval runs). Test support, not production code; the Backend abstracts the engine
// and the store so this file is unit-tested with a fake.
#pragma once

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "promql/engine.h"
#include "promql/promqltest/script.h"
#include "promql/value.h"

namespace llmon::promqltest {

// A query to run: the text, optionally with every selector pinned `@ pin_at_ms`.
struct QuerySpec {
  std::string text;
  std::optional<int64_t> pin_at_ms;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Status clear() = 0;  // a fresh, empty store
  virtual Status load(const LoadCmd& cmd) = 0;
  virtual promql::QueryResult instant(const QuerySpec& q, int64_t t_ms) = 0;
  virtual promql::QueryResult range(const QuerySpec& q, int64_t start_ms, int64_t end_ms, int64_t step_ms) = 0;
  // Whether `query` gets the @-pinned variants: it parses and calls no
  // time-dependent function outside a subquery that gets pinned.
  virtual bool pinnable(const std::string& query) = 0;
};

struct RunOptions {
  bool range_mode_check = true;
  bool at_modifier_variants = true;
  bool check_annotations = true;  // eval_warn/eval_info and expect warn/info/no_warn/no_info
};

struct Failure {
  std::string file;
  int line = 0;
  std::string query;
  std::string message;
  std::string to_string() const { return file + ":" + std::to_string(line) + ": " + query + "\n    " + message; }
};

struct RunReport {
  int evals = 0;
  int passed = 0;
  std::vector<Failure> failures;  // at most one per eval, plus load errors
};

// ---- comparison ----

// Prometheus's util/almost.Equal.
inline bool almost_equal(double a, double b, double epsilon = 1e-6) {
  if (std::isnan(a) && std::isnan(b)) return true;
  if (a == b) return true;
  const double min_normal = std::numeric_limits<double>::min();
  double abs_sum = std::fabs(a) + std::fabs(b);
  double diff = std::fabs(a - b);
  if (a == 0 || b == 0 || abs_sum < min_normal) return diff < epsilon * min_normal;
  return diff / std::min(abs_sum, std::numeric_limits<double>::max()) < epsilon;
}

inline std::string fmt_value(double v) {
  if (model::is_stale(v)) return "stale";
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

inline std::string fmt_series(const promql::MatrixSeries& s) {
  std::string out = s.labels.to_string() + " =>";
  for (const model::Sample& p : s.samples) out += " " + fmt_value(p.v) + " @[" + std::to_string(p.t_ms) + "]";
  return out;
}

inline std::string fmt_expected_values(const std::vector<promql::SequenceValue>& vs) {
  std::string out;
  for (const promql::SequenceValue& v : vs)
    out += (out.empty() ? "" : " ") + (v.omitted ? std::string("_") : fmt_value(v.value));
  return out;
}

inline std::string fmt_result(const promql::QueryResult& r) {
  if (r.error) return "error: " + r.error->message;
  std::string out;
  if (auto* s = std::get_if<promql::Scalar>(&r.value)) return "scalar " + fmt_value(s->v);
  if (auto* s = std::get_if<promql::String>(&r.value)) return "string \"" + s->v + "\"";
  if (auto* v = std::get_if<promql::Vector>(&r.value)) {
    if (v->empty()) return "empty vector";
    for (const promql::VectorSample& s : *v) out += "\n      " + s.labels.to_string() + " " + fmt_value(s.v);
    return "vector:" + out;
  }
  const auto& m = std::get<promql::Matrix>(r.value);
  if (m.empty()) return "empty matrix";
  for (const promql::MatrixSeries& s : m) out += "\n      " + fmt_series(s);
  return "matrix:" + out;
}

inline std::string fmt_expected(const EvalCmd& cmd) {
  if (cmd.expect_scalar) return "scalar " + fmt_value(cmd.scalar);
  if (cmd.series.empty()) return "an empty result";
  std::string out;
  for (const ExpectedSeries& s : cmd.series)
    out += "\n      " + s.labels.to_string() + " " + fmt_expected_values(s.values);
  return out;
}

namespace detail {

// Compares the pairs only: model::Labels::operator== also compares the
// cached hash, and a default-constructed (empty) Labels has hash 0 while
// Labels::make({}) has FNV's offset basis, so two empty label sets built the
// two ways would differ.
inline bool same_labels(const model::Labels& a, const model::Labels& b) {
  return a.pairs() == b.pairs();
}

inline const ExpectedSeries* find_expected(const EvalCmd& cmd, const model::Labels& l) {
  for (const ExpectedSeries& s : cmd.series)
    if (same_labels(s.labels, l)) return &s;
  return nullptr;
}

inline std::string check_sorted(const promql::Matrix& m) {
  for (size_t i = 1; i < m.size(); ++i)
    if (m[i].labels < m[i - 1].labels || same_labels(m[i].labels, m[i - 1].labels))
      return "matrix results must be sorted by labels and unique, but " + m[i].labels.to_string() + " follows " +
             m[i - 1].labels.to_string();
  return "";
}

inline std::string compare_vector(const EvalCmd& cmd, const promql::Vector& v, bool ordered) {
  if (cmd.expect_scalar) return "expected scalar " + fmt_value(cmd.scalar) + ", got a vector";
  std::vector<bool> seen(cmd.series.size(), false);
  for (size_t pos = 0; pos < v.size(); ++pos) {
    const promql::VectorSample& s = v[pos];
    const ExpectedSeries* e = find_expected(cmd, s.labels);
    if (e == nullptr) return "unexpected metric " + s.labels.to_string() + " in result, has value " + fmt_value(s.v);
    size_t idx = static_cast<size_t>(e - cmd.series.data());
    if (seen[idx]) return "metric " + s.labels.to_string() + " appears twice in the result";
    seen[idx] = true;
    if (ordered && e->pos != static_cast<int>(pos) + 1)
      return "expected metric " + s.labels.to_string() + " at position " + std::to_string(e->pos) + " but was at " +
             std::to_string(pos + 1);
    double want = e->values.at(0).value;
    if (model::is_stale(s.v) && !model::is_stale(want))
      return "result contains a staleness marker for " + s.labels.to_string();
    if (!almost_equal(want, s.v))
      return "expected " + fmt_value(want) + " for " + s.labels.to_string() + " but got " + fmt_value(s.v);
  }
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i])
      return "expected metric " + cmd.series[i].labels.to_string() + " with " +
             fmt_expected_values(cmd.series[i].values) + " not found";
  return "";
}

inline std::string compare_matrix(const EvalCmd& cmd, const promql::Matrix& m, bool ordered) {
  if (ordered) return "expected ordered result, but query returned a matrix";
  if (cmd.expect_scalar) return "expected scalar " + fmt_value(cmd.scalar) + ", got a matrix";
  if (std::string e = check_sorted(m); !e.empty()) return e;
  std::vector<bool> seen(cmd.series.size(), false);
  for (const promql::MatrixSeries& s : m) {
    const ExpectedSeries* e = find_expected(cmd, s.labels);
    if (e == nullptr) return "unexpected metric " + s.labels.to_string() + " in result: " + fmt_series(s);
    seen[static_cast<size_t>(e - cmd.series.data())] = true;
    std::vector<model::Sample> want;
    for (size_t i = 0; i < e->values.size(); ++i) {
      int64_t t = cmd.start_ms + static_cast<int64_t>(i) * cmd.step_ms;
      if (t > cmd.end_ms)
        return "expected " + std::to_string(e->values.size()) + " points for " + e->labels.to_string() +
               ", but the query time range cannot return this many points";
      if (!e->values[i].omitted) want.push_back({t, e->values[i].value});
    }
    if (want.size() != s.samples.size())
      return "expected " + std::to_string(want.size()) + " points for " + e->labels.to_string() + " (" +
             fmt_expected_values(e->values) + "), but got " + fmt_series(s);
    for (size_t i = 0; i < want.size(); ++i) {
      const model::Sample& got = s.samples[i];
      if (got.t_ms != want[i].t_ms)
        return "expected point " + std::to_string(i) + " of " + e->labels.to_string() +
               " at t=" + std::to_string(want[i].t_ms) + ", but it is at t=" + std::to_string(got.t_ms) + " (got " +
               fmt_series(s) + ")";
      if (model::is_stale(got.v) && !model::is_stale(want[i].v))
        return "result contains a staleness marker for " + s.labels.to_string() + " at t=" + std::to_string(got.t_ms);
      if (!almost_equal(want[i].v, got.v))
        return "expected " + fmt_value(want[i].v) + " at t=" + std::to_string(got.t_ms) + " for " +
               e->labels.to_string() + " but got " + fmt_value(got.v) + " (got " + fmt_series(s) + ")";
    }
  }
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) return "expected metric " + cmd.series[i].labels.to_string() + " not found";
  return "";
}

}  // namespace detail

// How a successful result differs from what `cmd` expects; "" if it matches.
inline std::string compare_result(const EvalCmd& cmd, const promql::QueryResult& r) {
  if (auto* v = std::get_if<promql::Vector>(&r.value)) return detail::compare_vector(cmd, *v, cmd.ordered);
  if (auto* m = std::get_if<promql::Matrix>(&r.value)) return detail::compare_matrix(cmd, *m, cmd.ordered);
  if (auto* s = std::get_if<promql::Scalar>(&r.value)) {
    if (!cmd.expect_scalar) return "expected a vector or matrix, got scalar " + fmt_value(s->v);
    if (!almost_equal(cmd.scalar, s->v))
      return "expected scalar " + fmt_value(cmd.scalar) + " but got " + fmt_value(s->v);
    return "";
  }
  return "expected " + fmt_expected(cmd) + ", got " + fmt_result(r);
}

// For an eval that expects failure: "" if `message` is the expected error.
inline std::string check_failure(const EvalCmd& cmd, const std::string& message) {
  if (cmd.fail_message && message != *cmd.fail_message)
    return "expected error \"" + *cmd.fail_message + "\", got: " + message;
  if (cmd.fail_regexp && !RE2::PartialMatch(message, RE2(*cmd.fail_regexp)))
    return "expected error matching /" + *cmd.fail_regexp + "/, got: " + message;
  return "";
}

// Annotations (Prometheus 3's expect lines); "" when they satisfy `cmd`.
inline std::string check_annotations(const EvalCmd& cmd, const promql::QueryResult& r) {
  auto check_kind = [&](const std::vector<std::string>& got, Expect::Kind want_kind, Expect::Kind none_kind,
                        bool required, const char* what) -> std::string {
    std::vector<const Expect*> wants;
    bool none = false;
    for (const Expect& e : cmd.expects) {
      if (e.kind == want_kind) wants.push_back(&e);
      if (e.kind == none_kind) none = true;
    }
    if ((required || !wants.empty()) && got.empty())
      return std::string("expected ") + what + " annotations but none were reported";
    for (const Expect* e : wants)
      if (std::none_of(got.begin(), got.end(), [&](const std::string& g) { return e->matches(g); }))
        return std::string("no ") + what + " annotation matches line " + std::to_string(e->line);
    if (!wants.empty())
      for (const std::string& g : got)
        if (std::none_of(wants.begin(), wants.end(), [&](const Expect* e) { return e->matches(g); }))
          return std::string("unexpected ") + what + " annotation \"" + g + "\"";
    if (none && !got.empty()) return std::string("unexpected ") + what + " annotation \"" + got[0] + "\"";
    return "";
  };
  if (std::string e = check_kind(r.warnings, Expect::Kind::kWarn, Expect::Kind::kNoWarn, cmd.warn, "warn"); !e.empty())
    return e;
  return check_kind(r.infos, Expect::Kind::kInfo, Expect::Kind::kNoInfo, cmd.info, "info");
}

// ---- running ----

namespace detail {

inline bool uses_query_context(const std::string& q) {
  static const RE2 re(R"((start|end|range|step)\(\))");
  return RE2::PartialMatch(q, re);
}

// One instant query of an eval (the original or a pinned variant) plus its
// range-mode check; "" when it passes.
inline std::string run_instant(Backend& b, const EvalCmd& cmd, const QuerySpec& q, int64_t t, const RunOptions& opt) {
  promql::QueryResult r = b.instant(q, t);
  if (r.error) {
    if (!cmd.fail) return "error evaluating query: " + r.error->message;
    return check_failure(cmd, r.error->message);
  }
  if (cmd.fail) return "expected an error, got " + fmt_result(r);
  if (opt.check_annotations)
    if (std::string e = check_annotations(cmd, r); !e.empty()) return e;
  if (std::string e = compare_result(cmd, r); !e.empty())
    return e + "\n    expected: " + fmt_expected(cmd) + "\n    got: " + fmt_result(r);

  if (!opt.range_mode_check || uses_query_context(q.text)) return "";
  promql::QueryResult rr = b.range(q, t - 60'000, t + 60'000, 60'000);
  if (rr.error) return "in range mode (t-1m..t+1m step 1m): error: " + rr.error->message;
  if (cmd.ordered) return "";  // range results are sorted by labels
  auto* m = std::get_if<promql::Matrix>(&rr.value);
  if (m == nullptr) return "in range mode: the result is not a matrix: " + fmt_result(rr);
  if (std::string e = check_sorted(*m); !e.empty()) return "in range mode: " + e;
  promql::Vector at_t;
  for (const promql::MatrixSeries& s : *m)
    for (const model::Sample& p : s.samples)
      if (p.t_ms == t) {
        at_t.push_back({s.labels, p.t_ms, p.v});
        break;
      }
  std::string e;
  if (std::holds_alternative<promql::Scalar>(r.value)) {
    if (at_t.empty()) return "in range mode: no point at t for the scalar result: " + fmt_result(rr);
    promql::QueryResult as_scalar;
    as_scalar.value = promql::Scalar{t, at_t[0].v};
    e = compare_result(cmd, as_scalar);
  } else {
    EvalCmd unordered = cmd;
    unordered.ordered = false;
    e = compare_vector(unordered, at_t, false);
  }
  return e.empty() ? "" : "in range mode (t-1m..t+1m step 1m, middle step): " + e + "\n    got: " + fmt_result(rr);
}

inline std::string run_eval(Backend& b, const EvalCmd& cmd, const RunOptions& opt) {
  if (cmd.range) {
    promql::QueryResult r = b.range({cmd.query, std::nullopt}, cmd.start_ms, cmd.end_ms, cmd.step_ms);
    if (r.error) {
      if (!cmd.fail) return "error evaluating range query: " + r.error->message;
      return check_failure(cmd, r.error->message);
    }
    if (cmd.fail) return "expected an error, got " + fmt_result(r);
    if (opt.check_annotations)
      if (std::string e = check_annotations(cmd, r); !e.empty()) return e;
    if (std::string e = compare_result(cmd, r); !e.empty())
      return e + "\n    expected:" + fmt_expected(cmd) + "\n    got: " + fmt_result(r);
    return "";
  }
  const int64_t t = cmd.start_ms;
  if (std::string e = run_instant(b, cmd, {cmd.query, std::nullopt}, t, opt); !e.empty()) return e;
  if (!opt.at_modifier_variants || !b.pinnable(cmd.query)) return "";
  // test.go's atModifierTestCases: evaluation times around the pinned one.
  std::vector<int64_t> times =
      t == 0 ? std::vector<int64_t>{-1000, 0, 1000} : std::vector<int64_t>{-10 * t, 0, t / 5, t, 10 * t};
  for (int64_t et : times)
    if (std::string e = run_instant(b, cmd, {cmd.query, t}, et, opt); !e.empty())
      return "with every selector pinned \"@ " + fmt_value(static_cast<double>(t) / 1000) + "\", evaluated at " +
             std::to_string(et) + " ms: " + e;
  return "";
}

}  // namespace detail

inline RunReport run_script(const Script& script, Backend& backend, const RunOptions& opt = {}) {
  RunReport report;
  if (Status st = backend.clear(); !st) {
    report.failures.push_back({script.file, 0, "", "cannot create the store: " + st.message()});
    return report;
  }
  for (const Command& c : script.commands) {
    if (const auto* clear = std::get_if<ClearCmd>(&c)) {
      if (Status st = backend.clear(); !st) {
        report.failures.push_back({script.file, clear->line, "clear", st.message()});
        return report;
      }
    } else if (const auto* load = std::get_if<LoadCmd>(&c)) {
      if (Status st = backend.load(*load); !st) {
        report.failures.push_back({script.file, load->line, "load", st.message()});
        return report;  // later evals would only report noise
      }
    } else {
      const auto& eval = std::get<EvalCmd>(c);
      ++report.evals;
      std::string e;
      try {
        e = detail::run_eval(backend, eval, opt);
      } catch (const std::exception& ex) {  // an engine bug: report it, go on with the next eval
        e = std::string("exception thrown by the backend: ") + ex.what();
      }
      if (!e.empty()) {
        report.failures.push_back({script.file, eval.line, eval.query, e});
      } else {
        ++report.passed;
      }
    }
  }
  return report;
}

}  // namespace llmon::promqltest
