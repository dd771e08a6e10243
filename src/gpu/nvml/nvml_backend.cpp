#include "gpu/nvml/nvml_backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "gpu/nvml/event_watcher.h"
#include "gpu/nvml/nvml_library.h"

namespace llmon::gpu::nvml {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string read_string(const NvmlLibrary& lib, Fn f) {
  char buf[kSystemVersionBufferSize] = {};
  if (lib.call<FnString>(f, buf, kSystemVersionBufferSize) != kSuccess) return "";
  return std::string(buf, strnlen(buf, sizeof buf));
}

}  // namespace

struct NvmlBackend::State {
  explicit State(const base::Logger& l) : own_log(l), log(&own_log) {}
  BackendOptions opt;
  // The worker's own logger (a copy): an abandoned worker may outlive the
  // agent's logger.
  base::Logger own_log;
  base::Logger* log;

  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  bool exited = false;
  bool busy = false;
  uint64_t req_seq = 0, done_seq = 0;
  int64_t req_ms = 0;
  std::shared_ptr<const Sample> result;
  uint64_t timeouts = 0;
  bool answered_once = false;  // a sample has completed
  // While NVML is down (no library, no driver), the time of the next
  // initialisation attempt: until then collect() answers with the cached
  // "down" sample itself, without waking the worker (hosts without NVIDIA
  // pay nothing per cycle). Written by the worker under mu.
  int64_t down_until_ms = 0;

  // Worker-thread only (calls read atomically through lib).
  std::shared_ptr<NvmlLibrary> lib;
  std::atomic<NvmlLibrary*> lib_view{nullptr};
  std::unique_ptr<NvmlSampler> sampler;
  std::unique_ptr<EventWatcher> watcher;
  uint64_t watched_gen = ~0ull;
  bool initialised = false;
  int64_t next_try_ms = 0;
  std::string down_reason;
  bool logged_down = false;
  std::string driver, nvml_version, cuda;

  void run();
  std::shared_ptr<const Sample> sample_once(int64_t now_ms);
  bool init(int64_t now_ms);
  void shutdown();
};

bool NvmlBackend::State::init(int64_t now_ms) {
  if (initialised) return true;
  if (now_ms < next_try_ms) return false;
  next_try_ms = now_ms + opt.retry_ms;
  if (!lib) {
    auto l = NvmlLibrary::load(opt.library);
    if (!l) {
      down_reason = l.error();
      if (!logged_down) log->info("NVIDIA GPU metrics off: NVML library not loaded", {{"reason", down_reason}});
      logged_down = true;
      return false;
    }
    lib = std::shared_ptr<NvmlLibrary>(std::move(*l));
    lib_view.store(lib.get());
  }
  Return r = lib->call<FnVoid>(Fn::kInit);
  if (r != kSuccess) {
    down_reason = "nvmlInit: " + lib->error_string(r);
    if (!logged_down) log->info("NVIDIA GPU metrics off: NVML did not initialise", {{"reason", down_reason}});
    logged_down = true;
    return false;
  }
  initialised = true;
  driver = read_string(*lib, Fn::kDriverVersion);
  nvml_version = read_string(*lib, Fn::kNvmlVersion);
  int cv_int = 0;
  if (lib->call<FnInt>(Fn::kCudaDriverVersion, &cv_int) == kSuccess && cv_int > 0)
    cuda = std::to_string(cv_int / 1000) + "." + std::to_string((cv_int % 1000) / 10);
  sampler = std::make_unique<NvmlSampler>(*lib, *log, opt.sampler);
  if (opt.events && lib->has(Fn::kEventSetCreate) && lib->has(Fn::kEventSetWait) && lib->has(Fn::kRegisterEvents))
    watcher = std::make_unique<EventWatcher>(lib, *log, opt.event_wait_ms);
  log->info("NVML initialised", {{"library", std::string(opt.library)},
                                 {"driver_version", driver},
                                 {"nvml_version", nvml_version},
                                 {"cuda_driver_version", cuda}});
  logged_down = false;
  return true;
}

std::shared_ptr<const Sample> NvmlBackend::State::sample_once(int64_t now_ms) {
  auto s = std::make_shared<Sample>();
  if (!init(now_ms)) {
    s->up = false;
    s->reason = down_reason;
    return s;
  }
  s->driver_version = driver;
  s->nvml_version = nvml_version;
  s->cuda_driver_version = cuda;
  sampler->sample(now_ms, *s);
  if (!s->up && !logged_down) {
    log->warn("NVML stopped answering", {{"reason", s->reason}});
    logged_down = true;
  } else if (s->up) {
    logged_down = false;
  }
  if (watcher) {
    if (sampler->generation() != watched_gen) {
      watcher->watch(sampler->handles());
      watched_gen = sampler->generation();
    }
    for (auto& d : s->devices) d.events_watched = watcher->counts(d.id.uuid, d.events);
  }
  return s;
}

void NvmlBackend::State::shutdown() {
  watcher.reset();
  sampler.reset();
  if (lib && initialised) lib->call<FnVoid>(Fn::kShutdown);
  initialised = false;
}

void NvmlBackend::State::run() {
  for (;;) {
    int64_t now = 0;
    uint64_t seq = 0;
    {
      std::unique_lock lk(mu);
      cv.wait(lk, [&] { return stop || req_seq != done_seq; });
      if (stop) break;
      busy = true;
      now = req_ms;
      seq = req_seq;
    }
    auto r = sample_once(now);
    std::lock_guard lk(mu);
    down_until_ms = initialised ? 0 : next_try_ms;
    result = std::move(r);
    done_seq = seq;
    answered_once = true;
    busy = false;
    cv.notify_all();
    if (stop) break;
  }
  shutdown();
  std::lock_guard lk(mu);
  exited = true;
  cv.notify_all();
}

NvmlBackend::NvmlBackend(BackendOptions opt, base::Logger& log) : s_(std::make_shared<State>(log)) {
  s_->opt = std::move(opt);
  std::thread([s = s_] { s->run(); }).detach();
}

NvmlBackend::~NvmlBackend() {
  std::unique_lock lk(s_->mu);
  s_->stop = true;
  s_->cv.notify_all();
  if (!s_->cv.wait_for(lk, std::chrono::seconds(5), [&] { return s_->exited; })) {
    s_->log->warn("NVML worker stuck in a driver call at shutdown; abandoning it");
    if (auto* l = s_->lib_view.load()) l->leak_on_destroy();
  }
}

NvmlBackend::Result NvmlBackend::collect(int64_t now_ms) {
  Result res;
  auto t0 = std::chrono::steady_clock::now();
  std::unique_lock lk(s_->mu);
  if (s_->busy) {
    res.stuck = s_->answered_once;
    res.initialising = !s_->answered_once;
    return res;
  }
  if (s_->answered_once && s_->result && !s_->result->up && now_ms < s_->down_until_ms) {
    res.sample = s_->result;  // NVML down and not due for a retry: nothing to ask the worker
    return res;
  }
  uint64_t seq = ++s_->req_seq;
  s_->req_ms = now_ms;
  s_->cv.notify_all();
  int64_t wait_ms = s_->answered_once ? s_->opt.timeout_ms : std::max(s_->opt.timeout_ms, s_->opt.first_timeout_ms);
  bool done = s_->cv.wait_for(lk, std::chrono::milliseconds(wait_ms), [&] { return s_->done_seq == seq; });
  res.seconds = seconds_since(t0);
  if (!done && !s_->answered_once) {
    res.initialising = true;
    s_->log->info("NVML still initialising; GPU series will follow", {{"waited_ms", std::to_string(wait_ms)}});
    return res;
  }
  if (!done) {
    ++s_->timeouts;
    res.timed_out = true;
    s_->log->warn("NVML sampling timed out; GPU series skipped this cycle",
                  {{"timeout_ms", std::to_string(s_->opt.timeout_ms)}});
    return res;
  }
  res.sample = s_->result;
  return res;
}

uint64_t NvmlBackend::timeouts() const {
  std::lock_guard lk(s_->mu);
  return s_->timeouts;
}

uint64_t NvmlBackend::calls() const {
  auto* l = s_->lib_view.load();
  return l ? l->total_calls() : 0;
}

std::vector<NvmlBackend::FunctionTime> NvmlBackend::call_seconds() const {
  std::vector<FunctionTime> out;
  auto* l = s_->lib_view.load();
  if (l == nullptr) return out;
  for (size_t i = 0; i < kFnCount; ++i) {
    auto f = static_cast<Fn>(i);
    if (l->has(f)) out.push_back({NvmlLibrary::function_name(f), static_cast<double>(l->nanos(f)) * 1e-9});
  }
  return out;
}

}  // namespace llmon::gpu::nvml
