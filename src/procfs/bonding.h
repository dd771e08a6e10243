// Files of the Linux bonding driver under /sys/class/net, as node_exporter
// 1.5's bonding collector reads them: bonding_masters and
// <master>/bonding/slaves (whitespace-separated interface names) and
// <master>/lower_<slave>/bonding_slave/mii_status ("up" is an active slave).
// Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmon::procfs {

// The interface names of bonding_masters or bonding/slaves (Go's strings.Fields).
std::vector<std::string> parse_bonding_names(std::string_view text);
// Whether a slave's mii_status counts as active (its trimmed text is "up").
bool bonding_slave_up(std::string_view mii_status);

}  // namespace llmon::procfs
