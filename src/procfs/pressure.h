// Parser for one /proc/pressure/<resource> file (PSI, Linux >= 4.20):
//   some avg10=1.53 avg60=0.87 avg300=0.63 total=181720317
//   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
// as prometheus/procfs reads it: lines with other prefixes are ignored. Pure.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct PsiLine {
  double avg10 = 0, avg60 = 0, avg300 = 0;
  uint64_t total_us = 0;  // cumulative stall time in microseconds
};

struct PsiStats {
  bool has_some = false, has_full = false;
  PsiLine some, full;
};

// A "some"/"full" line that does not match the format is an error naming
// `file` and the line. An empty file gives has_some == has_full == false.
Expected<PsiStats> parse_pressure(std::string_view text, std::string_view file = "pressure");

}  // namespace llmon::procfs
