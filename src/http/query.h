// URL query strings as Go's net/url reads them (url.QueryUnescape,
// URL.Query()). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmon::http {

// The value of a hex digit (either case), or -1.
int hex_digit(char c);

// url.QueryUnescape: '+' is a space, %XX an escaped byte. On a bad escape
// returns false and sets *bad (when given) to it (at most 3 bytes: "%zz", "%4").
bool query_unescape(std::string_view s, std::string& out, std::string_view* bad = nullptr);

// URL.Query()[key]: every value of `key` in order, with keys and values
// unescaped; pairs that do not parse (a bad escape, a ';') are skipped, as
// URL.Query() drops ParseQuery's error.
std::vector<std::string> query_values(std::string_view query, std::string_view key);

}  // namespace llmon::http
