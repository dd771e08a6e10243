#include "logwatch/queue_forwarder.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace llmon::logwatch {

QueueForwarder::QueueForwarder(std::string name, SendFn send, const base::Clock& clock, QueueOptions o)
    : name_(std::move(name)), send_(std::move(send)), clock_(clock), opt_(o) {
  thread_ = std::thread([this] { run(); });
}

QueueForwarder::~QueueForwarder() {
  stop();
}

void QueueForwarder::enqueue(const std::vector<Event>& events) {
  {
    std::lock_guard lock(mu_);
    for (const Event& e : events) {
      if (stopping_ || queue_.size() >= opt_.max_queue) {
        ++stats_.dropped;
        continue;
      }
      queue_.push_back(e);
    }
  }
  cv_.notify_all();
}

void QueueForwarder::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

ForwarderStats QueueForwarder::stats() const {
  std::lock_guard lock(mu_);
  ForwarderStats s = stats_;
  s.queue = queue_.size() + in_flight_;
  return s;
}

void QueueForwarder::run() {
  using std::chrono::milliseconds;
  int64_t backoff = opt_.retry_min_ms;
  int64_t stop_by = 0;  // when stopping: the deadline of the last try
  std::vector<Event> batch;
  std::unique_lock lock(mu_);
  for (;;) {
    if (batch.empty()) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) break;  // stopping with nothing left
      // Let a burst gather into one batch.
      if (!stopping_ && queue_.size() < opt_.max_batch)
        cv_.wait_for(lock, milliseconds(opt_.batch_wait_ms),
                     [&] { return stopping_ || queue_.size() >= opt_.max_batch; });
      size_t n = std::min(queue_.size(), opt_.max_batch);
      batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.begin() + n));
      queue_.erase(queue_.begin(), queue_.begin() + n);
      in_flight_ = batch.size();
    }
    if (stopping_ && stop_by == 0) stop_by = clock_.now_ms() + opt_.stop_deadline_ms;
    lock.unlock();
    SendOutcome out = send_(batch);
    lock.lock();
    if (out.result == SendResult::kRetry) {
      ++stats_.errors;
      stats_.last_error = out.error;
      if (stopping_ && clock_.now_ms() >= stop_by) break;
      int64_t wait = stopping_ ? std::min<int64_t>(backoff, std::max<int64_t>(0, stop_by - clock_.now_ms())) : backoff;
      cv_.wait_for(lock, milliseconds(wait), [&] { return stopping_ && stop_by == 0; });
      backoff = std::min(opt_.retry_max_ms, backoff * 2);
      continue;
    }
    if (out.result == SendResult::kSent) {
      stats_.sent += batch.size();
      stats_.last_success_ms = clock_.now_ms();
    } else {
      ++stats_.errors;
      stats_.dropped += batch.size();
      stats_.last_error = out.error;
    }
    backoff = opt_.retry_min_ms;
    batch.clear();
    in_flight_ = 0;
    if (stopping_ && stop_by != 0 && clock_.now_ms() >= stop_by) break;
  }
  stats_.dropped += batch.size() + queue_.size();
  queue_.clear();
  in_flight_ = 0;
}

}  // namespace llmon::logwatch
