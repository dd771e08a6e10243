// Fuzz target: the HTTP request parser and the header-value parsers behind /metrics.
#include <cstddef>
#include <cstdint>
#include <string>

#include "exposition/format.h"
#include "http/metrics_page.h"
#include "http/request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  llmon::http::Request req;
  llmon::http::ParseLimits limits;
  limits.max_body_bytes = 4096;
  auto r = llmon::http::parse_request(in, limits, req);
  if (r.state == llmon::http::ParseState::kComplete && r.consumed > size) __builtin_trap();
  (void)llmon::exposition::negotiate(in);
  (void)llmon::http::accepts_gzip(std::string(in));
  return 0;
}
