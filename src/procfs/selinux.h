// SELinux state as go-selinux (node_exporter 1.5's selinux collector) reads
// it: the enforcement modes are -1 disabled, 0 permissive, 1 enforcing. Pure.
#pragma once

#include <string_view>

namespace llmon::procfs {

// /etc/selinux/config's SELINUX= value (go-selinux DefaultEnforceMode):
// "enforcing" 1, "permissive" 0, anything else or none -1.
int selinux_config_mode(std::string_view config);

// selinuxfs' enforce file (go-selinux EnforceMode): its integer, -1 if none.
int selinux_enforce_mode(std::string_view enforce);

// The process's security context (/proc/thread-self/attr/current, NUL and
// newline trimmed): "kernel" means SELinux is not enabled (go-selinux GetEnabled).
bool selinux_context_is_kernel(std::string_view current);

}  // namespace llmon::procfs
