// Parser for the one-number files of /proc/sys/kernel/random (entropy_avail,
// poolsize) and /proc/sys/kernel/{threads-max,pid_max}: "256\n", read as
// procfs' util.ReadUintFromFile does (spaces trimmed, then a decimal uint64).
// Pure; no I/O.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

// The error names `file` and line 1 and quotes the text.
Expected<uint64_t> parse_kernel_random_value(std::string_view text, std::string_view file);

}  // namespace llmon::procfs
