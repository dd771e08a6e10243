#include <cmath>
#include <cstring>

#include "gpu/nvml/sampler_state.h"

namespace llmon::gpu::nvml::detail {

double sane(V k, double x) {
  if (std::isnan(x) || std::isinf(x)) return kNa;
  switch (k) {
    case V::kGpuUtil:
    case V::kMemCopyUtil:
    case V::kEncUtil:
    case V::kDecUtil:
      return x >= 0 && x <= 1 ? x : kNa;
    case V::kGpuTempC:
    case V::kMemTempC:
    case V::kSlowdownTempC:
    case V::kShutdownTempC:
    case V::kGpuMaxOpTempC:
    case V::kMemMaxOpTempC:
      return x > -100 && x < 250 ? x : kNa;
    case V::kFanSpeed:
      return x >= 0 && x <= 2.55 ? x : kNa;
    case V::kPstate:
      return x >= 0 && x <= 15 ? x : kNa;
    case V::kPowerW:
    case V::kPowerLimitEnforcedW:
    case V::kPowerLimitMgmtW:
    case V::kPowerLimitDefaultW:
      return x >= 0 && x < 100000 ? x : kNa;
    case V::kPcieLinkGen:
    case V::kPcieLinkGenMax:
      return x >= 1 && x <= 16 ? x : kNa;
    case V::kPcieLinkWidth:
    case V::kPcieLinkWidthMax:
      return x >= 0 && x <= 64 ? x : kNa;
    default:
      return x >= 0 ? x : kNa;
  }
}

std::string c_string(const char* buf, size_t cap) {
  return std::string(buf, strnlen(buf, cap));
}

std::string mig_profile_from_name(const std::string& name) {
  auto p = name.rfind("MIG ");
  if (p == std::string::npos) return name;
  return name.substr(p + 4);
}

}  // namespace llmon::gpu::nvml::detail
