// MIG: the instance layout (every slow cycle) and memory per instance.
#include "gpu/nvml/sampler_state.h"

namespace llmon::gpu::nvml {

using detail::c_string;
using detail::mig_profile_from_name;

void NvmlSampler::read_mig(Dev& d, DeviceSample& s, bool slow) {
  auto on = [&](Fn f) { return !d.off.test(static_cast<size_t>(f)) && lib_.has(f) && !d.lost; };
  if (slow) {
    unsigned cur = 0, pending = 0;
    unsigned mode = 0;
    if (on(Fn::kMigMode) && check(d, Fn::kMigMode, lib_.call<FnDevUintUint>(Fn::kMigMode, d.h, &cur, &pending)))
      mode = cur == kMigEnable ? 1 : 0;
    d.mig_mode = mode;
    d.migs.clear();
    unsigned max = 0;
    if (mode == 1 && on(Fn::kMaxMigDeviceCount) &&
        check(d, Fn::kMaxMigDeviceCount, lib_.call<FnDevUint>(Fn::kMaxMigDeviceCount, d.h, &max))) {
      for (unsigned i = 0; i < max && i < 64; ++i) {
        Device m = nullptr;
        Return r = lib_.call<FnDevIndexHandle>(Fn::kMigDeviceByIndex, d.h, i, &m);
        if (r != kSuccess) continue;  // NOT_FOUND: empty slot
        Dev::Mig mig;
        mig.h = m;
        unsigned gi = 0, ci = 0;
        lib_.call<FnDevUint>(Fn::kGpuInstanceId, m, &gi);
        lib_.call<FnDevUint>(Fn::kComputeInstanceId, m, &ci);
        char buf[kUuidBufferSize] = {};
        if (lib_.call<FnDevString>(Fn::kUuid, m, buf, kUuidBufferSize) == kSuccess)
          mig.s.mig_uuid = c_string(buf, sizeof buf);
        char name[kNameBufferSize] = {};
        std::string profile;
        if (lib_.call<FnDevString>(Fn::kName, m, name, kNameBufferSize) == kSuccess)
          profile = mig_profile_from_name(c_string(name, sizeof name));
        mig.s.id = d.id;
        mig.s.id.mig_profile = profile.empty() ? "unknown" : profile;
        mig.s.id.mig_instance_id = std::to_string(gi);
        mig.s.gpu_instance = gi;
        mig.s.compute_instance = ci;
        d.migs.push_back(std::move(mig));
      }
    }
  }
  s.set(V::kMigMode, on(Fn::kMigMode) || d.mig_mode ? d.mig_mode : kNa);
  for (auto& m : d.migs) {
    MigInstanceSample is = m.s;
    is.id.gpu = d.id.gpu;
    if (!d.off.test(static_cast<size_t>(Fn::kMemoryInfoV2)) && lib_.has(Fn::kMemoryInfoV2)) {
      MemoryV2 mem{};
      mem.version = kMemoryV2Version;
      if (lib_.call<FnDevMemoryV2>(Fn::kMemoryInfoV2, m.h, &mem) == kSuccess) {
        is.fb_total = static_cast<double>(mem.total);
        is.fb_free = static_cast<double>(mem.free);
        is.fb_used = static_cast<double>(mem.used);
        is.fb_reserved = static_cast<double>(mem.reserved);
      }
    } else if (lib_.has(Fn::kMemoryInfo)) {
      Memory mem{};
      if (lib_.call<FnDevMemory>(Fn::kMemoryInfo, m.h, &mem) == kSuccess) {
        is.fb_total = static_cast<double>(mem.total);
        is.fb_free = static_cast<double>(mem.free);
        is.fb_used = static_cast<double>(mem.used);
      }
    }
    s.mig.push_back(std::move(is));
  }
}

}  // namespace llmon::gpu::nvml
