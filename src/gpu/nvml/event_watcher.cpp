#include "gpu/nvml/event_watcher.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace llmon::gpu::nvml {
namespace {

constexpr unsigned long long kWanted =
    kEventXidCriticalError | kEventDoubleBitEcc | kEventSingleBitEcc | kEventGpuUnavailable | kEventGpuRecoveryAction;

const char* type_name(unsigned long long t) {
  if (t & kEventXidCriticalError) return "xid";
  if (t & kEventDoubleBitEcc) return "dbe";
  if (t & kEventSingleBitEcc) return "sbe";
  if (t & kEventGpuUnavailable) return "gpu_unavailable";
  if (t & kEventGpuRecoveryAction) return "recovery_action";
  return "other";
}

}  // namespace

struct EventWatcher::State {
  explicit State(const base::Logger& l) : own_log(l), log(&own_log) {}
  std::shared_ptr<NvmlLibrary> lib;
  base::Logger own_log;  // a copy: an abandoned watcher may outlive the caller's logger
  base::Logger* log;
  unsigned wait_ms = 500;

  mutable std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  bool exited = false;
  bool running = false;   // the set exists and at least one GPU is registered
  uint64_t want_gen = 0;  // bumped by watch()
  std::vector<NvmlSampler::Handle> want;
  std::map<std::string, EventCounts> counts;  // by UUID

  void run();
};

void EventWatcher::State::run() {
  EventSet set = nullptr;
  uint64_t have_gen = 0;
  std::map<Device, std::string> uuid_of;
  bool warned = false;
  for (;;) {
    std::vector<NvmlSampler::Handle> todo;
    bool re = false;
    {
      std::unique_lock lk(mu);
      if (stop) break;
      if (want_gen != have_gen) {
        todo = want;
        have_gen = want_gen;
        re = true;
      }
    }
    if (re) {
      if (set) lib->call<FnEventSetFree>(Fn::kEventSetFree, set);
      set = nullptr;
      uuid_of.clear();
      Return r = lib->call<FnEventSetCreate>(Fn::kEventSetCreate, &set);
      if (r != kSuccess) {
        set = nullptr;
        if (!warned) log->info("NVML events unavailable; Xid counters are off", {{"error", lib->error_string(r)}});
        warned = true;
      } else {
        for (const auto& h : todo) {
          unsigned long long supported = 0;
          if (lib->call<FnDevU64>(Fn::kSupportedEventTypes, h.handle, &supported) != kSuccess)
            supported = kEventXidCriticalError;
          unsigned long long mask = supported & kWanted;
          if (mask == 0) continue;
          if (lib->call<FnRegisterEvents>(Fn::kRegisterEvents, h.handle, mask, set) == kSuccess)
            uuid_of[h.handle] = h.uuid;
        }
      }
      std::lock_guard lk(mu);
      running = set != nullptr && !uuid_of.empty();
    }
    if (!set || uuid_of.empty()) {
      std::unique_lock lk(mu);
      cv.wait_for(lk, std::chrono::milliseconds(wait_ms), [&] { return stop || want_gen != have_gen; });
      continue;
    }
    EventData data{};
    Return r = lib->call<FnEventSetWait>(Fn::kEventSetWait, set, &data, wait_ms);
    if (r == kErrTimeout) continue;
    if (r != kSuccess) {
      // GPU lost, driver trouble: do not spin; the next watch() re-creates the set.
      std::unique_lock lk(mu);
      cv.wait_for(lk, std::chrono::milliseconds(wait_ms), [&] { return stop; });
      continue;
    }
    auto it = uuid_of.find(data.device);
    if (it == uuid_of.end()) continue;
    std::lock_guard lk(mu);
    EventCounts& c = counts[it->second];
    const char* type = type_name(data.eventType);
    ++c.by_type[type];
    if (data.eventType & kEventXidCriticalError) {
      ++c.xid[data.eventData];
      c.last_xid = static_cast<double>(data.eventData);
      log->warn("GPU Xid error", {{"UUID", it->second}, {"xid", std::to_string(data.eventData)}});
    }
  }
  if (set) lib->call<FnEventSetFree>(Fn::kEventSetFree, set);
  std::lock_guard lk(mu);
  exited = true;
  running = false;
  cv.notify_all();
}

EventWatcher::EventWatcher(std::shared_ptr<NvmlLibrary> lib, base::Logger& log, unsigned wait_ms)
    : s_(std::make_shared<State>(log)) {
  s_->lib = std::move(lib);
  s_->wait_ms = wait_ms;
  std::thread([s = s_] { s->run(); }).detach();
}

EventWatcher::~EventWatcher() {
  std::unique_lock lk(s_->mu);
  s_->stop = true;
  s_->cv.notify_all();
  // The thread returns within one wait; a driver that hangs is abandoned.
  if (!s_->cv.wait_for(lk, std::chrono::milliseconds(4 * s_->wait_ms + 1000), [&] { return s_->exited; }))
    s_->lib->leak_on_destroy();
}

void EventWatcher::watch(std::vector<NvmlSampler::Handle> handles) {
  std::lock_guard lk(s_->mu);
  s_->want = std::move(handles);
  ++s_->want_gen;
  s_->cv.notify_all();
}

bool EventWatcher::counts(const std::string& uuid, EventCounts& out) const {
  std::lock_guard lk(s_->mu);
  if (!s_->running) return false;
  auto it = s_->counts.find(uuid);
  out = it == s_->counts.end() ? EventCounts{} : it->second;
  return true;
}

}  // namespace llmon::gpu::nvml
