// Series notation (series_notation.h). Follows Prometheus's lexer in
// series-description mode (promql/parser/lex.go lexValueSequence, scanNumber)
// and the grammar rules series_item / series_value / label_set: items are
// whitespace-separated, so each one is parsed on its own.
#include "promql/series_notation.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include "base/strings.h"
#include "base/utf8.h"

namespace llmon::promql {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_alpha(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_alnum(char c) {
  return is_alpha(c) || is_digit(c);
}

// `text` quoted for messages, shortened.
std::string quote(std::string_view text) {
  std::string out = "\"";
  size_t n = 0;
  for (char c : text) {
    if (++n > 40) {
      out += "...";
      break;
    }
    out += c;
  }
  return out + "\"";
}

// Positions are byte offsets into the full text given to the public function.
Status error_at(size_t pos, const std::string& message) {
  return Status::error("column " + std::to_string(pos + 1) + ": " + message);
}

// ---- numbers ----

// Scans a number token as Prometheus's scanNumber does in series mode
// (digits [. digits] [e [+-] digits], no hex) starting at s[i]; returns its
// end. The caller checks what follows.
size_t scan_number(std::string_view s, size_t i) {
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  return i;
}

// Go's parser.number(): strconv.ParseInt(tok, 0, 64) (so a leading 0 means
// octal), else strconv.ParseFloat. `tok` holds only what scan_number accepts.
bool number_value(std::string_view tok, double& out) {
  bool all_digits = !tok.empty();
  for (char c : tok) all_digits = all_digits && is_digit(c);
  if (all_digits) {
    bool octal = tok.size() > 1 && tok[0] == '0';
    int base = octal ? 8 : 10;
    std::string_view digits = octal ? tok.substr(1) : tok;
    uint64_t v = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (r.ec == std::errc() && r.ptr == digits.data() + digits.size() && v <= uint64_t{INT64_MAX}) {
      out = static_cast<double>(static_cast<int64_t>(v));
      return true;
    }
    // Not valid octal ("089") or too big for int64: ParseFloat decides.
  }
  double v = 0;
  auto r = std::from_chars(tok.data(), tok.data() + tok.size(), v, std::chars_format::general);
  if (r.ptr != tok.data() + tok.size()) return false;
  if (r.ec == std::errc::result_out_of_range) {
    // Go's ParseFloat rounds underflow to 0 and refuses overflow.
    size_t e = tok.find_first_of("eE");
    if (e != std::string_view::npos && e + 1 < tok.size() && tok[e + 1] == '-') {
      out = 0;
      return true;
    }
    return false;
  }
  if (r.ec != std::errc()) return false;
  out = v;
  return true;
}

// A word of letters/digits/_/: starting at s[i] (lexKeywordOrIdentifier).
size_t scan_word(std::string_view s, size_t i) {
  while (i < s.size() && (is_alnum(s[i]) || s[i] == ':')) ++i;
  return i;
}

// number | inf | nan, unsigned, at s[i]. Sets `end`. `what` names the role
// for messages.
Status parse_unsigned(std::string_view s, size_t i, size_t& end, double& out) {
  if (i >= s.size()) return error_at(i, "unexpected end of item, expected a number");
  char c = s[i];
  if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
    end = scan_number(s, i);
    // Prometheus: the next character must not be alphanumeric, except the
    // `x` of a repetition.
    if (end < s.size() && s[end] != 'x' && (is_alnum(s[end]) || s[end] == ':'))
      return error_at(i, "bad number syntax: " + quote(s.substr(i, scan_word(s, end) - i)));
    if (!number_value(s.substr(i, end - i), out))
      return error_at(i, "bad number: " + quote(s.substr(i, end - i)) + " (not a finite float64)");
    return Status::ok();
  }
  if (is_alpha(c)) {
    end = scan_word(s, i);
    std::string_view w = s.substr(i, end - i);
    if (base::iequals(w, "inf")) {
      out = HUGE_VAL;
      return Status::ok();
    }
    if (base::iequals(w, "nan")) {
      out = std::nan("");
      return Status::ok();
    }
    return error_at(i, "unexpected " + quote(w) + ", expected a number");
  }
  return error_at(i, std::string("unexpected character ") + quote(s.substr(i, 1)) + ", expected a number");
}

// Repetition count after `x` at s[i]: decimal digits to the end of the item.
Status parse_count(std::string_view s, size_t i, size_t item_end, uint64_t& n) {
  std::string_view digits = s.substr(i, item_end - i);
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n, 10);
  if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size())
    return error_at(i, "invalid repetition in series values: " + quote(digits) + " (expected a count)");
  return Status::ok();
}

// One whitespace-free item s[begin, end).
Status parse_item(std::string_view s, size_t begin, size_t end, std::vector<SequenceValue>& out) {
  std::string_view item = s.substr(0, end);  // bounds scans to the item
  auto room = [&](uint64_t n) -> Status {
    if (n > kMaxSeriesValues || out.size() + n > kMaxSeriesValues)
      return error_at(begin, "series expands to more than " + std::to_string(kMaxSeriesValues) + " values");
    return Status::ok();
  };
  size_t i = begin;
  if (item[i] == '_') {
    ++i;
    if (i == end) {
      out.push_back({true, 0});
      return Status::ok();
    }
    if (item[i] != 'x')
      return error_at(i, "unexpected " + quote(item.substr(i)) + " after \"_\", expected \"x<count>\"");
    uint64_t n = 0;
    if (Status st = parse_count(item, i + 1, end, n); !st) return st;
    if (Status st = room(n); !st) return st;
    out.insert(out.end(), n, SequenceValue{true, 0});
    return Status::ok();
  }

  // series_value: [+-] number | stale
  double start = 0;
  size_t vend = i;
  if (is_alpha(item[i]) && base::iequals(item.substr(i, scan_word(item, i) - i), "stale")) {
    vend = scan_word(item, i);
    start = model::stale_nan();
  } else if (item[i] == '+' || item[i] == '-') {
    if (Status st = parse_unsigned(item, i + 1, vend, start); !st) return st;
    if (item[i] == '-') start = -start;
  } else {
    if (Status st = parse_unsigned(item, i, vend, start); !st) return st;
  }
  i = vend;
  if (i == end) {
    out.push_back({false, start});
    return Status::ok();
  }
  double step = 0;
  if (item[i] == '+' || item[i] == '-') {
    size_t send = i;
    if (Status st = parse_unsigned(item, i + 1, send, step); !st) return st;
    if (item[i] == '-') step = -step;
    i = send;
    if (i == end) return error_at(begin, "missing \"x<count>\" after " + quote(item.substr(begin, end - begin)));
  }
  if (item[i] != 'x')
    return error_at(
        i, "unexpected " + quote(item.substr(i)) + " in series values, expected \"x<count>\", \"+\", \"-\" or a space");
  uint64_t n = 0;
  if (Status st = parse_count(item, i + 1, end, n); !st) return st;
  if (Status st = room(n + 1); !st) return st;
  // N+1 points, accumulated like Prometheus's `$1 += $2`.
  double v = start;
  for (uint64_t k = 0; k <= n; ++k) {
    out.push_back({false, v});
    v += step;
  }
  return Status::ok();
}

// Values in s[from, end of s).
Status parse_values_from(std::string_view s, size_t from, std::vector<SequenceValue>& out) {
  size_t i = from;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i == s.size()) break;
    size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (Status st = parse_item(s, i, j, out); !st) return st;
    i = j;
  }
  return Status::ok();
}

// ---- labels ----

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t r) {
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

// A Go string literal at s[i] ("...", '...' or `...`), unescaped into `out`;
// `i` ends past the closing quote. Escapes as Go's (and PromQL's) lexer.
Status parse_string(std::string_view s, size_t& i, std::string& out) {
  const size_t open = i;
  const char q = s[i++];
  out.clear();
  if (q == '`') {
    size_t close = s.find('`', i);
    if (close == std::string_view::npos) return error_at(open, "unterminated raw string");
    out.assign(s.substr(i, close - i));
    i = close + 1;
  } else {
    for (;;) {
      if (i >= s.size() || s[i] == '\n') return error_at(open, "unterminated quoted string");
      char c = s[i];
      if (c == q) {
        ++i;
        break;
      }
      if (c != '\\') {
        out += c;
        ++i;
        continue;
      }
      const size_t esc = i++;
      if (i >= s.size()) return error_at(esc, "escape sequence not terminated");
      char e = s[i++];
      switch (e) {
        case 'a':
          out += '\a';
          continue;
        case 'b':
          out += '\b';
          continue;
        case 'f':
          out += '\f';
          continue;
        case 'n':
          out += '\n';
          continue;
        case 'r':
          out += '\r';
          continue;
        case 't':
          out += '\t';
          continue;
        case 'v':
          out += '\v';
          continue;
        case '\\':
          out += '\\';
          continue;
        default:
          break;
      }
      if (e == q) {
        out += q;
        continue;
      }
      int ndigits = 0, base = 0;
      uint32_t max = 0;
      if (e >= '0' && e <= '7') {
        ndigits = 3, base = 8, max = 255;
        --i;  // the first digit is part of the value
      } else if (e == 'x') {
        ndigits = 2, base = 16, max = 255;
      } else if (e == 'u') {
        ndigits = 4, base = 16, max = 0x10FFFF;
      } else if (e == 'U') {
        ndigits = 8, base = 16, max = 0x10FFFF;
      } else {
        return error_at(esc, "unknown escape sequence " + quote(s.substr(esc, 2)));
      }
      uint32_t x = 0;
      for (int k = 0; k < ndigits; ++k, ++i) {
        int d = i < s.size() ? hex_digit(s[i]) : -1;
        if (d < 0 || d >= base) {
          if (i >= s.size()) return error_at(esc, "escape sequence not terminated");
          return error_at(i, "illegal character " + quote(s.substr(i, 1)) + " in escape sequence");
        }
        x = x * static_cast<uint32_t>(base) + static_cast<uint32_t>(d);
      }
      if (x > max || (x >= 0xD800 && x < 0xE000 && base == 16 && ndigits >= 4))
        return error_at(esc, "escape sequence is an invalid Unicode code point");
      if (ndigits >= 4) {
        append_utf8(out, x);
      } else {
        out += static_cast<char>(x);  // \x and octal are bytes, as in Go
      }
    }
  }
  if (!base::is_valid_utf8(out)) return error_at(open, "string is not valid UTF-8");
  return Status::ok();
}

void skip_spaces(std::string_view s, size_t& i) {
  while (i < s.size() && is_space(s[i])) ++i;
}

// Descriptor at s[i]; `i` ends right after it.
Status parse_descriptor(std::string_view s, size_t& i, model::Labels& labels) {
  std::vector<model::Label> pairs;
  const size_t begin = i;
  std::string name;
  if (i < s.size() && (is_alpha(s[i]) || s[i] == ':')) {
    size_t end = scan_word(s, i);
    name.assign(s.substr(i, end - i));
    if (base::iequals(name, "inf") || base::iequals(name, "nan"))
      return error_at(i, "unexpected number " + quote(name) + ", expected a metric name");
    i = end;
  }
  size_t brace = i;
  if (i < s.size() && s[i] == '{') {
    ++i;
    for (;;) {
      skip_spaces(s, i);
      if (i >= s.size()) return error_at(brace, "unexpected end of input inside braces");
      if (s[i] == '}') {
        ++i;
        break;
      }
      const size_t item = i;
      std::string lname, lvalue;
      bool quoted_name = false;
      if (s[i] == '"' || s[i] == '\'' || s[i] == '`') {
        if (Status st = parse_string(s, i, lname); !st) return st;
        quoted_name = true;
      } else if (is_alpha(s[i])) {
        size_t end = i;
        while (end < s.size() && is_alnum(s[end])) ++end;
        lname.assign(s.substr(i, end - i));
        i = end;
      } else {
        return error_at(i, "unexpected " + quote(s.substr(i, 1)) + " in label set, expected a label name or \"}\"");
      }
      skip_spaces(s, i);
      if (quoted_name && i < s.size() && (s[i] == ',' || s[i] == '}')) {
        // {"metric.name", ...}: a quoted metric name (Prometheus 3).
        if (!name.empty()) return error_at(item, "metric name given twice");
        name = lname;
        if (name.empty()) return error_at(item, "empty metric name");
      } else {
        if (i >= s.size() || s[i] != '=' || (i + 1 < s.size() && s[i + 1] == '~'))
          return error_at(i, "unexpected " + quote(s.substr(i, 2)) + " in label set, expected \"=\"");
        ++i;
        skip_spaces(s, i);
        if (i >= s.size() || (s[i] != '"' && s[i] != '\'' && s[i] != '`'))
          return error_at(i, "expected a quoted label value after " + quote(lname + "="));
        if (Status st = parse_string(s, i, lvalue); !st) return st;
        if (lname.empty()) return error_at(item, "empty label name");
        pairs.push_back({std::move(lname), std::move(lvalue)});
      }
      skip_spaces(s, i);
      if (i < s.size() && s[i] == ',') {
        ++i;
      } else if (i < s.size() && s[i] == '}') {
        ++i;
        break;
      } else {
        return error_at(i, i < s.size()
                               ? "unexpected " + quote(s.substr(i, 1)) + " in label set, expected \",\" or \"}\""
                               : "unexpected end of input inside braces");
      }
    }
  }
  if (i == begin) return error_at(i, "expected a metric name or \"{\"");
  if (!name.empty()) pairs.insert(pairs.begin(), {"__name__", name});
  auto made = model::Labels::make(std::move(pairs));
  if (!made) return error_at(begin, made.error());
  labels = std::move(*made);
  return Status::ok();
}

}  // namespace

Expected<std::vector<SequenceValue>> parse_series_values(std::string_view text) {
  std::vector<SequenceValue> out;
  if (Status st = parse_values_from(text, 0, out); !st) return st;
  return out;
}

Expected<model::Labels> parse_series_labels(std::string_view text) {
  size_t i = 0;
  skip_spaces(text, i);
  model::Labels labels;
  if (Status st = parse_descriptor(text, i, labels); !st) return st;
  skip_spaces(text, i);
  if (i != text.size()) return error_at(i, "unexpected " + quote(text.substr(i)) + " after the series descriptor");
  return labels;
}

Expected<SeriesDescription> parse_series_description(std::string_view line) {
  size_t i = 0;
  skip_spaces(line, i);
  SeriesDescription d;
  if (Status st = parse_descriptor(line, i, d.labels); !st) return st;
  if (i < line.size() && !is_space(line[i]))
    return error_at(i, "unexpected " + quote(line.substr(i, 1)) + " after the series descriptor, expected a space");
  if (Status st = parse_values_from(line, i, d.values); !st) return st;
  return d;
}

}  // namespace llmon::promql
