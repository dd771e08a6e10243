// QueueForwarder: a Forwarder (forwarder.h) made of one thread, a bounded
// queue and a send function. The thread takes up to max_batch events (after
// waiting up to batch_wait_ms for more once one is there), calls send, and:
//   kSent     -> counted as sent;
//   kRejected -> the receiver refused them for good (a 4xx): dropped;
//   kRetry    -> the same batch again after a backoff (retry_min_ms doubling
//                to retry_max_ms), counted in errors; events arriving
//                meanwhile queue up and are dropped once the queue is full.
// stop() gives the queue stop_deadline_ms for one more try, then ends the
// thread and counts what is left as dropped. The send function runs on the
// forwarder's thread only; it may block up to its own timeouts.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "base/clock.h"
#include "logwatch/forwarder.h"

namespace llmon::logwatch {

enum class SendResult : uint8_t { kSent, kRetry, kRejected };
struct SendOutcome {
  SendResult result = SendResult::kSent;
  std::string error;  // with kRetry / kRejected
};
using SendFn = std::function<SendOutcome(const std::vector<Event>& batch)>;

struct QueueOptions {
  size_t max_queue = 10'000;
  size_t max_batch = 500;
  int64_t batch_wait_ms = 200;
  int64_t retry_min_ms = 500;
  int64_t retry_max_ms = 5'000;
  int64_t stop_deadline_ms = 2'000;
};

class QueueForwarder final : public Forwarder {
 public:
  QueueForwarder(std::string name, SendFn send, const base::Clock& clock, QueueOptions o = {});
  ~QueueForwarder() override;

  void enqueue(const std::vector<Event>& events) override;
  void stop() override;
  ForwarderStats stats() const override;
  std::string_view name() const override { return name_; }

 private:
  void run();

  const std::string name_;
  SendFn send_;
  const base::Clock& clock_;
  const QueueOptions opt_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Event> queue_;
  size_t in_flight_ = 0;
  bool stopping_ = false;
  ForwarderStats stats_;
  std::thread thread_;
};

}  // namespace llmon::logwatch
