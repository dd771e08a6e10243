// The Xid catalogue as data: what each NVIDIA Xid code means and what to do
// about it. Source: NVIDIA's Xid catalogue for Ampere and later
// ("Xid-Catalog.xlsx", the Xid Errors document) as summarised by GPUd
// (leptonai/gpud components/accelerator/nvidia/xid); the repeat rules are
// GPUd's and NVSentinel's (docs/gpu-health.md). Pure data and lookups, no
// state.
//
// Unknown codes get the documented default: name "unknown", action
// restart_app, not escalated (the driver's recovery action, when NVML has it,
// is the stronger verdict; docs/gpu-health.md "Unknown Xids").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace llmon::health {

// What to do about a GPU, weakest first: a GPU's recommended action is the
// strongest of its evidence's. The catalogue uses kNone, kRestartApp,
// kResetGpu, kReboot and kInspectHardware; kDrainP2p, kDrainAndReset and
// kActionNeeded come from NVML's recovery action field.
enum class Action : uint8_t {
  kNone,
  kRestartApp,
  kDrainP2p,
  kResetGpu,
  kDrainAndReset,
  kActionNeeded,  // the driver asks for an action this build does not know
  kReboot,
  kInspectHardware,
};

// "none", "restart_app", "drain_p2p", "reset_gpu", "drain_and_reset",
// "action_needed", "reboot", "inspect_hardware".
std::string_view action_name(Action a);
constexpr Action kAllActions[] = {Action::kNone,     Action::kRestartApp,     Action::kDrainP2p,
                                  Action::kResetGpu, Action::kDrainAndReset,  Action::kActionNeeded,
                                  Action::kReboot,   Action::kInspectHardware};
std::optional<Action> parse_action(std::string_view s);

struct XidInfo {
  uint32_t code = 0;
  std::string_view name;     // short, snake_case: "fallen_off_bus"
  std::string_view meaning;  // one line
  Action action = Action::kRestartApp;
  // The same code repeating on one GPU (not on many GPUs at once) points at
  // the hardware: 13, 31, 48, 74, 79 (NVSentinel, GPUd).
  bool repeat_means_hardware = false;
  // The row-remap flags decide, not the Xid (63, 64: GPUd defers to NVML).
  bool defer_to_row_remap = false;
  bool known = true;
};

// The whole table, ordered by code.
std::span<const XidInfo> xid_catalog();
// The entry for `code`, or the default for unknown codes (known == false).
XidInfo lookup_xid(uint32_t code);

// A reboot-class Xid: one the GPUd-style escalation counts across reboots
// (action reset_gpu or reboot).
bool is_reboot_class(const XidInfo& info);

}  // namespace llmon::health
