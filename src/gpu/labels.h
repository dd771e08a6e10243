// The label scheme every GPU series carries, NVIDIA and AMD alike, copied
// from dcgm-exporter (internal/pkg/rendermetrics/render_metrics.go) so that
// existing dashboards and alert rules match unchanged:
//
//   NAME{gpu="0",UUID="GPU-…",pci_bus_id="00000000:18:00.0",device="nvidia0",
//        modelName="NVIDIA H100 80GB HBM3",Hostname="node1"
//        [,GPU_I_PROFILE="1g.10gb",GPU_I_ID="3"]        (MIG instances only)
//        [,DCGM_FI_DRIVER_VERSION="550.54.15"]          (NVIDIA, when known)
//        [,<extra labels: pid, command, xid, ...>]}
//
// Label order is dcgm-exporter's, not alphabetical (the exposition format
// does not care; people diffing against dcgm-exporter's page do).
// The hostname label is "Hostname" (dcgm-exporter before #655), "hostname"
// (after) or absent (--no-hostname), chosen by --collector.gpu.hostname-label.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::gpu {

// Who a series is about: a whole GPU, or one MIG instance of it (then gpu,
// UUID, pci_bus_id, device and modelName are the parent's, as in dcgm-exporter).
struct DeviceIdentity {
  std::string gpu;              // index as the driver enumerates it: "0"
  std::string uuid;             // "GPU-8f6d…" (NVIDIA) / unique_id (AMD)
  std::string pci_bus_id;       // "00000000:18:00.0" (NVML's busId form)
  std::string device;           // "nvidia0" / "card0"
  std::string model_name;       // "NVIDIA H100 80GB HBM3"
  std::string mig_profile;      // GPU_I_PROFILE ("1g.10gb"); empty: not a MIG instance
  std::string mig_instance_id;  // GPU_I_ID ("3")

  bool is_mig() const { return !mig_profile.empty() || !mig_instance_id.empty(); }
};

enum class HostnameLabel { kUpper, kLower, kNone };

// Parses "Hostname" / "hostname" / "none" (the flag's values).
Expected<HostnameLabel> parse_hostname_label(std::string_view s);

// Builds label name and value lists. Immutable after construction; cheap to
// copy. `driver_version` empty: no DCGM_FI_DRIVER_VERSION label (AMD).
class LabelScheme {
 public:
  LabelScheme() = default;
  LabelScheme(HostnameLabel mode, std::string hostname, std::string driver_version);

  // Label names of a device series (mig: with GPU_I_PROFILE, GPU_I_ID),
  // followed by `extra`.
  std::vector<std::string> names(bool mig, std::span<const std::string_view> extra = {}) const;
  std::vector<std::string> names(bool mig, std::initializer_list<std::string_view> extra) const {
    return names(mig, std::span<const std::string_view>(extra.begin(), extra.size()));
  }
  // The matching values: appends to `out` (cleared first) the identity values
  // and then `extra` values, in the same order as names().
  void values(const DeviceIdentity& id, std::vector<std::string>& out,
              std::span<const std::string_view> extra = {}) const;
  void values(const DeviceIdentity& id, std::vector<std::string>& out,
              std::initializer_list<std::string_view> extra) const {
    values(id, out, std::span<const std::string_view>(extra.begin(), extra.size()));
  }

  const std::string& driver_version() const { return driver_version_; }

 private:
  HostnameLabel mode_ = HostnameLabel::kUpper;
  std::string hostname_;
  std::string driver_version_;
};

}  // namespace llmon::gpu
