// Process-wide state of the fake libnvidia-ml.so.1: the loaded scenario, the tick (number of nvmlDeviceGetCount*
// calls), handles, event sets, GPM sample buffers and per-function call counts, behind one mutex. A shared library
// that implements a C ABI with init/shutdown reference counting has to keep this state global; it lives only here.
// Thread-safety: every exported function takes the mutex through a Call; nothing sleeps while holding it
// (hangs release it; nvmlEventSetWait waits on a condition variable).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "nvml_types.h"
#include "scenario.h"

#define FAKE_NVML_API extern "C" __attribute__((visibility("default")))

// Opaque to callers; the fake's own definitions.
struct nvmlDevice_st {
  uint64_t generation;  // last scenario load that has this device; handles of other loads are rejected
  int gpu;              // index into Scenario::devices
  int mig;              // index into Device::mig.instances, -1 for the physical GPU
};
struct nvmlEventSet_st {
  std::map<int, unsigned long long> masks;     // gpu index -> registered event types
};

// A GPM sample buffer (nvmlGpmSampleAlloc): which GPU (and GPU instance) it was last filled on, and at which tick.
struct nvmlGpmSample_st {
  bool filled = false;
  nvmlDevice_st* device = nullptr;       // the GPU handle passed to nvmlGpm(Mig)SampleGet
  std::optional<unsigned> gpu_instance;  // nvmlGpmMigSampleGet's gpuInstanceId; nullopt: the whole GPU
  uint64_t tick = 0;
};

namespace fake_nvml {

struct State {
  std::mutex mu;
  std::set<std::pair<int, size_t>> delivered_events;  // (gpu index, event index) already returned to some set
  std::condition_variable tick_cv;  // notified on every tick advance and on shutdown

  int init_count = 0;
  bool loaded_any = false;
  std::string loaded_path;
  Scenario scenario;
  uint64_t generation = 0;
  uint64_t getcount_calls = 0;  // tick = getcount_calls - 1 (0 before the first call)

  // One handle per (gpu index, MIG slot index) for the life of the process, like the driver's: a handle survives
  // shutdown/init; one whose index the current scenario lacks has an old generation and is rejected.
  std::deque<nvmlDevice_st> handle_storage;
  std::map<std::pair<int, int>, nvmlDevice_st*> handles_by_index;
  std::unordered_set<const nvmlDevice_st*> known_handles;
  std::vector<nvmlDevice_st*> gpu_handles;
  std::vector<std::vector<nvmlDevice_st*>> mig_handles;  // per gpu, per instance
  std::set<nvmlEventSet_st*> event_sets;
  std::unordered_set<nvmlGpmSample_st*> gpm_samples;  // allocated and not yet freed; kept across shutdown/init

  std::map<std::string, uint64_t> call_counts;
  std::string call_log_path;

  Tick tick() const { return getcount_calls ? getcount_calls - 1 : 0; }
  nvmlReturn_t init();  // mutex held
  nvmlDevice_st* handle_for(int gpu, int mig);
  nvmlReturn_t shutdown();
  void advance_tick();  // one nvmlDeviceGetCount* call
  void write_call_log() const;
};

State& state();

// One exported-function invocation: locks the state, counts the call, then one of system()/device()/index()
// applies (in order) the init check, handle validation, hangs, "lost" windows and error injections.
class Call {
 public:
  explicit Call(const char* function);
  nvmlReturn_t system();
  nvmlReturn_t device(nvmlDevice_t h, bool mig_ok = false);
  nvmlReturn_t index(unsigned idx);
  nvmlReturn_t initialized() const { return st.init_count > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED; }

  const Device& dev() const { return st.scenario.devices[gpu_]; }
  int gpu() const { return gpu_; }
  const MigInstance* mig() const { return mig_ >= 0 ? &dev().mig.instances[mig_] : nullptr; }
  Tick tick() const { return st.tick(); }
  std::optional<uint64_t> value(Key k) const { return dev().value(k, tick()); }
  // The injected per-entry error for one field id of nvmlDeviceGetFieldValues, if any.
  std::optional<nvmlReturn_t> field_error(unsigned field_id) const;

  State& st;
  std::unique_lock<std::mutex> lock;

 private:
  nvmlReturn_t resolve(nvmlDevice_t h);
  void maybe_hang(const std::vector<Hang>& hangs);
  std::optional<nvmlReturn_t> injected(const std::vector<ErrorInjection>& errors) const;
  const char* fn_;
  int gpu_ = -1;
  int mig_ = -1;
  bool hung_ = false;
};

// Writes up to `length` bytes of `s` with a NUL; INSUFFICIENT_SIZE if it does not fit, INVALID_ARGUMENT on NULL.
nvmlReturn_t copy_string(const std::string& s, char* out, unsigned length);

}  // namespace fake_nvml
