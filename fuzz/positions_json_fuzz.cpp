// Fuzz target: the watcher's committed positions (logwatch/positions_json.h)
// and event JSON (logwatch/event_json.h), both read back from the journal at
// start-up. Any bytes must decode or give an error, never crash; what
// decodes must encode and decode again to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "logwatch/event_json.h"
#include "logwatch/positions_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto p = llmon::logwatch::decode_positions(text)) {
    std::string once = llmon::logwatch::encode_positions(*p);
    auto again = llmon::logwatch::decode_positions(once);
    if (!again || llmon::logwatch::encode_positions(*again) != once) std::abort();
  }
  if (auto e = llmon::logwatch::decode_event(text)) {
    std::string once = llmon::logwatch::encode_event(*e);
    auto again = llmon::logwatch::decode_event(once);
    if (!again || llmon::logwatch::encode_event(*again) != once) std::abort();
  }
  return 0;
}
