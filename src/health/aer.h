// PCIe AER counters of a device from sysfs:
//   <sys_root>/bus/pci/devices/<bdf>/aer_dev_correctable   "RxErr 0\n...\nTOTAL_ERR_COR 3\n"
//   <sys_root>/bus/pci/devices/<bdf>/aer_dev_nonfatal      "... TOTAL_ERR_NONFATAL 0"
//   <sys_root>/bus/pci/devices/<bdf>/aer_dev_fatal         "... TOTAL_ERR_FATAL 0"
// (kernel Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats; counts
// since boot). parse_aer_file is pure; read_aer_counts does the I/O with an
// injected sysfs root ("/sys" on a host, a fixture tree in tests).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::health {

struct AerCounts {
  uint64_t correctable = 0;
  uint64_t nonfatal = 0;
  uint64_t fatal = 0;
};

// The file's TOTAL_ERR_* line, or the sum of its lines when it has none
// (kernels before 5.x had no total). Errors name the bad line.
Expected<uint64_t> parse_aer_file(std::string_view text);

// `bus_id` in any form normalize_bus_id accepts (NVML's too). A device
// without the files (AER not enabled, no such device) is a no_data status.
Expected<AerCounts> read_aer_counts(const std::string& sys_root, std::string_view bus_id);

}  // namespace llmon::health
