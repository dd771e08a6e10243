// JSON text the way Go's encoding/json writes it, for payloads that other
// tools compare byte for byte with what Prometheus and Alertmanager send:
// string escaping (HTML-safe, invalid UTF-8 as \ufffd), maps with sorted keys,
// and the two time formats in play (time.Time's RFC 3339 with trimmed
// nanoseconds, go-openapi strfmt.DateTime's RFC 3339 with milliseconds).
// Pure functions; no state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmon::go::json {

// Appends `s` as a quoted JSON string like Go's json.Marshal (escapeHTML on):
// `"` `\` and \n \r \t as short escapes; other bytes < 0x20, `<` `>` `&`,
// U+2028 and U+2029 as \u00XX / \u2028 (lower-case hex); every byte that does
// not start a valid UTF-8 sequence as \ufffd (one per byte, as Go does).
void append_quoted(std::string& out, std::string_view s);
std::string quoted(std::string_view s);

// Appends a JSON object of string values with keys in byte order (Go
// marshals maps sorted by key). Duplicate names: the last one wins, as it
// would in a Go map built from the pairs. An empty set is `{}`.
void append_string_map(std::string& out, const std::vector<std::pair<std::string, std::string>>& pairs);

// Go's time.Time JSON (RFC 3339 with nanoseconds, trailing zeros trimmed) in
// UTC for a Unix time in ms: "2024-05-01T12:00:00Z", "…:00.5Z", "…:00.123Z".
// ms == 0 is NOT special here.
std::string go_time(int64_t unix_ms);
// Go's zero time.Time as JSON text (without quotes): "0001-01-01T00:00:00Z".
inline constexpr std::string_view kGoZeroTime = "0001-01-01T00:00:00Z";

// go-openapi strfmt.DateTime JSON (RFC3339Millis, UTC): always three
// fraction digits, "2024-05-01T12:00:00.000Z".
std::string strfmt_millis(int64_t unix_ms);
// strfmt.DateTime of Go's zero time, which Prometheus sends for an unset end.
inline constexpr std::string_view kStrfmtZeroTime = "0001-01-01T00:00:00.000Z";

}  // namespace llmon::go::json
