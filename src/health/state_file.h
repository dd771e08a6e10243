// The persisted part of GPU health: per GPU (by UUID) its identity, Xid
// occurrences, the boots each Xid was seen in, and the last operator
// override. One JSON document, `<state_dir>/gpu-health.json`, replaced
// atomically (base/atomic_file.h) after every change that matters for the
// verdict (a new occurrence, a new boot for an Xid, an override):
//   {"version":1,"gpus":[{"uuid":"GPU-…","gpu":"0","pci_bus_id":"…",
//     "set_healthy_ms":0,
//     "boots":[{"xid":79,"seen":[{"boot_id":"…","last_ms":…}]}],
//     "occurrences":[{"xid":13,"boot_id":"…","first_ms":…,"last_ms":…,
//       "nvml_count":1,"kernel_count":1,"nvml_line":"…","kernel_line":"…",
//       "severity":""}]}]}
// decode_state is strict about types and names what is wrong.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "health/health_record.h"

namespace llmon::health {

using GpuRecords = std::map<std::string, GpuRecord>;  // by UUID

std::string encode_state(const GpuRecords& gpus);
// Fills only the persisted fields (and ref).
Expected<GpuRecords> decode_state(std::string_view text);

// The file under `dir`.
std::string state_file_path(const std::string& dir);

}  // namespace llmon::health
