// What a remote_write queue does with a receiver's answer (remote write
// spec 1.0, docs/remote_write.md "Retries"): 2xx acknowledged; 5xx, 429 (unless
// retry_on_http_429 is off) and transport failures retried with capped
// exponential backoff, Retry-After (delay-seconds or an HTTP date) taking
// precedence; every other status dropped (and counted). Pure: no clock, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace llmon::remote {

enum class SendVerdict { kAcked, kRetry, kDrop };

SendVerdict verdict_for_status(int status, bool retry_on_429);

// Retry-After: "120" (seconds) or an IMF-fixdate relative to now_unix_s;
// nullopt when absent or unreadable. Milliseconds, never negative.
std::optional<int64_t> parse_retry_after_ms(std::string_view value, int64_t now_unix_s);

// The wait before retry number `attempt` (1-based): min_backoff doubled per
// attempt, capped at max_backoff; a Retry-After wins (capped at 10 x max_backoff
// so that a bad header cannot stall the queue for days).
int64_t retry_delay_ms(int attempt, int64_t min_backoff_ms, int64_t max_backoff_ms,
                       std::optional<int64_t> retry_after_ms);

}  // namespace llmon::remote
