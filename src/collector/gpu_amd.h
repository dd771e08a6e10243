// amdgpu collector: llmon_gpu_* for AMD GPUs from sysfs (gpu/amd/amdgpu.h) and
// per-process usage from DRM fdinfo (gpu/amd/fdinfo.h), labelled as
// dcgm-exporter labels NVIDIA GPUs (gpu/labels.h) without a driver version.
// Emits nothing at all on a host without an amdgpu card. make_amdgpu(ctx)
// (builtin.h) takes the host name from uname(2), tests pass their own; a
// non-empty collector.gpu.hostname option overrides either.
#pragma once

#include <memory>
#include <string>

#include "collector/collector.h"

namespace llmon::collector {

std::unique_ptr<Collector> make_amdgpu_with_hostname(const CollectorContext& ctx, std::string hostname);

}  // namespace llmon::collector
