#include "exposition/text_parser.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "base/strings.h"
#include "base/utf8.h"

namespace llmon::exposition {
namespace {

bool is_ws(char c) {
  return c == ' ' || c == '\t';
}

bool is_alpha_(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_metric_start(char c) {
  return is_alpha_(c) || c == ':';
}

bool is_metric_char(char c) {
  return is_alpha_(c) || is_digit(c) || c == ':';
}

bool is_label_char(char c) {
  return is_alpha_(c) || is_digit(c);
}

size_t skip_ws(std::string_view s, size_t i) {
  while (i < s.size() && is_ws(s[i])) ++i;
  return i;
}

void append_byte(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (c >= 0x20 && c < 0x7f) {
    out += static_cast<char>(c);
  } else {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
}

// What sits at s[i], for "found ..." in messages.
std::string found_at(std::string_view s, size_t i) {
  if (i >= s.size()) return "end of line";
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  std::string out = "byte 0x";
  static constexpr char kHex[] = "0123456789abcdef";
  out += kHex[c >> 4];
  out += kHex[c & 15];
  return out;
}

// A token quoted for messages: '"' and '\' escaped, other non-printable bytes
// as \xNN, at most 40 bytes.
std::string quoted(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < kMax; ++i) {
    if (s[i] == '"' || s[i] == '\\') out += '\\';
    append_byte(out, static_cast<unsigned char>(s[i]));
  }
  if (s.size() > kMax) out += "...";
  out += '"';
  return out;
}

std::optional<int64_t> parse_timestamp(std::string_view s) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return std::nullopt;
  }
  return base::parse_i64(s);
}

class LineParser {
 public:
  LineParser(std::string_view line, int line_no, TextSample& out, std::string& scratch, TextParseError& err)
      : s_(line), line_no_(line_no), out_(out), scratch_(scratch), err_(err) {}

  LineKind run() {
    if (!s_.empty() && s_.back() == '\r') s_.remove_suffix(1);
    size_t i = skip_ws(s_, 0);
    if (i == s_.size() || s_[i] == '#') return LineKind::kSkipped;
    out_.labels.clear();
    out_.timestamp_ms.reset();
    scratch_.clear();

    if (!is_metric_start(s_[i]))
      return fail(i, "expected a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), found " + found_at(s_, i));
    size_t name_start = i;
    while (i < s_.size() && is_metric_char(s_[i])) ++i;
    out_.name = s_.substr(name_start, i - name_start);
    size_t series_end = i;
    size_t after_name = i;
    i = skip_ws(s_, i);
    bool braces = i < s_.size() && s_[i] == '{';
    if (braces) {
      if (!parse_labels(i)) return LineKind::kError;
      // Unescaped values were appended to scratch_, which may have moved since:
      // point the views at their final place now.
      for (const Fixup& f : fixups_) out_.labels[f.label].value = std::string_view(scratch_).substr(f.start, f.size);
      series_end = i;
    } else if (i == after_name && i < s_.size()) {
      return fail(i,
                  "expected whitespace or '{' after metric name " + quoted(out_.name) + ", found " + found_at(s_, i));
    }
    out_.series_text = s_.substr(name_start, series_end - name_start);

    size_t vstart = skip_ws(s_, i);
    if (vstart == s_.size())
      return fail(vstart, "expected a sample value after " + quoted(out_.series_text) + ", found end of line");
    size_t vend = vstart;
    while (vend < s_.size() && !is_ws(s_[vend])) ++vend;
    std::string_view vtok = s_.substr(vstart, vend - vstart);
    auto v = parse_sample_value(vtok);
    if (!v) return fail(vstart, "expected a float value (1, -2.5e3, NaN, +Inf), found " + quoted(vtok));
    out_.value = *v;

    size_t tstart = skip_ws(s_, vend);
    if (tstart == s_.size()) return LineKind::kSample;
    size_t tend = tstart;
    while (tend < s_.size() && !is_ws(s_[tend])) ++tend;
    std::string_view ttok = s_.substr(tstart, tend - tstart);
    auto t = parse_timestamp(ttok);
    if (!t) return fail(tstart, "expected a timestamp in integer milliseconds, found " + quoted(ttok));
    out_.timestamp_ms = *t;
    size_t rest = skip_ws(s_, tend);
    if (rest != s_.size()) return fail(rest, "expected end of line after the timestamp, found " + found_at(s_, rest));
    return LineKind::kSample;
  }

 private:
  LineKind fail(size_t col0, std::string msg) {
    err_.line = line_no_;
    err_.column = static_cast<int>(col0) + 1;
    err_.message = std::move(msg);
    return LineKind::kError;
  }

  // s_[i] == '{'. On success i is just past the closing '}'.
  bool parse_labels(size_t& i) {
    ++i;
    for (;;) {
      i = skip_ws(s_, i);
      if (i < s_.size() && s_[i] == '}') {
        ++i;
        return true;
      }
      if (i >= s_.size() || !is_alpha_(s_[i])) {
        fail(i, "expected a label name ([a-zA-Z_][a-zA-Z0-9_]*) or '}', found " + found_at(s_, i));
        return false;
      }
      size_t nstart = i;
      while (i < s_.size() && is_label_char(s_[i])) ++i;
      std::string_view lname = s_.substr(nstart, i - nstart);
      for (const TextLabel& l : out_.labels) {
        if (l.name == lname) {
          fail(nstart, "label name " + quoted(lname) + " appears twice");
          return false;
        }
      }
      i = skip_ws(s_, i);
      if (i >= s_.size() || s_[i] != '=') {
        fail(i, "expected '=' after label name " + quoted(lname) + ", found " + found_at(s_, i));
        return false;
      }
      i = skip_ws(s_, i + 1);
      if (i >= s_.size() || s_[i] != '"') {
        fail(i, "expected '\"' to open the value of label " + quoted(lname) + ", found " + found_at(s_, i));
        return false;
      }
      std::string_view value;
      if (!parse_quoted(i, lname, value)) return false;
      out_.labels.push_back({lname, value});
      i = skip_ws(s_, i);
      if (i < s_.size() && s_[i] == ',') {
        ++i;
        continue;
      }
      if (i < s_.size() && s_[i] == '}') {
        ++i;
        return true;
      }
      fail(i, "expected ',' or '}' after the value of label " + quoted(lname) + ", found " + found_at(s_, i));
      return false;
    }
  }

  // s_[i] == '"'. On success i is just past the closing quote and value views
  // the line (no escapes) or scratch_ (escapes decoded).
  bool parse_quoted(size_t& i, std::string_view lname, std::string_view& value) {
    size_t open = i;
    size_t j = i + 1;
    bool escaped = false;
    while (j < s_.size() && s_[j] != '"') {
      if (s_[j] == '\\') {
        if (j + 1 >= s_.size()) break;
        escaped = true;
        j += 2;
      } else {
        ++j;
      }
    }
    if (j >= s_.size()) {
      fail(open, "value of label " + quoted(lname) + " is not terminated: expected '\"' before end of line");
      return false;
    }
    std::string_view raw = s_.substr(open + 1, j - open - 1);
    // Escapes are ASCII, so validating the raw bytes validates the value.
    for (size_t k = 0; k < raw.size();) {
      size_t n = base::utf8_sequence_length(raw, k);
      if (n == 0) {
        fail(open + 1 + k, "invalid UTF-8 in the value of label " + quoted(lname) + " at " + found_at(raw, k));
        return false;
      }
      k += n;
    }
    if (!escaped) {
      value = raw;
    } else {
      const size_t start = scratch_.size();
      for (size_t k = 0; k < raw.size(); ++k) {
        char c = raw[k];
        if (c == '\\' && k + 1 < raw.size()) {
          char e = raw[k + 1];
          if (e == '\\' || e == '"') {
            scratch_ += e;
            ++k;
            continue;
          }
          if (e == 'n') {
            scratch_ += '\n';
            ++k;
            continue;
          }
        }
        scratch_ += c;  // other escapes stay as written, like Prometheus
      }
      fixups_.push_back({out_.labels.size(), start, scratch_.size() - start});
      value = {};  // set by run() once every value is in scratch_
    }
    i = j + 1;
    return true;
  }

  struct Fixup {
    size_t label, start, size;  // out_.labels[label].value = scratch_[start, start + size)
  };
  std::string_view s_;
  int line_no_;
  std::vector<Fixup> fixups_;
  TextSample& out_;
  std::string& scratch_;
  TextParseError& err_;
};

}  // namespace

std::string TextParseError::to_string() const {
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message;
}

std::optional<double> parse_sample_value(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = false;
  std::string_view body = s;
  if (body[0] == '+' || body[0] == '-') {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  // Go's ParseFloat: a sign only before Inf, never before NaN.
  if (base::iequals(body, "inf") || base::iequals(body, "infinity")) {
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (body.size() == s.size() && base::iequals(body, "nan")) return std::numeric_limits<double>::quiet_NaN();
  // Decimal only: digits, one '.', an exponent. Prometheus refuses hex floats
  // and '_' separators; from_chars would also take "inf"/"nan(...)" forms.
  bool digit = false;
  for (size_t k = 0; k < body.size(); ++k) {
    char c = body[k];
    if (is_digit(c)) {
      digit = true;
    } else if (c == '.' || c == 'e' || c == 'E') {
    } else if ((c == '+' || c == '-') && k > 0 && (body[k - 1] == 'e' || body[k - 1] == 'E')) {
    } else {
      return std::nullopt;
    }
  }
  if (!digit) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
  if (p != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Go reports overflow (to +-Inf) as an error but returns underflow as 0 or
    // a subnormal; from_chars reports both. strtod tells them apart (the token
    // is a plain decimal, so the locale's decimal point does not matter for
    // llmon, which never calls setlocale).
    std::string tmp(body);
    v = std::strtod(tmp.c_str(), nullptr);
    if (std::isinf(v)) return std::nullopt;
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  return neg ? -v : v;
}

LineKind parse_text_line(std::string_view line, int line_no, TextSample& out, std::string& scratch,
                         TextParseError& err) {
  return LineParser(line, line_no, out, scratch, err).run();
}

TextParser::Next TextParser::next() {
  while (!rest_.empty()) {
    size_t nl = rest_.find('\n');
    std::string_view line = nl == std::string_view::npos ? rest_ : rest_.substr(0, nl);
    size_t used = nl == std::string_view::npos ? rest_.size() : nl + 1;
    rest_.remove_prefix(used);
    consumed_ += used;
    ++line_no_;
    switch (parse_text_line(line, line_no_, sample_, scratch_, error_)) {
      case LineKind::kSample:
        return Next::kSample;
      case LineKind::kError:
        return Next::kError;
      case LineKind::kSkipped:
        break;
    }
  }
  return Next::kEnd;
}

std::optional<int64_t> parse_timestamp_ms(std::string_view s) {
  return parse_timestamp(s);
}

}  // namespace llmon::exposition
