// PCI addresses as the kernel and NVML write them, made comparable.
// The kernel logs `0000:3b:00` (Xid lines: no function), `0000:3b:00.0`
// (AER, sysfs) or `3b:00` (older drivers: no domain); NVML's busId is
// `00000000:3B:00.0` (8-digit domain, upper case). normalize_bus_id turns all
// of them into sysfs's form `0000:3b:00.0` (domain 4 hex digits or more,
// lower case, function 0 when absent). Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmon::health {

// nullopt when `text` is not a PCI address ("PCI:" prefix accepted).
std::optional<std::string> normalize_bus_id(std::string_view text);

// True when both normalise to the same address.
bool same_bus_id(std::string_view a, std::string_view b);

}  // namespace llmon::health
