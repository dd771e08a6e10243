// Fuzz target: the amdgpu sysfs and DRM fdinfo parsers (gpu/amd/amdgpu.h).
// The first input byte picks the parser, the rest is the file's text. Parsers
// must return errors, never crash, hang or read out of bounds; a parsed DPM
// table's current level must be one of its levels.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "gpu/amd/amdgpu.h"

using namespace llmon::gpu::amd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 6) {
    case 0: {
      auto t = parse_dpm_levels(text);
      if (t && t->current && *t->current >= t->levels.size()) std::abort();
      break;
    }
    case 1: {
      auto f = parse_drm_fdinfo(text);
      // Views point into the input.
      if (f && !f->driver.empty() &&
          (f->driver.data() < text.data() || f->driver.data() + f->driver.size() > text.data() + text.size()))
        std::abort();
      break;
    }
    case 2:
      (void)parse_link_speed_gts(text);
      break;
    case 3:
      (void)parse_sysfs_u64(text);
      (void)parse_sysfs_i64(text);
      break;
    case 4:
      (void)parse_pci_id(text);
      (void)parse_sysfs_string(text);
      break;
    case 5:
      (void)parse_card_name(text);
      break;
  }
  return 0;
}
