// NvmlBackend: NVIDIA GPUs through NVML, without DCGM. It loads the library
// (--nvml.library, default "libnvidia-ml.so.1"), initialises NVML and runs
// NvmlSampler on a worker thread of its own, so that a driver call that
// hangs never stalls the agent's collection cycle:
//
//  collect(now) hands the worker one request and waits at most timeout_ms.
//  If the worker has not answered, the cycle goes on without GPU data
//  (timed_out); while the worker is still inside that call, later cycles do
//  not queue behind it but answer `stuck` at once. When the call finally
//  returns, the next cycle samples normally.
//
// No library, no driver or no GPU is not an error: the sample says up=false
// with the reason, logged once at info level; initialisation is retried
// quietly every retry_ms (a driver loaded after llmon started is picked up).
// An EventWatcher thread counts Xid and other critical events. At
// destruction the worker calls nvmlShutdown and unloads the library, unless
// it is stuck in the driver: then it is abandoned and the library stays
// mapped. collect() is for one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "gpu/nvml/nvml_sampler.h"
#include "gpu/nvml/sample.h"

namespace llmon::gpu::nvml {

struct BackendOptions {
  std::string library = "libnvidia-ml.so.1";
  int64_t timeout_ms = 2000;
  // The first sample includes dlopen and nvmlInit, which take seconds on a
  // large host without persistence mode: it may take this long instead,
  // and running over is reported as `initialising`, not as a timeout.
  int64_t first_timeout_ms = 10000;
  int64_t retry_ms = 30000;
  bool events = true;
  unsigned event_wait_ms = 500;
  SamplerOptions sampler;
};

class NvmlBackend {
 public:
  NvmlBackend(BackendOptions opt, base::Logger& log);
  ~NvmlBackend();
  NvmlBackend(const NvmlBackend&) = delete;
  NvmlBackend& operator=(const NvmlBackend&) = delete;

  struct Result {
    std::shared_ptr<const Sample> sample;  // null on timeout / stuck
    bool timed_out = false;                // this cycle waited timeout_ms in vain
    bool stuck = false;                    // an earlier call is still inside the driver
    bool initialising = false;             // the first sample (library load, nvmlInit) is still running
    double seconds = 0;                    // how long the sampling took (or was waited for)
  };
  Result collect(int64_t now_ms);

  uint64_t timeouts() const;
  // Total NVML calls so far (all threads); 0 before the library is loaded.
  uint64_t calls() const;
  // Seconds spent inside each NVML function the library resolved (its
  // newest name), in table order; empty before the library is loaded.
  struct FunctionTime {
    std::string_view function;
    double seconds = 0;
  };
  std::vector<FunctionTime> call_seconds() const;

  struct State;

 private:
  std::shared_ptr<State> s_;
};

}  // namespace llmon::gpu::nvml
