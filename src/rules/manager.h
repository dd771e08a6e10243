// The rule manager: Prometheus 2.42's rules.Manager. Holds the rule groups
// and evaluates each on its own thread and schedule: the first evaluation at
// the group's next slot (Group::eval_timestamp + interval), then every
// interval; an iteration that overruns skips the slots it missed and counts
// them (iterations_missed_total). Groups loaded by the first update() start
// unrestored: after their second evaluation, the `for` state of their alerts
// is restored from ALERTS_FOR_STATE (Group::restore_for_state), as
// Prometheus does. update() is the reload: an unchanged group (Group::equals)
// keeps running untouched; a changed one is stopped after its current
// iteration and replaced by the new one, which takes over its state
// (Group::copy_state_from); a removed group is stopped and, two of its
// intervals later, gets staleness markers (stamped at the time it stopped)
// for the series it wrote. stop() ends everything without staleness markers.
//
// Time comes from the injected clock; every wait is a condition-variable
// wait that stop() and wake() interrupt and that re-reads the clock at least
// every `max_sleep_ms`, so a test moving a ManualClock drives the schedule
// (move it, call wake(), then poll counters with a deadline).
//
// Thread-safety: all methods may be called from any thread; snapshot() and
// counters() run concurrently with evaluations. Not copyable.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rules/group.h"

namespace llmon::rules {

struct ManagerOptions {
  // Shared by every group; GroupOptions::restored is ignored (the manager
  // decides, see above).
  GroupOptions group;
  // Longest wait before the clock is read again (a ManualClock moved by a
  // test is noticed within this even without wake()).
  int64_t max_sleep_ms = 1000;
};

class Manager {
 public:
  explicit Manager(ManagerOptions options);
  ~Manager();  // stop()
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Replaces the rule groups (reload). Errors (nothing changed then): two
  // groups with the same file and name, a rule without a parsed expr, a
  // required option missing. Groups are only evaluated after start().
  Status update(std::vector<GroupSpec> groups);
  // Starts evaluating (Prometheus's Run: groups loaded before wait for it).
  void start();
  // Stops every group after its current rule and joins the threads; no
  // staleness markers. Idempotent.
  void stop();
  // Makes every wait re-read the clock now.
  void wake();

  // The groups sorted by file, then name (Prometheus's RuleGroups order).
  std::vector<GroupSnapshot> snapshot() const;
  // Counters per group key (file + ";" + name), current groups only.
  std::map<std::string, GroupCounters> counters() const;
  // The groups themselves (same order), e.g. for tests that read alerts.
  std::vector<std::shared_ptr<Group>> groups() const;

 private:
  struct Runner;
  void start_runner_locked(const std::shared_ptr<Runner>& r);
  void run(Runner& r);
  // Waits until clock >= deadline_ms; false once `abort` (if given) or the
  // manager's done_ is set.
  bool wait_until(int64_t deadline_ms, const std::atomic<bool>* abort);
  void iterate(Runner& r, int64_t ts_ms);

  ManagerOptions options_;
  mutable std::mutex mu_;                                   // guards groups_, runners_, started_, stopped_, restored_
  std::map<std::string, std::shared_ptr<Runner>> runners_;  // by group key
  std::vector<std::shared_ptr<Runner>> retired_;            // stopped groups waiting to mark stale
  bool started_ = false;
  bool stopped_ = false;
  bool restored_ = false;  // false until the first update()

  std::atomic<bool> done_{false};  // stop() called
  std::mutex wait_mu_;
  std::condition_variable wait_cv_;
  uint64_t wake_seq_ = 0;  // under wait_mu_
};

}  // namespace llmon::rules
