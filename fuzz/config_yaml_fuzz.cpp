// Fuzz target: the YAML config file parser (yaml-cpp underneath, our flattening on top).
#include <cstddef>
#include <cstdint>

#include "config/settings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)llmon::config::parse_config_yaml(in, "fuzz.yml");
  (void)llmon::config::parse_duration_ms(in);
  return 0;
}
