// NvmlSampler: one NVML collection cycle, synchronously, on the calling
// thread (NvmlBackend runs it on a worker so a hung driver call cannot stall
// the agent). It owns the per-GPU state between cycles:
//
//  * Enumeration: nvmlDeviceGetCount is called once at the start of every
//    cycle (cheap; it notices GPUs appearing or vanishing); identities (UUID,
//    name, PCI bus id, minor number) are read when the count changes.
//  * Capabilities: a call answering NOT_SUPPORTED, FUNCTION_NOT_FOUND,
//    NO_PERMISSION or ARGUMENT_VERSION_MISMATCH is not made again for that
//    GPU (memory info falls back from _v2 to v1); a field of the batched
//    nvmlDeviceGetFieldValues call answering NOT_SUPPORTED leaves the batch.
//    Other errors (UNKNOWN, TIMEOUT, ...) lose the value for this cycle only
//    and are counted per (function, error).
//  * Lost GPUs: GPU_IS_LOST from any call marks the GPU lost for the cycle
//    (its series disappear, llmon_gpu_up 0); each later cycle re-acquires its
//    handle by index and it comes back under the same labels.
//  * Counters: PCIe byte counters wrap (32 or 64 bits, by value type); the
//    sampler unfolds them and derives per-second rates from the cycle times.
//  * Processes: the running-process lists are read into a buffer sized for
//    the larger (32-byte) entry stride, pre-filled with 0xAA, and the stride
//    the driver really wrote is detected from the untouched tail (R535
//    drivers wrote 32-byte entries through the 24-byte _v3 ABI). Per-process
//    utilisation asks only for samples newer than the last one seen.
//  * GPM (Hopper and newer): two device samples per GPU, alternately
//    refreshed; each cycle's metrics are computed between the last two, so
//    they cover exactly one collection interval (DCGM_FI_PROF_* values).
//  * Garbage from the driver (utilisation above 100 %, a temperature of
//    4294967295) is dropped, not exported.
// Calls per GPU per cycle are kept low: static values are read at
// enumeration, power limits and MIG layout every `slow_every` cycles, and
// up to 32 values (counters, ECC, NVLink, violations) come from one
// nvmlDeviceGetFieldValues call; GPM adds two calls on Hopper and newer.
#pragma once

#include <bitset>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/log.h"
#include "gpu/nvml/nvml_library.h"
#include "gpu/nvml/sample.h"

namespace llmon::gpu::nvml {

struct SamplerOptions {
  int slow_every = 10;    // cycles between reads of slowly changing values
  bool processes = true;  // read process lists and per-process utilisation
  bool gpm = true;        // GPM metrics (SM, tensor, DRAM activity) where the GPU has them
};

class NvmlSampler {
 public:
  NvmlSampler(const NvmlLibrary& lib, base::Logger& log, SamplerOptions opt = {});
  ~NvmlSampler();

  // One cycle at time now_ms (the collection timestamp, used for rates).
  // Fills `out` (devices, nvml_calls, errors_total); `out.up` is false when
  // the device count cannot be read.
  void sample(int64_t now_ms, Sample& out);

  // Handles of the present GPUs with their UUIDs (for the event watcher).
  struct Handle {
    Device handle;
    std::string uuid;
  };
  std::vector<Handle> handles() const;
  // Bumped whenever handles() changes.
  uint64_t generation() const { return generation_; }

  struct Dev;

 private:
  void enumerate(unsigned count);
  bool acquire(Dev& d);
  void read_device(Dev& d, DeviceSample& s, int64_t now_ms, bool slow);
  void read_fields(Dev& d, DeviceSample& s, int64_t now_ms);
  void read_fallback_counters(Dev& d, DeviceSample& s, bool slow);
  void read_processes(Dev& d, DeviceSample& s);
  void read_process_list(Dev& d, Fn f, char type, std::vector<ProcessSample>& out);
  void read_process_utilization(Dev& d, std::vector<ProcessSample>& procs);
  void read_mig(Dev& d, DeviceSample& s, bool slow);
  void read_gpm(Dev& d, DeviceSample& s);
  // Classifies a return code; true on success. Updates d's capabilities.
  bool check(Dev& d, Fn f, Return r);
  void count_error(Fn f, Return r);

  const NvmlLibrary& lib_;
  base::Logger& log_;
  SamplerOptions opt_;
  std::vector<std::unique_ptr<Dev>> devs_;
  bool enumerated_ = false;
  uint64_t cycle_ = 0;
  uint64_t generation_ = 0;
  std::map<std::pair<std::string, std::string>, uint64_t> errors_;
  std::set<std::pair<std::string, std::string>> warned_;
  std::vector<unsigned char> proc_buf_;
  std::vector<ProcessUtilizationSample> util_buf_;
  std::unique_ptr<GpmMetricsGet> gpm_buf_;
};

}  // namespace llmon::gpu::nvml
