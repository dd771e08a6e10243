// Global state, scenario loading, the Call guard and the call log of the fake NVML. See fake_state.h.
#include "fake_state.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <variant>

namespace fake_nvml {

State& state() {
  // Never destroyed: other threads may still be inside NVML calls while the process exits.
  static State* s = new State;
  return *s;
}

nvmlReturn_t State::init() {
  if (init_count > 0) {
    ++init_count;
    return NVML_SUCCESS;
  }
  const char* env = std::getenv("LLMON_FAKE_NVML_SCENARIO");
  const std::string path = env ? env : "";
  Scenario s;
  if (!path.empty()) {
    auto r = load_scenario_file(path);
    if (auto* err = std::get_if<std::string>(&r)) {
      std::fprintf(stderr, "fake libnvidia-ml: scenario %s\n", err->c_str());
      return NVML_ERROR_UNKNOWN;
    }
    s = std::move(std::get<Scenario>(r));
  }
  if (s.init_error && *s.init_error != NVML_SUCCESS) return *s.init_error;

  // The timeline continues across shutdown/init of the same scenario (an agent re-initialising NVML must not
  // replay it); a different scenario path starts a new one.
  if (!loaded_any || path != loaded_path) getcount_calls = 0;
  loaded_any = true;
  loaded_path = path;
  scenario = std::move(s);
  ++generation;
  gpu_handles.clear();
  mig_handles.clear();
  for (size_t g = 0; g < scenario.devices.size(); ++g) {
    gpu_handles.push_back(handle_for(static_cast<int>(g), -1));
    mig_handles.emplace_back();
    for (size_t m = 0; m < scenario.devices[g].mig.instances.size(); ++m)
      mig_handles.back().push_back(handle_for(static_cast<int>(g), static_cast<int>(m)));
  }
  for (auto* set : event_sets) set->masks.clear();
  delivered_events.clear();
  const char* log = std::getenv("LLMON_FAKE_NVML_CALL_LOG");
  call_log_path = log ? log : "";
  init_count = 1;
  return NVML_SUCCESS;
}

nvmlDevice_st* State::handle_for(int gpu, int mig) {
  nvmlDevice_st*& h = handles_by_index[{gpu, mig}];
  if (!h) {
    handle_storage.push_back(nvmlDevice_st{0, gpu, mig});
    h = &handle_storage.back();
    known_handles.insert(h);
  }
  h->generation = generation;
  return h;
}

nvmlReturn_t State::shutdown() {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (--init_count == 0) {
    write_call_log();
    tick_cv.notify_all();
  }
  return NVML_SUCCESS;
}

void State::advance_tick() {
  ++getcount_calls;
  write_call_log();
  tick_cv.notify_all();
}

void State::write_call_log() const {
  if (call_log_path.empty()) return;
  const std::string tmp = call_log_path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return;
  for (const auto& [fn, n] : call_counts) std::fprintf(f, "%s %llu\n", fn.c_str(), static_cast<unsigned long long>(n));
  std::fprintf(f, "ticks %llu\n", static_cast<unsigned long long>(getcount_calls));
  const bool ok = std::fclose(f) == 0;
  if (ok) std::rename(tmp.c_str(), call_log_path.c_str());
}

Call::Call(const char* function) : st(state()), lock(st.mu), fn_(function) {
  ++st.call_counts[function];
}

void Call::maybe_hang(const std::vector<Hang>& hangs) {
  if (hung_) return;
  for (const auto& h : hangs) {
    if (!h.ticks.contains(tick()) || !h.function.matches(fn_)) continue;
    hung_ = true;
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(h.ms));
    lock.lock();
    return;
  }
}

std::optional<nvmlReturn_t> Call::injected(const std::vector<ErrorInjection>& errors) const {
  for (const auto& e : errors)
    if (!e.field && e.code != NVML_SUCCESS && e.ticks.contains(tick()) && e.function.matches(fn_)) return e.code;
  return std::nullopt;
}

std::optional<nvmlReturn_t> Call::field_error(unsigned field_id) const {
  for (const auto& e : dev().errors)
    if (e.field == field_id && e.ticks.contains(tick()) && e.function.matches(fn_)) return e.code;
  return std::nullopt;
}

nvmlReturn_t Call::system() {
  if (st.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  maybe_hang(st.scenario.hangs);
  if (st.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (auto e = injected(st.scenario.errors)) return *e;
  return NVML_SUCCESS;
}

nvmlReturn_t Call::resolve(nvmlDevice_t h) {
  if (st.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (!h || !st.known_handles.count(h) || h->generation != st.generation) return NVML_ERROR_INVALID_ARGUMENT;
  gpu_ = h->gpu;
  mig_ = h->mig;
  return NVML_SUCCESS;
}

nvmlReturn_t Call::device(nvmlDevice_t h, bool mig_ok) {
  if (nvmlReturn_t r = resolve(h); r != NVML_SUCCESS) return r;
  if (!hung_) {
    maybe_hang(dev().hangs);
    if (hung_) {
      if (nvmlReturn_t r = resolve(h); r != NVML_SUCCESS) return r;
    }
  }
  if (dev().lost_at(tick())) return NVML_ERROR_GPU_IS_LOST;
  if (auto e = injected(dev().errors)) return *e;
  if (mig_ >= 0 && !mig_ok) return NVML_ERROR_NOT_SUPPORTED;
  return NVML_SUCCESS;
}

nvmlReturn_t Call::index(unsigned idx) {
  if (st.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (idx >= st.gpu_handles.size()) return NVML_ERROR_INVALID_ARGUMENT;
  return device(st.gpu_handles[idx]);
}

nvmlReturn_t copy_string(const std::string& s, char* out, unsigned length) {
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  if (s.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return NVML_SUCCESS;
}

}  // namespace fake_nvml
