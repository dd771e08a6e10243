// The Go strconv and fmt behaviours that Prometheus's and Alertmanager's text
// forms are defined by, so that our PromQL parser and printer, alert
// templates and notification payloads produce their exact strings:
//   * quoting: strconv.Quote, fmt's %.Nq, %q of a rune, %#U, unicode.IsPrint;
//   * unquoting: strconv.UnquoteChar and Unquote (text/template), and
//     Prometheus's util/strutil.Unquote (PromQL string literals);
//   * parsing: strconv.ParseFloat (decimal and hex floats, underscores,
//     inf/nan), ParseInt/ParseUint(s, 0, 64), and Prometheus's
//     parser.number() (ParseInt, then ParseFloat);
//   * printing: strconv.FormatFloat in every format fmt uses, fmt.Sprint of
//     a float64, %.<prec>f.
// Error texts are Go's (`strconv.ParseFloat: parsing "x": invalid syntax`).
// Follows strconv/atof.go, atoi.go, quote.go and ftoa.go of Go 1.19, the
// version Prometheus 2.42 and Alertmanager 0.25 are built with.
// Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "go/utf8.h"

namespace llmon::go {

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

// What unquote_char does with a byte that does not start a valid UTF-8
// sequence: strconv.UnquoteChar reads it as U+FFFD; Prometheus's
// strutil.Unquote keeps the byte as it is.
enum class InvalidUtf8 { kReplace, kKeep };
// strconv.UnquoteChar(s[i:], quote): appends the decoded character to out,
// advances i and sets *rune; false on a syntax error.
bool unquote_char(std::string_view s, size_t& i, char quote, std::string& out, int32_t* rune = nullptr,
                  InvalidUtf8 invalid = InvalidUtf8::kReplace);
// strconv.Unquote: "..." or `...` (carriage returns dropped) or '.' (one
// rune); error "invalid syntax".
Expected<std::string> unquote(std::string_view s);
// Prometheus's strutil.Unquote of a lexed string token including its quotes:
// "..", '..' (any number of runes) with Go escapes, `..` raw (kept as is).
// Error text "invalid syntax".
Expected<std::string> unquote_prometheus(std::string_view s);

// strconv.ParseFloat(s, 64). An out-of-range value is an error
// ("value out of range"), as in Go; underflow gives 0 without error.
Expected<double> parse_float(std::string_view s);
// strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64); nullopt on any error.
std::optional<int64_t> parse_int(std::string_view s);
std::optional<uint64_t> parse_uint(std::string_view s);
// Prometheus's parser.number(): ParseInt(s, 0, 64), falling back to
// ParseFloat(s, 64). The error is Go's ParseFloat error text, e.g.
// `strconv.ParseFloat: parsing "1e": invalid syntax`.
Expected<double> parse_number(std::string_view s);

// fmt.Sprint(float64) (= strconv.FormatFloat(v, 'g', -1, 64)): "1", "0.5",
// "1e+06", "1.5e-07", "+Inf", "-Inf", "NaN".
std::string format_float(double v);
// fmt's %.<prec>f; infinities as "+Inf"/"-Inf", NaN as "NaN".
std::string format_float_fixed(double v, int prec);
// strconv.FormatFloat(v, fmt, prec, 64) for fmt in "beEfgGxX" ("+Inf",
// "-Inf", "NaN" for the specials; prec -1 is the shortest representation).
std::string format_float(double v, char fmt, int prec);

}  // namespace llmon::go
