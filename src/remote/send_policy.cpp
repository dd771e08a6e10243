#include "remote/send_policy.h"

#include <algorithm>
#include <ctime>
#include <string>

#include "base/strings.h"

namespace llmon::remote {

SendVerdict verdict_for_status(int status, bool retry_on_429) {
  if (status >= 200 && status < 300) return SendVerdict::kAcked;
  if (status >= 500) return SendVerdict::kRetry;
  if (status == 429) return retry_on_429 ? SendVerdict::kRetry : SendVerdict::kDrop;
  return SendVerdict::kDrop;
}

std::optional<int64_t> parse_retry_after_ms(std::string_view value, int64_t now_unix_s) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (auto n = base::parse_i64(value)) {
    if (*n < 0) return std::nullopt;
    return std::min<int64_t>(*n, int64_t{1} << 40) * 1000;
  }
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
  std::tm tm{};
  const std::string s(value);
  const char* end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end != '\0') return std::nullopt;
  const int64_t at = static_cast<int64_t>(timegm(&tm));
  return std::max<int64_t>(0, at - now_unix_s) * 1000;
}

int64_t retry_delay_ms(int attempt, int64_t min_backoff_ms, int64_t max_backoff_ms,
                       std::optional<int64_t> retry_after_ms) {
  if (retry_after_ms) return std::min(*retry_after_ms, 10 * std::max<int64_t>(max_backoff_ms, 1));
  int64_t d = std::max<int64_t>(min_backoff_ms, 1);
  for (int i = 1; i < attempt && d < max_backoff_ms; ++i) d *= 2;
  return std::min(d, max_backoff_ms);
}

}  // namespace llmon::remote
