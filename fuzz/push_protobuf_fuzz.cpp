// Fuzz target: protobuf push bodies (scrape/push_protobuf.h). Any bytes must
// parse or give an error, never crash; what parses must re-encode and parse
// again to the same families, and go through the store and out as a page.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "scrape/push_protobuf.h"
#include "scrape/push_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmon::scrape;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto parsed = parse_protobuf_push(body);
  if (!parsed) return 0;
  auto again = parse_protobuf_push(encode_protobuf_push(parsed->families));
  if (!again || again->families.size() != parsed->families.size()) std::abort();
  for (size_t i = 0; i < parsed->families.size(); ++i) {
    const auto& a = parsed->families[i];
    const auto& b = again->families[i];
    if (a.name != b.name || a.type != b.type || a.help != b.help || a.metrics.size() != b.metrics.size()) std::abort();
  }
  llmon::base::ManualClock clock(1000);
  PushStore store(clock);
  const GroupingKey key{{{"job", "fuzz"}}};
  (void)store.push_families(key, std::move(parsed->families), PushMode::kReplaceGroup,
                            protobuf_refusal(*parsed, key.labels));
  std::string page;
  write_push_page(store.families(), page);
  return 0;
}
