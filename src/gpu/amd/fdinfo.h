// Per-process GPU usage from DRM fdinfo (Documentation/gpu/drm-usage-stats.rst):
// for every process with an open /dev/dri node, the drm-* keys of
// <proc>/<pid>/fdinfo/<fd>, summed per (pid, PCI device). Not the device side
// (amdgpu.h) and no metric names; the process's command, user and container
// come from gpu::ProcessResolver.
//
// Cost: one listing of <proc>, one of each <proc>/<pid>/fd and a readlink per
// descriptor; fdinfo is read only for descriptors that link to
// /dev/dri/renderD* or /dev/dri/card*. Processes whose fd/ or fdinfo cannot be
// read (another user's, exited meanwhile) are skipped silently. A DRM client
// reached through several descriptors (dup, fork, SCM_RIGHTS) has one
// drm-client-id per device and is counted once per process. One thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/status.h"
#include "gpu/amd/amdgpu.h"
#include "procfs/fs.h"

namespace llmon::gpu::amd {

struct DrmProcessUsage {
  uint32_t pid = 0;
  std::string pdev;  // "0000:03:00.0", as the kernel prints it
  std::optional<uint64_t> vram_bytes;
  std::optional<uint64_t> gtt_bytes;
  std::array<std::optional<uint64_t>, kDrmEngineCount> engine_ns;  // by DrmEngine
};

class DrmFdinfoScanner {
 public:
  // Only clients whose drm-driver is `driver` are counted.
  explicit DrmFdinfoScanner(procfs::Fs fs, std::string driver = "amdgpu");

  // Fills `out` (cleared first), sorted by (pid, pdev). An error only when
  // <proc> itself cannot be listed.
  Status scan(std::vector<DrmProcessUsage>& out);

 private:
  struct Client {
    std::string pdev;
    std::optional<uint64_t> client_id;
  };
  void scan_pid(uint32_t pid, std::vector<DrmProcessUsage>& out);

  procfs::Fs fs_;
  std::string driver_;
  // Scratch storage reused between calls.
  std::vector<base::DirEntry> pids_, fds_;
  std::vector<Client> seen_;
  std::string path_, text_;
};

}  // namespace llmon::gpu::amd
