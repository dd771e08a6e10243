// The few Go strconv/fmt behaviours PromQL's text forms are defined by, so
// our parser and printer produce Prometheus's exact strings: number literal
// parsing (strconv.ParseInt(s, 0, 64) then ParseFloat), float printing (%v,
// %f), string quoting (strconv.Quote, %q of a rune, %#U) and unquoting
// (Prometheus's strutil.Unquote), and UTF-8 decoding as utf8.DecodeRune.
// Not a general Go emulation: only what the PromQL front end needs.
// Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::promql::go {

constexpr int32_t kRuneError = 0xFFFD;
constexpr int32_t kEof = -1;

struct Rune {
  int32_t r = kEof;  // kEof at the end; kRuneError (width 1) for an invalid byte
  int width = 0;
};
// utf8.DecodeRuneInString(s[i:]).
Rune decode_rune(std::string_view s, size_t i);
void append_utf8(std::string& out, int32_t r);
// unicode.IsPrint, approximated: control, format, separator (other than
// ' '), private-use, surrogate and noncharacter code points and the
// unassigned planes 4-13 are not printable; every other rune is.
bool is_print(int32_t r);

// strconv.Quote(s): "..." with Go escapes; invalid bytes as \xNN.
std::string quote(std::string_view s);
void append_quoted(std::string& out, std::string_view s);
// fmt's %.Nq: the first `runes` runes of s, quoted.
std::string quote_truncated(std::string_view s, size_t runes);
// fmt's %q of a rune: 'a', '\n', '\x00', '\u200b'; invalid runes as U+FFFD.
std::string quote_rune(int32_t r);
// fmt's %#U: "U+0071 'q'" ("U+0001" for a non-printable rune).
std::string format_rune_u(int32_t r);

// fmt.Sprint(float64) (= strconv.FormatFloat(v, 'g', -1, 64)): "1", "0.5",
// "1e+06", "1.5e-07", "+Inf", "-Inf", "NaN".
std::string format_float(double v);
// fmt's %.<prec>f; infinities as "+Inf"/"-Inf", NaN as "NaN".
std::string format_float_fixed(double v, int prec);

// Prometheus's parser.number(): ParseInt(s, 0, 64), falling back to
// ParseFloat(s, 64). The error is Go's ParseFloat error text, e.g.
// `strconv.ParseFloat: parsing "1e": invalid syntax`.
Expected<double> parse_number(std::string_view s);

// Prometheus's strutil.Unquote of a lexed string token including its quotes
// ("..", '..' with Go escapes; `..` raw). Error text "invalid syntax".
Expected<std::string> unquote(std::string_view s);

}  // namespace llmon::promql::go
