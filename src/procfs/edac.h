// /sys/devices/system/edac/mc as node_exporter 1.5's edac collector reads it:
// which entries are memory controllers (mc<N>...) and chip-select rows
// (csrow<N>...), with the number node_exporter labels them by, and the
// counter files (trimmed base-10 uint64). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

// For an entry matching the glob "<prefix>[0-9]*" (node_exporter's
// filepath.Glob), the leading digits after the prefix ("mc12" -> "12",
// "csrow0x" -> "0"); nullopt when the entry does not match.
std::optional<std::string> edac_entry_number(std::string_view name, std::string_view prefix);
// A counter file (ce_count, ue_noinfo_count, ...). The error names `what`.
Expected<uint64_t> parse_edac_count(std::string_view text, std::string_view what);

}  // namespace llmon::procfs
