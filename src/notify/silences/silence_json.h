// Silences in Alertmanager API v2's JSON shapes (api/v2/openapi.yaml):
// gettableSilence {id, status:{state}, updatedAt, comment, createdBy,
// endsAt, matchers:[{name,value,isRegex,isEqual}], startsAt}, postableSilence
// (the same without status/updatedAt; id optional, to update), and the POST
// answer {"silenceID": "..."}. Times are RFC 3339 in UTC with milliseconds
// ("2024-05-01T12:00:00.000Z") as go-openapi's strfmt.DateTime writes them;
// parsing accepts any RFC 3339 time (fraction optional, Z or +hh:mm).
// Pure functions; the lead serves GET/POST/DELETE /api/v2/silences and
// `llmon alerts silence ...` with them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "notify/silences/silences.h"

namespace llmon::notify {

std::string render_gettable_silence(const Silence& s, int64_t now_ms);
std::string render_gettable_silences(const std::vector<Silence>& s, int64_t now_ms);  // JSON array
std::string render_silence_id(std::string_view id);                                   // {"silenceID":"..."}

// Parses a postableSilence; required: matchers (at least one), startsAt,
// endsAt, createdBy, comment (may be empty strings but must be present).
// Errors name the field ("matchers[1].name: ..."). The result is not yet
// validated against the store's rules (Silences::set does that).
Expected<Silence> parse_postable_silence(std::string_view body);

// Parses the gettable shape too (status and updatedAt read when present);
// used for the snapshot file.
Expected<Silence> parse_silence_object_json(std::string_view object_json);

// The API v2 handlers' logic, for the lead's HTTP routes. Status codes and
// messages as Alertmanager 0.25: POST /api/v2/silences answers 200
// {"silenceID":...}; 400 for bad JSON, "Failed to create silence: start time
// must be before end time" / "...: end time can't be in the past" and
// "silence invalid: ..."; 404 "silence not found" (update of an unknown id);
// 422 for a body that does not fit the schema (missing field, no matchers);
// 500 when the change could not be persisted. DELETE /api/v2/silence/{id}
// answers 200 (also for an already expired silence), 404 for an unknown id
// (Alertmanager 0.25 answers 500 there, against its own API spec), 422 for
// an id that is not a UUID. Error bodies are JSON strings.
struct SilenceApiReply {
  int status = 200;
  std::string body;
};
SilenceApiReply post_silence_api(Silences& store, std::string_view body, int64_t now_ms);
SilenceApiReply delete_silence_api(Silences& store, std::string_view id);

// RFC 3339 helpers used above.
std::string silence_time_string(int64_t unix_ms);                // "…T…:ss.mmmZ"
Expected<int64_t> parse_silence_time(std::string_view rfc3339);  // to Unix ms (sub-ms truncated)

}  // namespace llmon::notify
