// Parameter parsing of the Prometheus HTTP query API (docs/api.md), with
// Prometheus's rules and error texts (web/api/v1/api.go, Go's net/url and
// strconv): form decoding (URL query plus a form-encoded POST body, body
// values first, as Go's Request.FormValue), times (RFC 3339 or Unix seconds
// with millisecond rounding), durations (float seconds or a Prometheus
// duration such as "1h30m"), and `limit`. Not the handlers (query_api.h) and
// not the JSON encoding (api_json.h). Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace llmon::api {

// Prometheus's default start/end of /series, /labels and /label/../values
// (minTime/maxTime in web/api/v1/api.go), in milliseconds.
inline constexpr int64_t kMinTimeMs = (INT64_MIN / 1000 + 62135596801LL) * 1000;
inline constexpr int64_t kMaxTimeMs = (INT64_MAX / 1000 - 62135596801LL) * 1000 + 999;

using Pairs = std::vector<std::pair<std::string, std::string>>;

// Go's url.ParseQuery: '&'-separated key=value pairs, '+' is a space, %XX
// escapes. Errors like Go's: `invalid URL escape "%zz"`,
// "invalid semicolon separator in query".
Expected<Pairs> parse_url_query(std::string_view query);

// The request's parameters, as Go's Request.Form: the form-encoded body's
// values (POST with Content-Type application/x-www-form-urlencoded) first,
// then the URL query's.
struct Form {
  Pairs values;
  // The first value of `key`, or "" (Request.FormValue).
  std::string_view get(std::string_view key) const;
  bool has(std::string_view key) const;
  // Every value of `key`, in order (Request.Form[key], e.g. match[]).
  std::vector<std::string> all(std::string_view key) const;
};

// Errors as Prometheus: "error parsing form values: invalid URL escape ...".
Expected<Form> parse_form(std::string_view method, std::string_view content_type, std::string_view url_query,
                          std::string_view body);

// Prometheus's parseTime: a decimal float of Unix seconds (rounded to the
// millisecond) or RFC 3339 with optional fractional seconds
// ("2015-07-01T20:10:51.781Z", "...+02:00"), or the two boundary strings
// Prometheus's client library sends. Error: `cannot parse "x" to a valid timestamp`.
Expected<int64_t> parse_time_ms(std::string_view text);
// parseTimeParam: "" -> default_ms; errors wrapped as
// "Invalid time value for 'NAME': cannot parse ...".
Expected<int64_t> parse_time_param(const Form& form, std::string_view name, int64_t default_ms);

// Prometheus's parseDuration, in nanoseconds (Go's time.Duration): float
// seconds (truncated to the nanosecond) or a Prometheus duration. Errors:
// `cannot parse "x" to a valid duration` (". It overflows int64" when too big).
Expected<int64_t> parse_duration_ns(std::string_view text);

// Prometheus 3's parseLimitParam: "" and "0" -> 0 (no limit), a negative
// number -> "limit must be non-negative", not an integer -> Go's
// `strconv.Atoi: parsing "x": invalid syntax`.
Expected<int64_t> parse_limit(std::string_view text);

// Go's strconv.Atoi on a decimal integer (optional sign); nullopt on error.
std::optional<int64_t> go_atoi(std::string_view text);

// The name of /api/v1/label/<name>/values: percent-decoded path segment,
// with Prometheus 3's "U__" escapes (`U__foo_2e_bar` = "foo.bar") undone.
// Valid: a classic label name ([a-zA-Z_][a-zA-Z0-9_]*), or non-empty UTF-8
// when it came escaped. Error: `invalid label name: "1bad"`.
Expected<std::string> parse_label_name_segment(std::string_view segment);

}  // namespace llmon::api
