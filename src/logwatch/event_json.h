// Event <-> JSON, for the event journal (one object per line) and the
// /api/v1/events answer. Times are Unix milliseconds ("time_ms",
// "first_ms"); with_rfc3339 adds "time" and "first" as RFC 3339 (UTC, ms)
// for people. JSON holds text: a run of bytes that is not UTF-8 (binary
// garbage in a log) is written as one U+FFFD, so such lines do not
// round-trip byte for byte; valid UTF-8 does.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "logwatch/event.h"

namespace llmon::logwatch {

std::string encode_event(const Event& e, bool with_rfc3339 = false);
// An error says which field is missing or of the wrong type.
Expected<Event> decode_event(std::string_view json);

}  // namespace llmon::logwatch
