// Parsers for netfilter's connection tracking files, as node_exporter 1.5's
// conntrack collector reads them: /proc/sys/net/netfilter/nf_conntrack_count
// and nf_conntrack_max (one decimal number) and /proc/net/stat/nf_conntrack
// (a header, then one line of 17 hex counters per CPU, summed). Pure.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

// The number in a one-value sysctl file (surrounding white space trimmed;
// Go's ParseUint base 10). Anything else is an error naming `file`.
Expected<uint64_t> parse_sysctl_uint(std::string_view text, std::string_view file);

// Sums over the CPUs of the columns node_exporter exports (procfs 0.8's
// positions: found 3rd, invalid 5th, ignore 6th, insert 9th, insert_failed
// 10th, drop 11th, early_drop 12th, search_restart 17th).
struct ConntrackStat {
  uint64_t found = 0, invalid = 0, ignore = 0, insert = 0, insert_failed = 0, drop = 0, early_drop = 0,
           search_restart = 0;
};

// The first line (the header) is not read. A CPU line without exactly 17
// fields (also a blank one) or with a field that is not hex is an error
// naming `file` and the line.
Expected<ConntrackStat> parse_conntrack_stat(std::string_view text,
                                             std::string_view file = "/proc/net/stat/nf_conntrack");

}  // namespace llmon::procfs
