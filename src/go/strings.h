// The Go library string functions Prometheus's template functions and
// text/template's builtins are made of: strings.Title/ToUpper/ToLower,
// text/template's HTMLEscapeString/JSEscapeString, url.QueryEscape,
// net.SplitHostPort/JoinHostPort/ParseIP, and unicode letter/digit/space
// classes. Unicode case mapping and classes come from the C library's
// C.UTF-8 locale (Unicode tables close to Go 1.19's Unicode 13; only ASCII
// when that locale is missing). Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace llmon::go {

bool is_letter(int32_t r);  // unicode.IsLetter
bool is_digit(int32_t r);   // unicode.IsDigit
bool is_space(int32_t r);   // unicode.IsSpace
int32_t to_upper(int32_t r);
int32_t to_lower(int32_t r);
int32_t to_title(int32_t r);

std::string title(std::string_view s);  // strings.Title
std::string upper(std::string_view s);  // strings.ToUpper
std::string lower(std::string_view s);  // strings.ToLower

std::string html_escape(std::string_view s);   // template.HTMLEscapeString
std::string js_escape(std::string_view s);     // template.JSEscapeString
std::string query_escape(std::string_view s);  // url.QueryEscape

// net.SplitHostPort: (host, port), or nullopt on any error.
std::optional<std::pair<std::string, std::string>> split_host_port(std::string_view hostport);
std::string join_host_port(std::string_view host, std::string_view port);
bool parse_ip(std::string_view s);  // net.ParseIP(s) != nil

}  // namespace llmon::go
