// Exported NVML event functions of the fake. Each scenario event is delivered once (to the first set that asks for
// it: a real driver does not replay past events to a set created later), as soon as the
// tick has reached the event's tick and the set holds a registration for its device and type; a waiter that finds
// nothing sleeps on the state's condition variable (mutex released) and re-checks whenever the tick advances.
#include <chrono>

#include "fake_state.h"

using fake_nvml::Call;

FAKE_NVML_API nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  Call c("nvmlEventSetCreate");
  if (nvmlReturn_t r = c.system()) return r;
  if (!set) return NVML_ERROR_INVALID_ARGUMENT;
  *set = new nvmlEventSet_st;
  c.st.event_sets.insert(*set);
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  Call c("nvmlEventSetFree");
  if (nvmlReturn_t r = c.system()) return r;
  if (!c.st.event_sets.erase(set)) return NVML_ERROR_INVALID_ARGUMENT;
  delete set;
  c.st.tick_cv.notify_all();  // a waiter on this set returns INVALID_ARGUMENT
  return NVML_SUCCESS;
}

FAKE_NVML_API nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long* types) {
  Call c("nvmlDeviceGetSupportedEventTypes");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!types) return NVML_ERROR_INVALID_ARGUMENT;
  *types = c.dev().supported_events;
  return NVML_SUCCESS;
}

// As documented for the real call: if any requested type is unsupported nothing is registered (NOT_SUPPORTED).
FAKE_NVML_API nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set) {
  Call c("nvmlDeviceRegisterEvents");
  if (nvmlReturn_t r = c.device(device)) return r;
  if (!c.st.event_sets.count(set)) return NVML_ERROR_INVALID_ARGUMENT;
  if (types & ~c.dev().supported_events) return NVML_ERROR_NOT_SUPPORTED;
  set->masks[c.gpu()] |= types;
  return NVML_SUCCESS;
}

static nvmlReturn_t event_wait(const char* fn, nvmlEventSet_t set, nvmlEventData_t* data, unsigned timeout_ms) {
  Call c(fn);
  if (nvmlReturn_t r = c.system()) return r;
  if (!data) return NVML_ERROR_INVALID_ARGUMENT;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (c.st.init_count == 0) return NVML_ERROR_UNINITIALIZED;
    if (!c.st.event_sets.count(set)) return NVML_ERROR_INVALID_ARGUMENT;
    // The earliest undelivered event (by tick, then GPU, then order in the scenario) that is due.
    const fake_nvml::Event* best = nullptr;
    std::pair<int, size_t> best_key;
    for (const auto& [gpu, mask] : set->masks) {
      const auto& events = c.st.scenario.devices[gpu].events;
      for (size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        if (e.tick > c.tick() || !(e.type & mask) || c.st.delivered_events.count({gpu, i})) continue;
        if (!best || e.tick < best->tick) {
          best = &e;
          best_key = {gpu, i};
        }
      }
    }
    if (best) {
      c.st.delivered_events.insert(best_key);
      data->device = c.st.gpu_handles[best_key.first];
      data->eventType = best->type;
      data->eventData = best->data;
      data->gpuInstanceId = best->gi;
      data->computeInstanceId = best->ci;
      return NVML_SUCCESS;
    }
    if (std::chrono::steady_clock::now() >= deadline) return NVML_ERROR_TIMEOUT;
    c.st.tick_cv.wait_until(c.lock, deadline);
  }
}

FAKE_NVML_API nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int timeout_ms) {
  return event_wait("nvmlEventSetWait", set, data, timeout_ms);
}
#ifndef FAKE_NVML_LEGACY
FAKE_NVML_API nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int timeout_ms) {
  return event_wait("nvmlEventSetWait_v2", set, data, timeout_ms);
}
#endif
