// Prometheus's API parameter rules; see api_params.h. Sources: web/api/v1/api.go
// (parseTime, parseDuration, parseLimitParam), Go's net/url (ParseQuery),
// time.Parse(time.RFC3339Nano) and strconv.ParseFloat.
#include "api/params.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "base/civil_time.h"
#include "base/utf8.h"
#include "go/strconv.h"
#include "http/query.h"
#include "promql/parser.h"

namespace llmon::api {
namespace {

using http::hex_digit;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// url.QueryUnescape.
Expected<std::string> query_unescape(std::string_view s) {
  std::string out;
  std::string_view bad;
  if (!http::query_unescape(s, out, &bad)) return Status::error("invalid URL escape " + go::quote(bad));
  return out;
}

// Go's strconv.ParseFloat on the decimal syntax (hex floats and underscores
// are not accepted here); infinities and NaN are refused, as no API
// parameter can use them.
std::optional<double> parse_finite_float(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  bool digits = false;
  while (i < s.size() && is_digit(s[i])) ++i, digits = true;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, digits = true;
  }
  if (!digits) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == exp_start) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  // from_chars takes no '+' and would refuse "+.5"; it reads the rest as Go does.
  std::string_view body = s.substr(s[0] == '+' ? 1 : 0);
  double v = 0;
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec != std::errc() || p != body.data() + body.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// n fixed digits at s[i]; advances i.
std::optional<int> fixed_digits(std::string_view s, size_t& i, int n) {
  if (i + n > s.size()) return std::nullopt;
  int v = 0;
  for (int k = 0; k < n; ++k) {
    if (!is_digit(s[i + k])) return std::nullopt;
    v = v * 10 + (s[i + k] - '0');
  }
  i += n;
  return v;
}

bool expect(std::string_view s, size_t& i, char c) {
  if (i >= s.size() || s[i] != c) return false;
  ++i;
  return true;
}

// time.Parse(time.RFC3339Nano, s) -> Unix milliseconds (timestamp.FromTime).
std::optional<int64_t> parse_rfc3339_ms(std::string_view s) {
  size_t i = 0;
  auto year = fixed_digits(s, i, 4);
  if (!year || !expect(s, i, '-')) return std::nullopt;
  auto month = fixed_digits(s, i, 2);
  if (!month || !expect(s, i, '-')) return std::nullopt;
  auto day = fixed_digits(s, i, 2);
  if (!day || !expect(s, i, 'T')) return std::nullopt;
  auto hour = fixed_digits(s, i, 2);
  if (!hour || !expect(s, i, ':')) return std::nullopt;
  auto minute = fixed_digits(s, i, 2);
  if (!minute || !expect(s, i, ':')) return std::nullopt;
  auto second = fixed_digits(s, i, 2);
  if (!second) return std::nullopt;
  int64_t nanos = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t start = i;
    int64_t scale = 100'000'000;
    while (i < s.size() && is_digit(s[i])) {
      if (scale > 0) nanos += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
    if (i == start) return std::nullopt;
  }
  int64_t offset_s = 0;
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int sign = s[i] == '-' ? -1 : 1;
    ++i;
    auto oh = fixed_digits(s, i, 2);
    if (!oh || !expect(s, i, ':')) return std::nullopt;
    auto om = fixed_digits(s, i, 2);
    if (!om || *oh > 23 || *om > 59) return std::nullopt;
    offset_s = sign * (*oh * 3600 + *om * 60);
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 ||
      *day > static_cast<int>(base::days_in_month(*year, static_cast<unsigned>(*month))) || *hour > 23 ||
      *minute > 59 || *second > 59)
    return std::nullopt;
  int64_t secs = base::days_from_civil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second - offset_s;
  return secs * 1000 + nanos / 1'000'000;
}

Status cannot_parse_time(std::string_view text) {
  return Status::error("cannot parse " + go::quote(text) + " to a valid timestamp");
}

}  // namespace

Expected<Pairs> parse_url_query(std::string_view query) {
  Pairs out;
  Status first_error;
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    std::string_view part = query.substr(pos, amp == std::string_view::npos ? std::string_view::npos : amp - pos);
    pos = amp == std::string_view::npos ? query.size() + 1 : amp + 1;
    if (part.find(';') != std::string_view::npos) {
      if (first_error.is_ok()) first_error = Status::error("invalid semicolon separator in query");
      continue;
    }
    if (part.empty()) continue;
    size_t eq = part.find('=');
    auto k = query_unescape(part.substr(0, eq));
    if (!k) {
      if (first_error.is_ok()) first_error = k.status();
      continue;
    }
    std::string v;
    if (eq != std::string_view::npos) {
      auto dv = query_unescape(part.substr(eq + 1));
      if (!dv) {
        if (first_error.is_ok()) first_error = dv.status();
        continue;
      }
      v = std::move(*dv);
    }
    out.emplace_back(std::move(*k), std::move(v));
  }
  if (!first_error.is_ok()) return first_error;
  return out;
}

std::string_view Form::get(std::string_view key) const {
  for (const auto& [k, v] : values)
    if (k == key) return v;
  return {};
}

bool Form::has(std::string_view key) const {
  for (const auto& kv : values)
    if (kv.first == key) return true;
  return false;
}

std::vector<std::string> Form::all(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : values)
    if (k == key) out.push_back(v);
  return out;
}

Expected<Form> parse_form(std::string_view method, std::string_view content_type, std::string_view url_query,
                          std::string_view body) {
  Form form;
  if (method == "POST" || method == "PUT" || method == "PATCH") {
    // mime.ParseMediaType: the type is case-insensitive, parameters follow ';'.
    std::string_view ct = content_type.substr(0, content_type.find(';'));
    while (!ct.empty() && (ct.back() == ' ' || ct.back() == '\t')) ct.remove_suffix(1);
    while (!ct.empty() && (ct.front() == ' ' || ct.front() == '\t')) ct.remove_prefix(1);
    std::string lower(ct);
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (lower == "application/x-www-form-urlencoded") {
      auto b = parse_url_query(body);
      if (!b) return b.status().with_context("error parsing form values");
      form.values = std::move(*b);
    }
  }
  auto q = parse_url_query(url_query);
  if (!q) return q.status().with_context("error parsing form values");
  for (auto& kv : *q) form.values.push_back(std::move(kv));
  return form;
}

Expected<int64_t> parse_time_ms(std::string_view text) {
  if (auto f = parse_finite_float(text)) {
    // Prometheus: s, ns := math.Modf(t); ns = math.Round(ns*1000) / 1000;
    // time.Unix(int64(s), int64(ns*1e9)) -> timestamp.FromTime.
    double whole = 0;
    double frac = std::modf(*f, &whole);
    if (std::fabs(whole) >= 9.2e15) return cannot_parse_time(text);  // beyond int64 milliseconds
    double rounded = std::round(frac * 1000) / 1000;
    auto nanos = static_cast<int64_t>(rounded * 1e9);
    int64_t ms_part = nanos / 1'000'000;
    if (nanos % 1'000'000 < 0) --ms_part;  // time.Unix normalises to a positive nanosecond field
    return static_cast<int64_t>(whole) * 1000 + ms_part;
  }
  if (auto t = parse_rfc3339_ms(text)) return *t;
  // Go's time package cannot parse its own 9-digit years: Prometheus matches
  // the boundary strings its client library sends.
  if (text == "-292273086-05-16T16:47:06Z") return kMinTimeMs;
  if (text == "292277025-08-18T07:12:54.999999999Z") return kMaxTimeMs;
  return cannot_parse_time(text);
}

Expected<int64_t> parse_time_param(const Form& form, std::string_view name, int64_t default_ms) {
  std::string_view v = form.get(name);
  if (v.empty()) return default_ms;
  auto t = parse_time_ms(v);
  if (!t) return t.status().with_context("Invalid time value for '" + std::string(name) + "'");
  return t;
}

Expected<int64_t> parse_duration_ns(std::string_view text) {
  if (auto f = parse_finite_float(text)) {
    double ns = *f * 1e9;
    if (ns >= 9.223372036854775807e18 || ns < -9.223372036854775808e18)
      return Status::error("cannot parse " + go::quote(text) + " to a valid duration. It overflows int64");
    return static_cast<int64_t>(ns);
  }
  if (auto ms = promql::parse_duration_ms(text)) return *ms * 1'000'000;
  return Status::error("cannot parse " + go::quote(text) + " to a valid duration");
}

std::optional<int64_t> go_atoi(std::string_view text) {
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    if (v > (static_cast<uint64_t>(INT64_MAX) + 1) / 10) return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > static_cast<uint64_t>(INT64_MAX) + (neg ? 1 : 0)) return std::nullopt;
  return neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

Expected<int64_t> parse_limit(std::string_view text) {
  if (text.empty()) return int64_t{0};
  auto n = go_atoi(text);
  if (!n) {
    // Go tells a syntax error from an out-of-range number.
    std::string_view digits = text.substr(text[0] == '+' || text[0] == '-' ? 1 : 0);
    bool syntax_ok = !digits.empty();
    for (char c : digits) syntax_ok = syntax_ok && is_digit(c);
    return Status::error("strconv.Atoi: parsing " + go::quote(text) + ": " +
                         (syntax_ok ? "value out of range" : "invalid syntax"));
  }
  if (*n < 0) return Status::error("limit must be non-negative");
  return *n;
}

Expected<std::string> parse_label_name_segment(std::string_view segment) {
  // url.PathUnescape: like the query's, but '+' stays a '+'.
  std::string name;
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != '%') {
      name += segment[i];
      continue;
    }
    if (i + 2 >= segment.size() || hex_digit(segment[i + 1]) < 0 || hex_digit(segment[i + 2]) < 0)
      return Status::error("invalid URL escape " + go::quote(segment.substr(i, 3)));
    name += static_cast<char>(hex_digit(segment[i + 1]) * 16 + hex_digit(segment[i + 2]));
    i += 2;
  }
  auto invalid = [&] { return Status::error("invalid label name: " + go::quote(name)); };
  bool escaped = name.size() > 3 && name.compare(0, 3, "U__") == 0;
  if (escaped) {
    // model.UnescapeName (ValueEncodingEscaping): "__" is '_', "_<hex>_" a code point.
    std::string out;
    std::string_view s = std::string_view(name).substr(3);
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '_') {
        out += s[i];
        continue;
      }
      if (i + 1 < s.size() && s[i + 1] == '_') {
        out += '_';
        ++i;
        continue;
      }
      size_t end = s.find('_', i + 1);
      if (end == std::string_view::npos || end == i + 1) return invalid();
      uint32_t cp = 0;
      for (size_t k = i + 1; k < end; ++k) {
        int h = hex_digit(s[k]);
        if (h < 0 || cp > 0x10FFFF) return invalid();
        cp = cp * 16 + static_cast<uint32_t>(h);
      }
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return invalid();
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
      i = end;
    }
    if (out.empty() || !base::is_valid_utf8(out)) return invalid();
    return out;
  }
  bool ok = !name.empty();
  for (size_t i = 0; ok && i < name.size(); ++i) {
    char c = name[i];
    ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && is_digit(c));
  }
  if (!ok) return invalid();
  return name;
}

}  // namespace llmon::api
