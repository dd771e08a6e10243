// Parser for /proc/interrupts, following node_exporter 1.5's
// interrupts_linux.go. Pure; no I/O.
//            CPU0       CPU1
//   36:    1893021          0  IR-PCI-MSIX-0000:41:00.0    1-edge      nvme0q1
//  LOC:  189323991  181204355   Local timer interrupts
// The header's field count is the number of CPU columns. A numbered IRQ's
// "info" is the field after the counts (the chip) and "devices" the rest
// joined by single spaces; a named one's info is all the rest and devices
// is empty. Lines with fewer than CPUs + 2 fields (ERR, MIS) are skipped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct Interrupt {
  std::string name;  // "36", "LOC": the first field without its trailing character (':')
  std::string info, devices;
  std::vector<double> per_cpu;  // one per header column
};

// Fills out (cleared first). Of two lines with one name the last one is kept
// (in the first one's place), as node_exporter's map does. An empty file, or
// a count that is not a number, is an error naming file and line.
Status parse_interrupts(std::string_view text, std::string_view file, std::vector<Interrupt>& out);

}  // namespace llmon::procfs
