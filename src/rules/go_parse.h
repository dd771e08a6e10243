// The Go strconv parsers text/template and Prometheus's template functions
// are defined by: ParseFloat(s, 64) (decimal and hex floats, underscores,
// inf/nan), ParseInt/ParseUint(s, 0, 64), Unquote and UnquoteChar. Error
// texts are Go's (`strconv.ParseFloat: parsing "x": invalid syntax`).
// Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::rules::go {

// strconv.ParseFloat(s, 64). An out-of-range value is an error
// ("value out of range"), as in Go; underflow gives 0 without error.
Expected<double> parse_float(std::string_view s);
// strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64); nullopt on any error.
std::optional<int64_t> parse_int(std::string_view s);
std::optional<uint64_t> parse_uint(std::string_view s);

// strconv.UnquoteChar(s[i:], quote): appends the decoded character to out
// and advances i; false on a syntax error.
bool unquote_char(std::string_view s, size_t& i, char quote, std::string& out, int32_t* rune = nullptr);
// strconv.Unquote: "..." or `...` (or '.' for one rune); error "invalid syntax".
Expected<std::string> unquote(std::string_view s);

// utf8.DecodeRuneInString(s[i:]): the rune (0xFFFD for an invalid byte) and
// its width (0 at the end).
struct Rune {
  int32_t r = -1;
  int width = 0;
};
Rune decode_rune(std::string_view s, size_t i);
void append_rune(std::string& out, int32_t r);

}  // namespace llmon::rules::go
