// Fuzz target: the --remote-write.config parser and the queues' read
// position files (src/remote/), which must refuse any input with a message.
#include <cstddef>
#include <cstdint>

#include "remote/read_position.h"
#include "remote/remote_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)llmon::remote::parse_remote_write_config(in, "fuzz.yml");
  auto p = llmon::remote::parse_position(in);
  if (p) {
    auto again = llmon::remote::parse_position(llmon::remote::format_position(*p));
    if (!again || !(*again == *p)) __builtin_trap();
  }
  return 0;
}
