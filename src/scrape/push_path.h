// The grouping key of a Pushgateway push URL (Pushgateway 1.5's routes and
// handler/push.go splitLabels): /metrics/job/<job>{/<name>/<value>}, with
// "<name>@base64" (and "job@base64") marking a value written in base64url
// (RFC 4648 URL-safe alphabet, trailing '=' ignored, so "=" alone is the
// empty value). Pure; no I/O. What the routes are and how a push is applied:
// docs/scrape.md "Push store".
// Paths are the raw request path: percent-escapes are undone first, as Go's
// server does before routing (so "%2F" still splits a segment: a '/' inside
// a value must come base64-encoded), and '+' stays a '+' (the query-string
// rule does not apply to paths; prometheus_client's quote_plus relies on
// nothing else).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/labels.h"

namespace llmon::scrape {

// The grouping labels of one group, job included, sorted by name, names
// unique; a value may be "" (an empty value given explicitly is a different
// group from an absent label, as in Pushgateway).
struct GroupingKey {
  std::vector<model::Label> labels;
  std::string_view job() const;
  bool operator==(const GroupingKey&) const = default;
};

// Go's url.PathUnescape: %XX decoded, anything else kept. Error, as Go's
// server refuses such a request line (400): `invalid URL escape "%zz"`.
Expected<std::string> unescape_path(std::string_view raw);

// Whether Pushgateway routes `path` to its push handlers: "/metrics/job/J"
// or "/metrics/job@base64/J", J a non-empty segment, optionally followed by
// "/..." (the labels). Anything else is its "404 page not found".
bool is_push_path(std::string_view path);

// The grouping key of a path is_push_path() accepts. Errors are Pushgateway's
// 400 texts (or unescape_path's): `odd number of components in label string "/a/b/c"`,
// `improper label name "__x"` (not a label name, or starting with "__"),
// `invalid base64 encoding for label x="!!": illegal base64 data at input
// byte 0`, `invalid base64 encoding in job name "": ...`, `job name is
// required`. A "job" pair among the labels is overridden by the job segment.
Expected<GroupingKey> parse_push_path(std::string_view path);

// The path for a key (labels other than job in name order), base64-encoding
// the values that need it (empty, or holding '/') and percent-encoding bytes
// outside [A-Za-z0-9-._~]: for clients and tests.
std::string push_path(const GroupingKey& key);

// Go's base64.RawURLEncoding.DecodeString after trimming trailing '='
// (newlines are skipped, as Go does). Error: "illegal base64 data at input
// byte N".
Expected<std::string> decode_base64url(std::string_view s);
std::string encode_base64url(std::string_view s);  // unpadded

}  // namespace llmon::scrape
