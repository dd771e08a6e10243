#include "gpu/labels.h"

namespace llmon::gpu {

Expected<HostnameLabel> parse_hostname_label(std::string_view s) {
  if (s == "Hostname") return HostnameLabel::kUpper;
  if (s == "hostname") return HostnameLabel::kLower;
  if (s == "none" || s.empty()) return HostnameLabel::kNone;
  return Status::error("GPU hostname label must be \"Hostname\", \"hostname\" or \"none\", got \"" + std::string(s) +
                       "\"");
}

LabelScheme::LabelScheme(HostnameLabel mode, std::string hostname, std::string driver_version)
    : mode_(mode), hostname_(std::move(hostname)), driver_version_(std::move(driver_version)) {}

std::vector<std::string> LabelScheme::names(bool mig, std::span<const std::string_view> extra) const {
  std::vector<std::string> n = {"gpu", "UUID", "pci_bus_id", "device", "modelName"};
  if (mode_ == HostnameLabel::kUpper) n.emplace_back("Hostname");
  if (mode_ == HostnameLabel::kLower) n.emplace_back("hostname");
  if (mig) {
    n.emplace_back("GPU_I_PROFILE");
    n.emplace_back("GPU_I_ID");
  }
  if (!driver_version_.empty()) n.emplace_back("DCGM_FI_DRIVER_VERSION");
  for (auto e : extra) n.emplace_back(e);
  return n;
}

void LabelScheme::values(const DeviceIdentity& id, std::vector<std::string>& out,
                         std::span<const std::string_view> extra) const {
  // Assign in place so a steady-state cycle reuses the strings' storage.
  size_t n = 0;
  auto put = [&](std::string_view v) {
    if (n < out.size())
      out[n].assign(v);
    else
      out.emplace_back(v);
    ++n;
  };
  put(id.gpu);
  put(id.uuid);
  put(id.pci_bus_id);
  put(id.device);
  put(id.model_name);
  if (mode_ != HostnameLabel::kNone) put(hostname_);
  if (id.is_mig()) {
    put(id.mig_profile);
    put(id.mig_instance_id);
  }
  if (!driver_version_.empty()) put(driver_version_);
  for (auto e : extra) put(e);
  out.resize(n);
}

}  // namespace llmon::gpu
