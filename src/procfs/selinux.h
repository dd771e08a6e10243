// Parsers for SELinux's state as node_exporter 1.5's selinux collector reads
// it through opencontainers/selinux: /etc/selinux/config's SELINUX= line
// (DefaultEnforceMode) and selinuxfs's enforce file (EnforceMode). Modes are
// go-selinux's: 1 enforcing, 0 permissive, -1 disabled. Pure; no I/O.
#pragma once

#include <string_view>

namespace llmon::procfs {

inline constexpr int kSelinuxEnforcing = 1;
inline constexpr int kSelinuxPermissive = 0;
inline constexpr int kSelinuxDisabled = -1;

// The SELINUX= value of a config file: "enforcing" 1, "permissive" 0,
// anything else or no such line -1. Lines are trimmed; '#' lines and lines
// without '=' are skipped; the value may be quoted ("enforcing").
int parse_selinux_config_mode(std::string_view text);

// The enforce file ("1\n"): its integer, or -1 when it is not one.
int parse_selinux_enforce(std::string_view text);

}  // namespace llmon::procfs
