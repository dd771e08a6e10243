#include "health/xid_catalog.h"

#include <algorithm>
#include <array>

namespace llmon::health {
namespace {

using A = Action;

// Source: NVIDIA's Xid catalogue (Ampere and later), GPUd's copy of it;
// classes A = restart_app, R = reset_gpu, B = reboot, H = inspect_hardware.
constexpr XidInfo kCatalog[] = {
    {13, "graphics_engine_exception", "Graphics engine exception (illegal instruction or address)", A::kRestartApp,
     true},
    {31, "mmu_page_fault", "GPU memory page fault (MMU)", A::kRestartApp, true},
    {43, "gpu_stopped_processing", "GPU stopped processing (software-induced)", A::kRestartApp},
    {45, "preemptive_cleanup", "Preemptive cleanup after an earlier error: follow the companion Xid", A::kNone},
    {48, "double_bit_ecc", "Double-bit ECC error", A::kResetGpu, true},
    {61, "pmu_breakpoint", "PMU breakpoint", A::kReboot},
    {62, "pmu_halt", "PMU halt", A::kResetGpu},
    {63, "row_remap_recorded", "Row remap / page retirement recorded: reset to activate it", A::kResetGpu, false, true},
    {64, "row_remap_failure", "Row-remap recording failure", A::kInspectHardware, false, true},
    {68, "video_processor_exception", "Video processor (NVDEC) exception", A::kRestartApp},
    {69, "graphics_engine_class_error", "Graphics engine class error", A::kRestartApp},
    {74, "nvlink_error", "NVLink error", A::kResetGpu, true},
    {79, "fallen_off_bus", "GPU has fallen off the bus", A::kReboot, true},
    {92, "high_sbe_rate", "High single-bit ECC error rate", A::kNone},
    {94, "contained_memory_error", "Contained memory error: reset when convenient", A::kRestartApp},
    {95, "uncontained_memory_error", "Uncontained memory error", A::kResetGpu},
    {109, "context_switch_timeout", "Context-switch timeout", A::kResetGpu},
    {119, "gsp_rpc_timeout", "GSP RPC timeout", A::kResetGpu},
    {120, "gsp_error", "GSP error", A::kResetGpu},
    {121, "c2c_link_error", "C2C link error", A::kInspectHardware},
    {136, "link_training_failed", "Link training failed", A::kResetGpu},
    {140, "ecc_unrecovered_escape", "Unrecovered ECC error escape", A::kResetGpu},
    {143, "gpu_init_failure", "GPU initialisation failure", A::kInspectHardware},
    {144, "nvlink5_error", "NVLink5 error (severity per the line)", A::kResetGpu},
    {145, "nvlink5_error", "NVLink5 error (severity per the line)", A::kResetGpu},
    {146, "nvlink5_error", "NVLink5 error (severity per the line)", A::kResetGpu},
    {147, "nvlink5_error", "NVLink5 error (severity per the line)", A::kResetGpu},
    {148, "nvlink5_error", "NVLink5 error (severity per the line)", A::kResetGpu},
    {149, "nvlink5_error", "NVLink5 error (severity per the line)", A::kResetGpu},
    {150, "nvlink5_error", "NVLink5 error (severity per the line)", A::kResetGpu},
    {154, "recovery_action_changed", "GPU recovery action changed: read the recovery action", A::kNone},
    {155, "nvlink_software_error", "NVLink software error", A::kResetGpu},
    {156, "resource_retirement", "Resource retirement event", A::kResetGpu},
    {158, "gpu_fatal_timeout", "GPU fatal timeout", A::kResetGpu},
};

constexpr std::array<std::string_view, 8> kActionNames = {
    "none", "restart_app", "drain_p2p", "reset_gpu", "drain_and_reset", "action_needed", "reboot", "inspect_hardware",
};

}  // namespace

std::string_view action_name(Action a) {
  return kActionNames[static_cast<size_t>(a)];
}

std::optional<Action> parse_action(std::string_view s) {
  for (size_t i = 0; i < kActionNames.size(); ++i)
    if (kActionNames[i] == s) return static_cast<Action>(i);
  return std::nullopt;
}

std::span<const XidInfo> xid_catalog() {
  return kCatalog;
}

XidInfo lookup_xid(uint32_t code) {
  auto it = std::lower_bound(std::begin(kCatalog), std::end(kCatalog), code,
                             [](const XidInfo& e, uint32_t c) { return e.code < c; });
  if (it != std::end(kCatalog) && it->code == code) return *it;
  XidInfo unknown;
  unknown.code = code;
  unknown.name = "unknown";
  unknown.meaning = "Xid not in the catalogue";
  unknown.action = Action::kRestartApp;
  unknown.known = false;
  return unknown;
}

bool is_reboot_class(const XidInfo& info) {
  return info.action == Action::kResetGpu || info.action == Action::kReboot;
}

}  // namespace llmon::health
