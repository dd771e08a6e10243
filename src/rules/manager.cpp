// Rule manager: schedules groups and reloads them (Prometheus 2.42
// rules/manager.go: Manager.Update, Group.run).
#include "rules/manager.h"

#include <algorithm>
#include <chrono>
#include <set>

namespace llmon::rules {

struct Manager::Runner {
  std::shared_ptr<Group> group;
  std::atomic<bool> stop{false};          // set by update()/stop(): leave after the current rule
  std::atomic<bool> mark_stale{false};    // removed by a reload: write staleness markers later
  std::atomic<bool> finished{false};      // the thread has returned
  std::atomic<int64_t> stopped_at_ms{0};  // when a reload removed it (clock time)
  bool should_restore = false;            // restore `for` state after the second evaluation
  std::thread thread;
};

Manager::Manager(ManagerOptions options) : options_(std::move(options)) {}

Manager::~Manager() {
  stop();
}

Status Manager::update(std::vector<GroupSpec> specs) {
  std::lock_guard lock(mu_);
  if (stopped_) return Status::error("rule manager: update after stop");
  std::vector<std::shared_ptr<Group>> fresh;
  std::set<std::string> keys;
  for (auto& spec : specs) {
    std::string key = spec.file + ";" + spec.name;
    if (!keys.insert(key).second)
      return Status::error(spec.file + ": groupname: \"" + spec.name + "\" is repeated in the same file");
    GroupOptions opts = options_.group;
    opts.restored = restored_;
    auto g = Group::create(std::move(spec), std::move(opts));
    if (!g) return g.status();
    fresh.push_back(std::shared_ptr<Group>(std::move(*g)));
  }
  const bool first = !restored_;
  restored_ = true;

  std::map<std::string, std::shared_ptr<Runner>> next;
  for (auto& g : fresh) {
    const std::string key = g->key();
    auto old = runners_.find(key);
    if (old != runners_.end() && old->second->group->equals(*g)) {
      next[key] = old->second;
      runners_.erase(old);
      continue;
    }
    auto r = std::make_shared<Runner>();
    r->group = g;
    r->should_restore = first;
    if (old != runners_.end()) {
      Runner& o = *old->second;
      o.stop = true;
      wake();
      if (o.thread.joinable()) o.thread.join();
      g->copy_state_from(*o.group);
      runners_.erase(old);
    }
    next[key] = r;
    if (started_) start_runner_locked(r);
  }
  // Groups that are gone: stop them; once two of their intervals have
  // passed their series are marked stale (unless the manager stops first).
  for (auto& [key, r] : runners_) {
    if (!r->thread.joinable()) continue;  // never ran: nothing written
    r->stopped_at_ms = options_.group.clock->now_ms();
    r->mark_stale = true;
    r->stop = true;
    retired_.push_back(r);
  }
  runners_ = std::move(next);
  wake();
  // Reap retired runners that are done.
  for (auto it = retired_.begin(); it != retired_.end();) {
    if ((*it)->finished) {
      (*it)->thread.join();
      it = retired_.erase(it);
    } else {
      ++it;
    }
  }
  return Status::ok();
}

void Manager::start() {
  std::lock_guard lock(mu_);
  if (started_ || stopped_) return;
  started_ = true;
  for (auto& [key, r] : runners_) start_runner_locked(r);
}

void Manager::start_runner_locked(const std::shared_ptr<Runner>& r) {
  if (r->thread.joinable() || stopped_) return;
  Runner* raw = r.get();
  r->thread = std::thread([this, raw] {
    run(*raw);
    raw->finished = true;
  });
}

void Manager::stop() {
  std::vector<std::shared_ptr<Runner>> all;
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    done_ = true;
    for (auto& [key, r] : runners_) {
      r->stop = true;
      all.push_back(r);
    }
    for (auto& r : retired_) all.push_back(r);
    retired_.clear();
  }
  wake();
  for (auto& r : all)
    if (r->thread.joinable()) r->thread.join();
}

void Manager::wake() {
  std::lock_guard lock(wait_mu_);
  ++wake_seq_;
  wait_cv_.notify_all();
}

bool Manager::wait_until(int64_t deadline_ms, const std::atomic<bool>* abort) {
  const base::Clock& clock = *options_.group.clock;
  std::unique_lock lock(wait_mu_);
  for (;;) {
    if (done_ || (abort && *abort)) return false;
    const int64_t now = clock.now_ms();
    if (now >= deadline_ms) return true;
    const int64_t sleep_ms = std::max<int64_t>(1, std::min(deadline_ms - now, options_.max_sleep_ms));
    wait_cv_.wait_for(lock, std::chrono::milliseconds(sleep_ms));
  }
}

void Manager::iterate(Runner& r, int64_t ts_ms) {
  r.group->eval(ts_ms, [&r] { return r.stop.load(); });
}

void Manager::run(Runner& r) {
  Group& g = *r.group;
  const base::Clock& clock = *options_.group.clock;
  const int64_t interval = g.interval_ms();
  // The first evaluation is at the group's next slot.
  int64_t eval_ts = g.eval_timestamp(clock.now_ms()) + interval;
  // Waits for the next tick; counts the slots that went by meanwhile.
  auto next_tick = [&]() -> bool {
    if (!wait_until(eval_ts + interval, &r.stop)) return false;
    const int64_t missed = std::max<int64_t>(0, (clock.now_ms() - eval_ts) / interval - 1);
    eval_ts += (missed + 1) * interval;
    g.count_iteration(static_cast<uint64_t>(missed));
    return true;
  };
  bool running = wait_until(eval_ts, &r.stop);
  if (running) {
    g.count_iteration(0);
    iterate(r, eval_ts);
  }
  if (running && r.should_restore) {
    // Prometheus restores after a second evaluation: recording rules the
    // alerts depend on have caught up by then.
    running = next_tick();
    if (running) {
      iterate(r, eval_ts);
      g.restore_for_state(clock.now_ms());
      r.should_restore = false;
    }
  }
  while (running && next_tick()) iterate(r, eval_ts);

  if (r.mark_stale) {
    // Removed by a reload: give a renamed group two intervals to write the
    // same series first, then mark them stale as of the removal.
    const int64_t stopped_at = r.stopped_at_ms;
    if (wait_until(stopped_at + 2 * interval, nullptr)) g.mark_stale(stopped_at);
  }
}

std::vector<std::shared_ptr<Group>> Manager::groups() const {
  std::vector<std::shared_ptr<Group>> out;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, r] : runners_) out.push_back(r->group);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a->file() != b->file()) return a->file() < b->file();
    return a->name() < b->name();
  });
  return out;
}

std::vector<GroupSnapshot> Manager::snapshot() const {
  std::vector<GroupSnapshot> out;
  for (const auto& g : groups()) out.push_back(g->snapshot());
  return out;
}

std::map<std::string, GroupCounters> Manager::counters() const {
  std::map<std::string, GroupCounters> out;
  for (const auto& g : groups()) out[g->key()] = g->counters();
  return out;
}

}  // namespace llmon::rules
