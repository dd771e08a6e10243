// Parsers for /sys/class/infiniband/<device>/ports/<port>/ files as
// prometheus/procfs (sysfs/class_infiniband.go, the version node_exporter 1.5
// is built with) reads them: state and phys_state ("4: ACTIVE"), rate
// ("200 Gb/sec (4X HDR)") and the counters/ and counters_ext/ files (one
// unsigned integer each, Go's base-prefix rules). hw_counters/ is not read by
// that version. Pure: the caller reads the files and hands over their text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct IbState {
  uint32_t id = 0;
  std::string name;
};

// "<id>: <name>" (state, phys_state). The error names `what` (the file).
Expected<IbState> parse_ib_state(std::string_view text, std::string_view what);
// "<Gb/s> Gb/sec (<width> <speed>)" in bytes per second, as procfs computes it
// (float32 Gb/s times 125000000, truncated).
Expected<uint64_t> parse_ib_rate(std::string_view text, std::string_view what);

// One counter procfs knows: where it lives and the node_infiniband_ family it
// feeds. Data counters count 32-bit words per lane and are multiplied by 4.
struct IbCounterSpec {
  std::string_view dir;     // "counters" or "counters_ext"
  std::string_view file;    // e.g. "port_rcv_data"
  std::string_view metric;  // family name after "node_infiniband_"
  std::string_view help;
  bool times4 = false;
};

// Every counter, in node_exporter's emission order.
std::span<const IbCounterSpec> ib_counter_specs();
// Index into ib_counter_specs() of dir/file, or ib_counter_specs().size().
size_t ib_counter_index(std::string_view dir, std::string_view file);

// The value of a counter file (trimmed; ParseUint(s, 0, 64), times 4 for data
// counters). nullopt for text procfs skips ("N/A (no PMA)"); an error names
// `what` for anything else that is not a number.
Expected<std::optional<uint64_t>> parse_ib_counter(const IbCounterSpec& spec, std::string_view text,
                                                   std::string_view what);

}  // namespace llmon::procfs
