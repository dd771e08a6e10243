// Parser for Prometheus's promqltest script format (promql/promqltest/README.md
// and test.go in prometheus/prometheus): a test support header, not
// production code. Pure: text in, commands out; no engine, no storage.
//
//   # comment (a comment line also ends a load/eval block, as in test.go)
//   load 5m
//       http_requests{job="api"} 0+10x10 _ stale
//   clear
//   eval instant at 50m rate(http_requests[5m])          (also eval_ordered,
//       {job="api"} 0.033                                  eval_fail, eval_warn,
//   eval range from 0 to 10m step 5m sum(x)                eval_info)
//       {} 1 2 _
//   eval instant at 1m 1 + 1
//       2                                    (a bare number: scalar result)
//   eval instant at 1m foo + on() bar
//       expect fail regex: many-to-many      (expect fail|warn|info|no_warn|
//                                             no_info|ordered [msg:|regex: X])
//   eval_fail instant at 1m ...
//       expected_fail_message <exact text>   (or expected_fail_regexp <re>)
//
// Times are Prometheus durations from the Unix epoch; the i-th value of a
// load line is at i*step. Native-histogram syntax, load_with_nhcb, `expect
// range vector` and `expect string` are not supported (errors say so).
// Deviation: the query is NOT parsed here (Prometheus's test.go rejects
// scripts whose queries do not parse), so `eval_fail` may test parse errors.
// Errors are "file:line: message" (line 1-based; series errors add the column).
#pragma once

#include <re2/re2.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/status.h"
#include "base/strings.h"
#include "promql/series_notation.h"
#include "storage/storage.h"

namespace llmon::promqltest {

struct LoadSeries {
  int line = 0;
  model::Labels labels;
  std::vector<promql::SequenceValue> values;
};

struct LoadCmd {
  int line = 0;
  int64_t step_ms = 0;
  std::vector<LoadSeries> series;
};

struct ClearCmd {
  int line = 0;
};

// One `expect <kind> [msg: X | regex: X]` line; neither set = any message.
struct Expect {
  enum class Kind { kFail, kWarn, kInfo, kNoWarn, kNoInfo, kOrdered };
  Kind kind = Kind::kFail;
  std::optional<std::string> msg;    // exact match
  std::optional<std::string> regex;  // RE2 partial match (Go's MatchString)
  int line = 0;
  // True when `text` satisfies this line.
  bool matches(const std::string& text) const {
    if (msg) return text == *msg;
    if (regex) return RE2::PartialMatch(text, RE2(*regex));
    return true;
  }
};

struct ExpectedSeries {
  int line = 0;
  int pos = 0;  // 1-based position among the result lines (eval_ordered)
  model::Labels labels;
  std::vector<promql::SequenceValue> values;
};

struct EvalCmd {
  int line = 0;
  std::string query;
  bool range = false;
  int64_t start_ms = 0, end_ms = 0, step_ms = 0;  // instant: start == end == t, step 0
  // eval_fail / eval_ordered / eval_warn / eval_info, or the matching expect lines.
  bool fail = false, ordered = false, warn = false, info = false;
  std::vector<Expect> expects;
  std::optional<std::string> fail_message;  // expected_fail_message / expect fail msg:
  std::optional<std::string> fail_regexp;   // expected_fail_regexp / expect fail regex:
  bool expect_scalar = false;
  double scalar = 0;
  std::vector<ExpectedSeries> series;  // empty with !expect_scalar: an empty result
};

using Command = std::variant<LoadCmd, ClearCmd, EvalCmd>;

struct Script {
  std::string file;
  std::vector<Command> commands;
};

namespace detail {

inline Status fail_at(std::string_view file, int line, const std::string& msg) {
  return Status::error(base::where(file, line, msg));
}

inline bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// Go's parseNumber in test.go: strconv.ParseInt(s, 0, 64) (sign, 0x/0o/0b
// prefixes, leading-0 octal), else strconv.ParseFloat (decimal, exponent,
// Inf/Infinity/NaN in any case). Underscores and hex floats are not accepted.
inline std::optional<double> parse_go_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = false;
  std::string_view body = s;
  if (body[0] == '+' || body[0] == '-') {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body.empty()) return std::nullopt;
  if (iequal(body, "inf") || iequal(body, "infinity")) return neg ? -HUGE_VAL : HUGE_VAL;
  if (iequal(body, "nan")) return std::nan("");
  int base = 10;
  std::string_view digits = body;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X'))
    base = 16, digits = body.substr(2);
  else if (body.size() > 2 && body[0] == '0' && (body[1] == 'o' || body[1] == 'O'))
    base = 8, digits = body.substr(2);
  else if (body.size() > 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B'))
    base = 2, digits = body.substr(2);
  else if (body.size() > 1 && body[0] == '0')
    base = 8, digits = body.substr(1);
  uint64_t u = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), u, base);
  if (r.ec == std::errc() && r.ptr == digits.data() + digits.size() &&
      u <= (neg ? uint64_t{1} << 63 : uint64_t{INT64_MAX})) {
    double v = static_cast<double>(u);
    return neg ? -v : v;
  }
  if (base == 16 || base == 2 || (base == 8 && body.size() > 2 && (body[1] == 'o' || body[1] == 'O')))
    return std::nullopt;
  double v = 0;
  auto f = std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
  if (f.ptr != body.data() + body.size()) return std::nullopt;
  if (f.ec == std::errc::result_out_of_range) {
    size_t e = body.find_first_of("eE");
    if (e == std::string_view::npos || e + 1 >= body.size() || body[e + 1] != '-') return std::nullopt;
    v = 0;
  } else if (f.ec != std::errc()) {
    return std::nullopt;
  }
  return neg ? -v : v;
}

// model.ParseDuration as used for load steps and eval times.
inline Status parse_time(std::string_view file, int line, std::string_view what, std::string_view text, int64_t& out) {
  auto d = base::parse_duration_ms(text);
  if (!d) return fail_at(file, line, "invalid " + std::string(what) + " \"" + std::string(text) + "\": " + d.error());
  out = *d;
  return Status::ok();
}

inline Status parse_expect(std::string_view file, int line, const std::string& text, Expect& out) {
  static const RE2 re(R"(^expect\s+(ordered|fail|warn|no_warn|info|no_info)(?:\s+(regex|msg):(.+))?$)");
  std::string kind, mode, arg;
  if (!RE2::FullMatch(text, re, &kind, &mode, &arg))
    return fail_at(file, line, "invalid expect statement, must match `expect <type> <match_type>: <string>`: " + text);
  using K = Expect::Kind;
  out.kind = kind == "ordered"   ? K::kOrdered
             : kind == "fail"    ? K::kFail
             : kind == "warn"    ? K::kWarn
             : kind == "no_warn" ? K::kNoWarn
             : kind == "info"    ? K::kInfo
                                 : K::kNoInfo;
  out.line = line;
  if (!mode.empty()) {
    if (out.kind == K::kOrdered || out.kind == K::kNoWarn || out.kind == K::kNoInfo)
      return fail_at(file, line, "expect " + kind + " takes no msg:/regex:");
    std::string v(base::trim(arg));
    if (mode == "msg") {
      out.msg = v;
    } else {
      RE2 check(v);
      if (!check.ok()) return fail_at(file, line, "invalid regex " + v + ": " + check.error());
      out.regex = v;
    }
  }
  return Status::ok();
}

}  // namespace detail

inline Expected<Script> parse_script(std::string_view text, std::string_view file) {
  using detail::fail_at;
  // Trimmed lines; comment lines become empty (and so end blocks), as in test.go.
  std::vector<std::string> lines;
  for (std::string_view l : base::split(text, '\n')) {
    std::string_view t = base::trim(l);
    lines.emplace_back(!t.empty() && t[0] == '#' ? std::string_view() : t);
  }
  static const RE2 load_re(R"(^load(?:_(with_nhcb))?\s+(.+?)$)");
  static const RE2 instant_re(R"(^eval(?:_(fail|warn|ordered|info))?\s+instant\s+(?:at\s+(.+?))?\s+(.+)$)");
  static const RE2 range_re(R"(^eval(?:_(fail|warn|info))?\s+range\s+from\s+(.+)\s+to\s+(.+)\s+step\s+(.+?)\s+(.+)$)");

  Script script;
  script.file = std::string(file);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const int lineno = static_cast<int>(i) + 1;
    if (l.empty()) continue;
    std::string word(l.substr(0, l.find_first_of(" \t")));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

    if (word == "clear") {
      script.commands.emplace_back(ClearCmd{lineno});
      continue;
    }
    if (word.rfind("load", 0) == 0) {
      std::string nhcb, step;
      if (!RE2::FullMatch(l, load_re, &nhcb, &step))
        return fail_at(file, lineno, "invalid load command. (load <step:duration>)");
      if (!nhcb.empty()) return fail_at(file, lineno, "load_with_nhcb (native histograms) is not supported");
      LoadCmd cmd;
      cmd.line = lineno;
      if (Status st = detail::parse_time(file, lineno, "step", step, cmd.step_ms); !st) return st;
      if (cmd.step_ms <= 0) return fail_at(file, lineno, "load step must be positive");
      while (i + 1 < lines.size() && !lines[i + 1].empty()) {
        ++i;
        auto d = promql::parse_series_description(lines[i]);
        if (!d) return fail_at(file, static_cast<int>(i) + 1, d.error());
        for (const LoadSeries& prev : cmd.series)
          if (prev.labels == d->labels)  // test.go would silently keep only the last one
            return fail_at(file, static_cast<int>(i) + 1,
                           "series " + d->labels.to_string() + " loaded twice in one block (also line " +
                               std::to_string(prev.line) + ")");
        cmd.series.push_back({static_cast<int>(i) + 1, std::move(d->labels), std::move(d->values)});
      }
      script.commands.emplace_back(std::move(cmd));
      continue;
    }
    if (word.rfind("eval", 0) != 0) return fail_at(file, lineno, "invalid command \"" + l + "\"");

    EvalCmd cmd;
    cmd.line = lineno;
    std::string mod, at, from, to, step;
    if (RE2::FullMatch(l, instant_re, &mod, &at, &cmd.query)) {
      if (Status st = detail::parse_time(file, lineno, "timestamp", at, cmd.start_ms); !st) return st;
      cmd.end_ms = cmd.start_ms;
    } else if (RE2::FullMatch(l, range_re, &mod, &from, &to, &step, &cmd.query)) {
      cmd.range = true;
      if (Status st = detail::parse_time(file, lineno, "start", from, cmd.start_ms); !st) return st;
      if (Status st = detail::parse_time(file, lineno, "end", to, cmd.end_ms); !st) return st;
      if (Status st = detail::parse_time(file, lineno, "step", step, cmd.step_ms); !st) return st;
      if (cmd.end_ms < cmd.start_ms)
        return fail_at(file, lineno,
                       "invalid test definition, end timestamp (" + to + ") is before start timestamp (" + from + ")");
    } else {
      return fail_at(file, lineno,
                     "invalid evaluation command. Must be either 'eval[_fail|_warn|_info|_ordered] instant at "
                     "<offset:duration> <query>' or 'eval[_fail|_warn|_info] range from <from> to <to> step <step> "
                     "<query>'");
    }
    cmd.fail = mod == "fail";
    cmd.ordered = mod == "ordered";
    cmd.warn = mod == "warn";
    cmd.info = mod == "info";

    int pos = 1;
    while (i + 1 < lines.size() && !lines[i + 1].empty()) {
      ++i;
      const std::string& d = lines[i];
      const int dline = static_cast<int>(i) + 1;
      if (cmd.fail && d.rfind("expected_fail_message", 0) == 0) {
        cmd.fail_message = std::string(base::trim(std::string_view(d).substr(21)));
        break;
      }
      if (cmd.fail && d.rfind("expected_fail_regexp", 0) == 0) {
        std::string re(base::trim(std::string_view(d).substr(20)));
        if (!RE2(re).ok()) return fail_at(file, dline, "invalid regexp '" + re + "' for expected_fail_regexp");
        cmd.fail_regexp = re;
        break;
      }
      if (d.rfind("expect range vector", 0) == 0 || d.rfind("expect string", 0) == 0)
        return fail_at(file, dline, "\"" + d + "\" is not supported by this runner");
      if (d.substr(0, d.find(' ')) == "expect") {
        Expect e;
        if (Status st = detail::parse_expect(file, dline, d, e); !st) return st;
        using K = Expect::Kind;
        int n_fail = 0;
        for (const Expect& x : cmd.expects) n_fail += x.kind == K::kFail;
        if (e.kind == K::kFail && n_fail > 0)
          return fail_at(file, dline, "invalid expect lines, multiple expect fail lines are not allowed");
        for (const Expect& x : cmd.expects) {
          bool clash = (x.kind == K::kInfo && e.kind == K::kNoInfo) || (x.kind == K::kNoInfo && e.kind == K::kInfo) ||
                       (x.kind == K::kWarn && e.kind == K::kNoWarn) || (x.kind == K::kNoWarn && e.kind == K::kWarn);
          if (clash) return fail_at(file, dline, "invalid expect lines, info/no_info or warn/no_warn used together");
        }
        if (e.kind == K::kFail) {
          cmd.fail = true;
          if (e.msg) cmd.fail_message = e.msg;
          if (e.regex) cmd.fail_regexp = e.regex;
        }
        if (e.kind == K::kOrdered) cmd.ordered = true;
        cmd.expects.push_back(std::move(e));
        continue;
      }
      if (auto num = detail::parse_go_number(d)) {
        cmd.expect_scalar = true;
        cmd.scalar = *num;
        break;
      }
      auto s = promql::parse_series_description(d);
      if (!s) return fail_at(file, dline, s.error());
      if (!cmd.range && s->values.size() > 1)
        return fail_at(file, dline, "expecting multiple values in instant evaluation not allowed");
      if (!cmd.range && s->values.size() == 1 && s->values[0].omitted)
        return fail_at(file, dline, "an instant evaluation cannot expect a missing value (\"_\")");
      if (!cmd.range && s->values.empty()) return fail_at(file, dline, "expected series without a value");
      for (const ExpectedSeries& prev : cmd.series)
        if (prev.labels == s->labels)
          return fail_at(
              file, dline,
              "series " + s->labels.to_string() + " expected twice (also line " + std::to_string(prev.line) + ")");
      cmd.series.push_back({dline, pos++, std::move(s->labels), std::move(s->values)});
    }
    if (cmd.expect_scalar && !cmd.series.empty())
      return fail_at(file, lineno, "an eval expects either series or one scalar, not both");
    if (cmd.ordered && cmd.range) return fail_at(file, lineno, "ordered results are not supported for range queries");
    script.commands.emplace_back(std::move(cmd));
  }
  return script;
}

}  // namespace llmon::promqltest
