// Injectable wall clock. Collectors and the scheduler take a Clock& so tests
// can drive time; SystemClock is the real one. Implementations are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace llmon::base {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch.
  virtual int64_t now_ms() const = 0;
};

class SystemClock final : public Clock {
 public:
  int64_t now_ms() const override;
};

// A clock tests set by hand (atomic: a test thread may move it while the
// code under test reads it).
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t ms = 0) : ms_(ms) {}
  int64_t now_ms() const override { return ms_.load(std::memory_order_relaxed); }
  void set_ms(int64_t ms) { ms_.store(ms, std::memory_order_relaxed); }
  void advance_ms(int64_t d) { ms_.fetch_add(d, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> ms_;
};

// Monotonic seconds for measuring durations (not injectable: durations are
// reported, never compared with test expectations).
double monotonic_seconds();

}  // namespace llmon::base
