// Prometheus's API JSON bytes; see api_json.h for the rules and their sources.
#include "api/json.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "go/json.h"

namespace llmon::api {
namespace {

std::string non_finite(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "+Inf" : "-Inf";
}

// Shortest round-trip digits (Go's -1 precision) in exponent form, which
// both C++ and Go write with at least two exponent digits ("1e-07").
std::string shortest_exp(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  if (ec != std::errc()) return "NaN";  // cannot happen: 64 bytes hold any double in this form
  return std::string(buf, p);
}

// The same digits laid out without an exponent, as Go's 'f' with precision -1
// does ("123456789012345690000000", "0.0000001"). C++'s fixed to_chars would
// print the exact binary value's digits instead. Appends without temporaries:
// this runs once per point of a query answer.
void append_shortest_fixed(std::string& out, double v) {
  // Integral values below 2^53 (counters, most gauges): their digits are the integer's.
  if (std::fabs(v) < 9007199254740992.0 && v == std::trunc(v)) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(v));
    if (v == 0 && std::signbit(v)) out += '-';  // Go prints -0 as "-0"
    out.append(buf, r.ptr);
    return;
  }
  // Below 2^53 (and at least 1e-6, where callers switch to the exponent form)
  // C++'s shortest fixed form has Go's digits: checked on 14 million values
  // of several distributions against the rearranged scientific form below.
  if (std::fabs(v) < 9007199254740992.0 && std::fabs(v) >= 1e-6) {
    char f[64];
    auto r = std::to_chars(f, f + sizeof(f), v, std::chars_format::fixed);
    if (r.ec == std::errc()) {
      out.append(f, r.ptr);
      return;
    }
  }
  char e[64];
  auto [p, ec] = std::to_chars(e, e + sizeof(e), v, std::chars_format::scientific);
  if (ec != std::errc()) {
    out += "NaN";  // cannot happen: 64 bytes hold any double in this form
    return;
  }
  std::string_view sv(e, static_cast<size_t>(p - e));
  size_t epos = sv.find('e');
  char digits[32];
  size_t nd = 0;
  bool neg = false;
  for (size_t i = 0; i < epos; ++i) {
    if (sv[i] == '-')
      neg = true;
    else if (sv[i] != '.')
      digits[nd++] = sv[i];
  }
  int exp = 0;
  std::from_chars(sv.data() + epos + 2, sv.data() + sv.size(), exp);  // to_chars writes e+XX / e-XX
  if (sv[epos + 1] == '-') exp = -exp;
  if (neg) out += '-';
  if (exp < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exp - 1), '0');
    out.append(digits, nd);
  } else if (static_cast<size_t>(exp) + 1 >= nd) {
    out.append(digits, nd);
    out.append(static_cast<size_t>(exp) + 1 - nd, '0');
  } else {
    out.append(digits, static_cast<size_t>(exp) + 1);
    out += '.';
    out.append(digits + exp + 1, nd - static_cast<size_t>(exp) - 1);
  }
}

std::string shortest_fixed(double v) {
  std::string out;
  append_shortest_fixed(out, v);
  return out;
}

void append_sample_value(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += non_finite(v);
    return;
  }
  double abs = std::fabs(v);
  if (abs != 0 && (abs < 1e-6 || abs >= 1e21)) {
    out += shortest_exp(v);
    return;
  }
  append_shortest_fixed(out, v);
}

void append_string_array(std::string& out, const std::vector<std::string>& items) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, items[i]);
  }
  out += ']';
}

// A matrix point written through a pointer: the hot loop of a large range
// query's answer (one std::string append per fragment costs a call each).
// Writes at most kMaxPointBytes: '[' + timestamp (<= 24) + ',"' + value (<= 26:
// "-0.000001234567890123456", "-1.2345678901234567e-308") + '"]'.
constexpr size_t kMaxPointBytes = 64;

char* write_timestamp(char* p, int64_t t_ms) {
  uint64_t t = static_cast<uint64_t>(t_ms);
  if (t_ms < 0) {
    *p++ = '-';
    t = 0 - t;
  }
  p = std::to_chars(p, p + 24, t / 1000).ptr;
  uint64_t frac = t % 1000;
  if (frac != 0) {
    p[0] = '.';
    p[1] = static_cast<char>('0' + frac / 100);
    p[2] = static_cast<char>('0' + frac / 10 % 10);
    p[3] = static_cast<char>('0' + frac % 10);
    p += 4;
  }
  return p;
}

char* write_point(char* p, int64_t t_ms, double v) {
  *p++ = '[';
  p = write_timestamp(p, t_ms);
  *p++ = ',';
  *p++ = '"';
  double abs = std::fabs(v);
  if (abs < 9007199254740992.0 && v == std::trunc(v) && !(v == 0 && std::signbit(v))) {
    p = std::to_chars(p, p + 24, static_cast<int64_t>(v)).ptr;  // counters, most gauges
  } else if (abs >= 1e-6 && abs < 9007199254740992.0) {
    p = std::to_chars(p, p + 32, v, std::chars_format::fixed).ptr;  // Go's digits (append_shortest_fixed)
  } else {
    std::string rest;  // -0, NaN, ±Inf, exponent forms, huge integers: rare
    append_sample_value(rest, v);
    std::memcpy(p, rest.data(), rest.size());
    p += rest.size();
  }
  *p++ = '"';
  *p++ = ']';
  return p;
}

// One point of a vector or matrix answer, formatted in a small buffer and
// appended in one call.
void append_point(std::string& out, int64_t t_ms, double v) {
  char buf[kMaxPointBytes];
  out.append(buf, write_point(buf, t_ms, v));
}

void append_scalar_pair(std::string& out, int64_t t_ms, std::string_view quoted_value) {
  out += '[';
  append_go_json_float(out, static_cast<double>(t_ms) / 1000);
  out += ',';
  out += quoted_value;
  out += ']';
}

void append_tail(std::string& out, const std::vector<std::string>& warnings, const std::vector<std::string>& infos) {
  if (!warnings.empty()) {
    out += ",\"warnings\":";
    append_string_array(out, warnings);
  }
  if (!infos.empty()) {
    out += ",\"infos\":";
    append_string_array(out, infos);
  }
  out += '}';
}

}  // namespace

std::string format_float_f(double v) {
  if (!std::isfinite(v)) return non_finite(v);
  return shortest_fixed(v);
}

std::string format_sample_value(double v) {
  if (!std::isfinite(v)) return non_finite(v);
  double abs = std::fabs(v);
  bool exp = abs != 0 && (abs < 1e-6 || abs >= 1e21);
  return exp ? shortest_exp(v) : shortest_fixed(v);
}

void append_sample_timestamp(std::string& out, int64_t t_ms) {
  char buf[32];
  out.append(buf, write_timestamp(buf, t_ms));
}

void append_go_json_float(std::string& out, double v) {
  if (!std::isfinite(v)) {  // encoding/json refuses these; no API value reaches here with one
    out += "null";
    return;
  }
  double abs = std::fabs(v);
  if (abs != 0 && (abs < 1e-6 || abs >= 1e21)) {
    std::string s = shortest_exp(v);
    // encoding/json cleans "e-07" up to "e-7".
    size_t n = s.size();
    if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') s.erase(n - 2, 1);
    out += s;
    return;
  }
  out += shortest_fixed(v);
}

// Go's encoding/json string escaping lives with the other Go JSON writers.
void append_json_string(std::string& out, std::string_view s) {
  go::json::append_quoted(out, s);
}

void append_labels(std::string& out, const model::Labels& labels) {
  out += '{';
  bool first = true;
  for (const auto& l : labels.pairs()) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, l.name);
    out += ':';
    append_json_string(out, l.value);
  }
  out += '}';
}

namespace {

// {"resultType":"<type>","result":[{"metric":{...}<body>},...]: the list of
// a vector or matrix answer; body(out, item) writes what follows the labels.
template <typename List, typename Body>
void append_series_result(std::string& out, std::string_view type, const List& list, Body&& body) {
  out += R"({"resultType":")";
  out += type;
  out += R"(","result":[)";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out += ',';
    out += R"({"metric":)";
    append_labels(out, list[i].labels);
    body(out, list[i]);
    out += '}';
  }
  out += ']';
}

}  // namespace

std::string encode_query_data(const promql::Value& value) {
  std::string out;
  append_query_data(out, value);
  return out;
}

void append_query_data(std::string& out, const promql::Value& value) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, promql::Scalar>) {
          out += R"({"resultType":"scalar","result":)";
          std::string quoted = "\"";
          quoted += format_float_f(v.v);
          quoted += '"';
          append_scalar_pair(out, v.t_ms, quoted);
        } else if constexpr (std::is_same_v<T, promql::String>) {
          out += R"({"resultType":"string","result":)";
          std::string quoted;
          append_json_string(quoted, v.v);
          append_scalar_pair(out, v.t_ms, quoted);
        } else if constexpr (std::is_same_v<T, promql::Vector>) {
          append_series_result(out, "vector", v, [](std::string& o, const auto& sample) {
            o += R"(,"value":)";
            append_point(o, sample.t_ms, sample.v);
          });
        } else {
          size_t points = 0;
          for (const auto& series : v) points += series.samples.size();
          // ~36 bytes a point ([1796016960.123,"0.0123456789012345"],): room for
          // the whole answer at once, so the buffer is never copied as it grows.
          out.reserve(out.size() + 64 + 160 * v.size() + 40 * points);
          append_series_result(out, "matrix", v, [](std::string& o, const auto& series) {
            o += R"(,"values":[)";
            // The answer's room was reserved above, so this rarely grows it.
            const auto& pts = series.samples;
            for (size_t k = 0; k < pts.size(); ++k) {
              if (k) o += ',';
              append_point(o, pts[k].t_ms, pts[k].v);
            }
            o += ']';
          });
        }
      },
      value);
  out += '}';
}

std::string encode_string_array(const std::vector<std::string>& items) {
  std::string out;
  append_string_array(out, items);
  return out;
}

std::string encode_label_sets(const std::vector<model::Labels>& sets) {
  std::string out = "[";
  for (size_t i = 0; i < sets.size(); ++i) {
    if (i) out += ',';
    append_labels(out, sets[i]);
  }
  out += ']';
  return out;
}

std::string success_envelope(std::string_view data_json, const std::vector<std::string>& warnings,
                             const std::vector<std::string>& infos) {
  std::string out(kSuccessPrefix);
  out += data_json;
  append_tail(out, warnings, infos);
  return out;
}

void finish_success_envelope(std::string& out, const std::vector<std::string>& warnings,
                             const std::vector<std::string>& infos) {
  append_tail(out, warnings, infos);
}

std::string error_envelope(promql::ErrorType type, std::string_view message, const std::vector<std::string>& warnings,
                           const std::vector<std::string>& infos) {
  std::string out = R"({"status":"error","errorType":)";
  append_json_string(out, promql::error_type_text(type));
  out += R"(,"error":)";
  append_json_string(out, message);
  append_tail(out, warnings, infos);
  return out;
}

}  // namespace llmon::api
