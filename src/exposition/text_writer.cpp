#include "exposition/text_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace llmon::exposition {

void append_value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  if (v == 0) {
    out += std::signbit(v) ? "-0" : "0";
    return;
  }
  // Shortest round-trip digits in scientific form: "-d.ddde[+-]x".
  char sci[32];
  auto r = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  std::string_view s(sci, static_cast<size_t>(r.ptr - sci));
  bool neg = s[0] == '-';
  if (neg) s.remove_prefix(1);
  size_t e = s.find('e');
  std::string_view mant = s.substr(0, e);
  int exp = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), exp);
  char digits[24];
  size_t nd = 0;
  for (char c : mant)
    if (c != '.') digits[nd++] = c;
  if (neg) out += '-';
  // strconv.FormatFloat(v, 'g', -1, 64): %e when exp < -4 || exp >= 6
  // (shortest precision fixes eprec at 6), exponent with at least two digits.
  const int eprec = 6;
  if (exp < -4 || exp >= eprec) {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out.append(digits + 1, nd - 1);
    }
    out += 'e';
    out += exp < 0 ? '-' : '+';
    int ax = exp < 0 ? -exp : exp;
    if (ax < 10) out += '0';
    out += std::to_string(ax);
    return;
  }
  if (exp < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exp - 1), '0');
    out.append(digits, nd);
    return;
  }
  size_t int_digits = static_cast<size_t>(exp) + 1;
  if (nd <= int_digits) {
    out.append(digits, nd);
    out.append(int_digits - nd, '0');
  } else {
    out.append(digits, int_digits);
    out += '.';
    out.append(digits + int_digits, nd - int_digits);
  }
}

void append_escaped_label_value(std::string& out, std::string_view v) {
  for (char c : v) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

void append_escaped_help(std::string& out, std::string_view v) {
  for (char c : v) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

namespace {

std::string_view om_family_name(const model::Family& f) {
  std::string_view n(f.name);
  if (f.type == model::MetricType::kCounter && n.size() > 6 && n.substr(n.size() - 6) == "_total")
    n.remove_suffix(6);
  return n;
}

std::string_view om_type(model::MetricType t) {
  switch (t) {
    case model::MetricType::kCounter: return "counter";
    case model::MetricType::kGauge: return "gauge";
    case model::MetricType::kUntyped: return "unknown";
  }
  return "unknown";
}

void write_series(std::string& out, const model::Family& f, const model::Series& s, std::string_view name) {
  out += name;
  if (!f.label_names.empty()) {
    out += '{';
    for (size_t i = 0; i < f.label_names.size(); ++i) {
      if (i) out += ',';
      out += f.label_names[i];
      out += "=\"";
      append_escaped_label_value(out, s.label_values[i]);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  append_value(out, s.value);
  out += '\n';
}

}  // namespace

void write_page(const model::Snapshot& snap, Format format, std::string& out) {
  out.clear();
  const bool om = format == Format::kOpenMetrics100;
  std::string_view prev_name;
  for (uint32_t idx : snap.order) {
    const model::Family& f = snap.families[idx];
    if (f.series.empty()) continue;
    if (f.name != prev_name) {
      std::string_view fam_name = om ? om_family_name(f) : std::string_view(f.name);
      out += "# HELP ";
      out += fam_name;
      out += ' ';
      append_escaped_help(out, f.help);
      out += "\n# TYPE ";
      out += fam_name;
      out += ' ';
      out += om ? om_type(f.type) : model::type_name(f.type);
      out += '\n';
      prev_name = f.name;
    }
    std::string om_name;
    std::string_view sample_name = f.name;
    if (om && f.type == model::MetricType::kCounter && om_family_name(f).size() == f.name.size()) {
      // An OpenMetrics counter sample must end in _total.
      om_name = f.name + "_total";
      sample_name = om_name;
    }
    for (const auto& s : f.series) write_series(out, f, s, sample_name);
  }
  if (om) out += "# EOF\n";
}

}  // namespace llmon::exposition
