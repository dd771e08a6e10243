// Parsers for /proc/net/netstat, /proc/net/snmp (pairs of lines: "Tcp:
// ActiveOpens PassiveOpens ..." then "Tcp: 268995 266958 ...") and
// /proc/net/snmp6 ("Ip6InReceives   2", the protocol ending at the first '6'),
// as node_exporter 1.5's netstat_linux.go reads them. Pure; every view points
// into the parsed text. Values are left as text: node_exporter parses them
// (strconv.ParseFloat) only after merging the three files.
#pragma once

#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct NetStatField {
  std::string_view protocol;  // "TcpExt", "Ip", "Icmp6", ...
  std::string_view name;      // "ListenDrops", "InOctets", ...
  std::string_view value;
  int section = 0;  // one per header/value pair, one per protocol in snmp6
};

// Appends the fields of a netstat/snmp file to out, numbering its sections
// from next_section (advanced). A header without a "Proto:" name or a value
// line with a different number of fields (also a missing one) is an error
// naming `file` and the line.
Status parse_net_stats(std::string_view text, std::string_view file, int& next_section, std::vector<NetStatField>& out);
// Appends the fields of /proc/net/snmp6 (lines with fewer than two fields or
// no '6' in the name are skipped, as node_exporter does), one section per
// protocol. Never fails.
void parse_snmp6(std::string_view text, int& next_section, std::vector<NetStatField>& out);

}  // namespace llmon::procfs
