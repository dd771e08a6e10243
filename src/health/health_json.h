// The health snapshot as JSON: `/api/v1/health`'s data and
// `llmon health --json` (schema in docs/gpu-health.md):
//   {"time_ms":…,"boot_id":"…","gpus":[{"gpu":"0","UUID":"GPU-…",
//     "pci_bus_id":"…","state":"unhealthy","action":"reboot",
//     "set_healthy_ms":0,"xid_errors":{"79":1},
//     "evidence":[{"time_ms":…,"kind":"xid","state":"unhealthy",
//       "action":"reboot","detail":"…","xid":79,"count":1,
//       "sources":"nvml,kernel","nvml_line":"…","kernel_line":"…"}]}]}
// Xid fields appear only on Xid evidence, lines only when present. Pure.
#pragma once

#include <string>

#include "health/health_types.h"

namespace llmon::health {

std::string health_json(const HealthSnapshot& snap);

}  // namespace llmon::health
