// Persistent delivery queue; see delivery_queue.h (behaviour) and
// queue_file.h (bytes on disk).
#include "notify/delivery/delivery_queue.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "notify/delivery/notification_codec.h"

namespace llmon::notify {
namespace {

namespace qf = queue_file;

std::string errno_text() {
  return std::strerror(errno);
}

Status write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::error(errno_text());
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::ok();
}

Expected<std::string> read_file(const std::string& path, bool& exists) {
  exists = false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::string();
    return Status::error("opening " + path + ": " + errno_text());
  }
  exists = true;
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string e = errno_text();
      ::close(fd);
      return Status::error("reading " + path + ": " + e);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

void fsync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

class SenderTarget final : public DeliveryTarget {
 public:
  explicit SenderTarget(std::shared_ptr<Sender> sender) : sender_(std::move(sender)) {}
  DeliveryResult deliver(const QueuedJob& job) override {
    auto n = decode_notification(job.payload);
    if (!n)
      return {DeliveryOutcome::kFailed,
              "job " + std::to_string(job.id) + " for " + std::string(job.target) + ": " + n.error()};
    return sender_->send(*n);
  }

 private:
  std::shared_ptr<Sender> sender_;
};

}  // namespace

std::shared_ptr<DeliveryTarget> sender_target(std::shared_ptr<Sender> sender) {
  return std::make_shared<SenderTarget>(std::move(sender));
}

int64_t backoff_delay_ms(const BackoffPolicy& p, uint32_t failed_attempts, double r) {
  const double max = static_cast<double>(std::max<int64_t>(1, p.max_ms));
  double d = static_cast<double>(std::max<int64_t>(1, p.initial_ms));
  for (uint32_t i = 1; i < failed_attempts && d < max; ++i) d *= std::max(1.0, p.factor);
  d = std::min(d, max);
  const double j = std::clamp(p.jitter, 0.0, 1.0);
  d *= 1.0 - j + 2.0 * j * std::clamp(r, 0.0, 1.0);
  return std::max<int64_t>(1, static_cast<int64_t>(std::min(d, max)));
}

DeliveryQueue::DeliveryQueue(DeliveryQueueOptions opts, const base::Clock& clock, Random random, base::Logger* log)
    : opts_(std::move(opts)), clock_(clock), random_(std::move(random)), log_(log) {
  if (!random_) random_ = [] { return 0.5; };
}

Expected<std::unique_ptr<DeliveryQueue>> DeliveryQueue::open(DeliveryQueueOptions opts, const base::Clock& clock,
                                                             Random random, base::Logger* log) {
  if (opts.dir.empty()) return Status::error("delivery queue: no directory given");
  std::error_code ec;
  std::filesystem::create_directories(opts.dir, ec);
  if (ec) return Status::error("delivery queue: creating " + opts.dir + ": " + ec.message());
  std::unique_ptr<DeliveryQueue> q(new DeliveryQueue(std::move(opts), clock, std::move(random), log));
  const std::string lock_path = q->opts_.dir + "/queue.lock";
  q->lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (q->lock_fd_ < 0) return Status::error("delivery queue: opening " + lock_path + ": " + errno_text());
  if (::flock(q->lock_fd_, LOCK_EX | LOCK_NB) != 0)
    return Status::error("delivery queue: " + q->opts_.dir + " is in use (" + lock_path +
                         " is locked: " + errno_text() + ")");
  bool exists = false;
  auto bytes = read_file(q->opts_.dir + "/queue.log", exists);
  if (!bytes) return Status::error("delivery queue: " + bytes.error());
  std::lock_guard lock(q->mu_);
  if (Status s = q->open_file(exists ? std::string_view(*bytes) : std::string_view()); !s)
    return Status::error("delivery queue: " + s.message());
  return q;
}

Status DeliveryQueue::open_file(std::string_view existing) {
  const std::string path = opts_.dir + "/queue.log";
  qf::ScanResult scan = qf::scan(existing);
  recovery_.jobs_recovered = scan.live.size();
  recovery_.records = scan.records;
  recovery_.corrupt_bytes = scan.corrupt_bytes;
  recovery_.torn_tail_bytes = scan.torn_tail_bytes;
  recovery_.problems = scan.problems;
  next_id_ = scan.max_id + 1;
  for (auto& rec : scan.live) {
    Target& t = targets_[rec.target];
    t.m.target = rec.target;
    ++t.m.queued_total;
    Job job{rec.id, rec.created_ms, rec.attempts, rec.kind, nullptr, 0};
    job.record_bytes = qf::encode_job(rec).size();
    job.payload = std::make_shared<const std::string>(std::move(rec.payload));
    t.jobs.push_back(std::move(job));
    ++jobs_;
  }
  if (scan.corrupt_bytes > 0) {
    // Keep the damaged file for a post-mortem (only the latest one).
    const std::string aside = path + ".corrupt";
    if (::rename(path.c_str(), aside.c_str()) != 0)
      return Status::error("moving the damaged " + path + " aside: " + errno_text());
    if (log_)
      log_->warn("delivery queue file damaged; salvaged what checks out",
                 {{"file", path},
                  {"corrupt_bytes", std::to_string(scan.corrupt_bytes)},
                  {"torn_tail_bytes", std::to_string(scan.torn_tail_bytes)},
                  {"jobs_recovered", std::to_string(scan.live.size())},
                  {"first_problem", scan.problems.empty() ? "" : scan.problems.front()},
                  {"copy", aside}});
  }
  if (existing.empty() || scan.corrupt_bytes > 0 || scan.records != scan.live.size()) return compact_locked();
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) return Status::error("opening " + path + ": " + errno_text());
  file_bytes_ = existing.size();
  live_bytes_ = 0;
  for (const auto& [name, t] : targets_)
    for (const Job& j : t.jobs) live_bytes_ += j.record_bytes;
  if (log_ && jobs_ > 0) log_->info("delivery queue recovered jobs", {{"jobs", std::to_string(jobs_)}});
  return Status::ok();
}

DeliveryQueue::~DeliveryQueue() {
  stop();
}

void DeliveryQueue::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& [name, t] : targets_)
    if (t.worker.joinable()) t.worker.join();
  std::lock_guard lock(mu_);
  if (fd_ >= 0) {
    if (opts_.fsync == FsyncPolicy::kAlways) ::fdatasync(fd_);
    ::close(fd_);
    fd_ = -1;
  }
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
}

void DeliveryQueue::wake() {
  std::lock_guard lock(mu_);
  cv_.notify_all();
}

Status DeliveryQueue::add_target(const std::string& name, std::shared_ptr<DeliveryTarget> target, TargetOptions topts) {
  if (name.empty() || !target) return Status::error("delivery queue: a target needs a name and a sink");
  std::vector<Dropped> dropped;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return Status::error("delivery queue: stopped; cannot add target " + name);
    Target& t = targets_[name];
    if (t.sink) return Status::error("delivery queue: target " + name + " is already registered");
    t.sink = std::move(target);
    t.opts = topts;
    t.m.target = name;
    t.m.registered = true;
    t.worker = std::thread(&DeliveryQueue::worker, this, name);
  }
  return Status::ok();
}

Expected<uint64_t> DeliveryQueue::enqueue(std::string_view target, std::string_view kind, std::string payload) {
  if (target.empty()) return Status::error("delivery queue: job without a target");
  if (payload.size() > opts_.max_payload_bytes)
    return Status::error("delivery queue: payload for " + std::string(target) + " is " +
                         std::to_string(payload.size()) + " bytes, over the " +
                         std::to_string(opts_.max_payload_bytes) + "-byte limit");
  std::vector<Dropped> dropped;
  uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    if (stopping_ || fd_ < 0)
      return Status::error("delivery queue: stopped; job for " + std::string(target) + " not queued");
    qf::JobRecord rec{next_id_, clock_.now_ms(), 0, std::string(target), std::string(kind), std::move(payload)};
    const std::string bytes = qf::encode_job(rec);
    if (Status s = append_locked(bytes, true); !s)
      return Status::error("delivery queue: job for " + rec.target + " not queued: " + s.message());
    id = next_id_++;
    Target& t = targets_[rec.target];
    t.m.target = rec.target;
    ++t.m.queued_total;
    t.jobs.push_back(Job{id, rec.created_ms, 0, std::move(rec.kind),
                         std::make_shared<const std::string>(std::move(rec.payload)), bytes.size()});
    ++jobs_;
    live_bytes_ += bytes.size();
    evict_locked(dropped);
    // Workers expire their own jobs; unregistered targets have none.
    for (auto& [name, other] : targets_)
      if (!other.sink) expire_locked(name, other, rec.created_ms, dropped);
  }
  cv_.notify_all();
  report_dropped(dropped);
  return id;
}

Status DeliveryQueue::append_locked(const std::string& bytes, bool sync) {
  if (fd_ < 0) return Status::error("queue file is closed");
  if (Status s = write_all(fd_, bytes); !s) {
    ++write_errors_;
    // Cut a partial record so later appends stay readable.
    if (::ftruncate(fd_, static_cast<off_t>(file_bytes_)) != 0) {
      // The scan at the next open skips the torn bytes.
    }
    return Status::error("writing " + opts_.dir + "/queue.log: " + s.message());
  }
  file_bytes_ += bytes.size();
  if (sync && opts_.fsync == FsyncPolicy::kAlways && ::fdatasync(fd_) != 0) {
    ++write_errors_;
    return Status::error("syncing " + opts_.dir + "/queue.log: " + errno_text());
  }
  return Status::ok();
}

void DeliveryQueue::ack_locked(uint64_t id, qf::AckReason reason) {
  if (Status s = append_locked(qf::encode_ack(id, reason), false); !s && log_)
    log_->warn("delivery queue: could not record an ack; the job may be sent again after a restart",
               {{"job", std::to_string(id)}, {"err", s.message()}});
}

void DeliveryQueue::remove_front_locked(Target& t, qf::AckReason reason) {
  const Job& j = t.jobs.front();
  ack_locked(j.id, reason);
  live_bytes_ -= std::min<uint64_t>(live_bytes_, j.record_bytes);
  t.jobs.pop_front();
  --jobs_;
}

int64_t DeliveryQueue::max_age_for(const Target& t) const {
  return t.opts.max_age_ms > 0 ? t.opts.max_age_ms : opts_.max_age_ms;
}

void DeliveryQueue::expire_locked(const std::string& name, Target& t, int64_t now, std::vector<Dropped>& out) {
  const int64_t max_age = max_age_for(t);
  while (!t.jobs.empty() && !t.in_flight && max_age > 0 && now - t.jobs.front().created_ms > max_age) {
    Job j = t.jobs.front();
    const std::string why = "expired: not delivered within " + std::to_string(max_age / 1000) + "s after " +
                            std::to_string(j.attempts) + " attempts";
    note_failure_locked(name, j, why, true);
    ++t.m.dropped_total;
    remove_front_locked(t, qf::AckReason::kExpired);
    t.next_try_ms = 0;
    out.push_back(Dropped{t.sink, name, std::move(j), why});
  }
}

void DeliveryQueue::evict_locked(std::vector<Dropped>& out) {
  while (jobs_ > opts_.max_jobs) {
    Target* victim = nullptr;
    const std::string* victim_name = nullptr;
    size_t index = 0;
    for (auto& [name, t] : targets_) {
      const size_t i = t.in_flight ? 1 : 0;
      if (t.jobs.size() <= i) continue;
      if (!victim || t.jobs[i].id < victim->jobs[index].id) {
        victim = &t;
        victim_name = &name;
        index = i;
      }
    }
    if (!victim) return;
    Job j = victim->jobs[index];
    const std::string why = "evicted: the queue holds more than " + std::to_string(opts_.max_jobs) + " jobs";
    note_failure_locked(*victim_name, j, why, true);
    ++victim->m.dropped_total;
    if (index == 0) {
      remove_front_locked(*victim, qf::AckReason::kEvicted);
    } else {
      ack_locked(j.id, qf::AckReason::kEvicted);
      live_bytes_ -= std::min<uint64_t>(live_bytes_, j.record_bytes);
      victim->jobs.erase(victim->jobs.begin() + static_cast<std::ptrdiff_t>(index));
      --jobs_;
    }
    out.push_back(Dropped{victim->sink, *victim_name, std::move(j), why});
  }
}

void DeliveryQueue::note_failure_locked(const std::string& target, const Job& job, std::string error, bool permanent) {
  failures_.push_front(
      DeliveryFailure{target, job.kind, job.id, job.attempts + 1, clock_.now_ms(), std::move(error), permanent});
  while (failures_.size() > opts_.recent_failures) failures_.pop_back();
}

void DeliveryQueue::report_dropped(std::vector<Dropped>& dropped) {
  for (const Dropped& d : dropped) {
    if (log_)
      log_->warn("notification dropped unsent",
                 {{"target", d.target}, {"kind", d.job.kind}, {"job", std::to_string(d.job.id)}, {"reason", d.reason}});
    if (d.sink)
      d.sink->dropped(QueuedJob{d.job.id, d.target, d.job.kind, *d.job.payload, d.job.created_ms, d.job.attempts},
                      d.reason);
  }
  dropped.clear();
}

Status DeliveryQueue::compact_locked() {
  const std::string path = opts_.dir + "/queue.log";
  const std::string tmp = path + ".tmp";
  std::vector<Job*> all;
  std::vector<const std::string*> names;
  for (auto& [name, t] : targets_)
    for (Job& j : t.jobs) {
      all.push_back(&j);
      names.push_back(&name);
    }
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return all[a]->id < all[b]->id; });
  std::string out(qf::kMagic);
  for (size_t i : order) {
    const Job& j = *all[i];
    const std::string rec =
        qf::encode_job(qf::JobRecord{j.id, j.created_ms, j.attempts, *names[i], j.kind, *j.payload});
    all[i]->record_bytes = rec.size();
    out += rec;
  }
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    ++write_errors_;
    return Status::error("compacting: creating " + tmp + ": " + errno_text());
  }
  Status s = write_all(fd, out);
  if (s && opts_.fsync == FsyncPolicy::kAlways && ::fdatasync(fd) != 0) s = Status::error(errno_text());
  ::close(fd);
  if (!s || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ++write_errors_;
    const std::string e = s ? errno_text() : s.message();
    ::unlink(tmp.c_str());
    return Status::error("compacting " + path + ": " + e);
  }
  if (opts_.fsync == FsyncPolicy::kAlways) fsync_dir(opts_.dir);
  const int nfd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (nfd < 0) {
    ++write_errors_;
    return Status::error("reopening " + path + ": " + errno_text());
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = nfd;
  file_bytes_ = out.size();
  live_bytes_ = out.size() - qf::kMagic.size();
  ++compactions_;
  return Status::ok();
}

void DeliveryQueue::maybe_compact_locked() {
  if (file_bytes_ < opts_.compact_min_bytes || live_bytes_ * 4 >= file_bytes_) return;
  if (Status s = compact_locked(); !s && log_) log_->warn("delivery queue compaction failed", {{"err", s.message()}});
}

void DeliveryQueue::worker(const std::string& name) {
  std::unique_lock lk(mu_);
  Target& t = targets_.at(name);
  const std::shared_ptr<DeliveryTarget> sink = t.sink;
  std::vector<Dropped> dropped;
  while (!stopping_) {
    const int64_t now = clock_.now_ms();
    expire_locked(name, t, now, dropped);
    if (!dropped.empty()) {
      lk.unlock();
      report_dropped(dropped);
      lk.lock();
      continue;
    }
    if (t.jobs.empty()) {
      cv_.wait(lk);
      continue;
    }
    if (now < t.next_try_ms) {
      const int64_t wait = std::min<int64_t>(t.next_try_ms - now, std::max(1, opts_.max_poll_ms));
      cv_.wait_for(lk, std::chrono::milliseconds(wait));
      continue;
    }
    const Job job = t.jobs.front();
    t.in_flight = true;
    lk.unlock();
    DeliveryResult res;
    res = sink->deliver(QueuedJob{job.id, name, job.kind, *job.payload, job.created_ms, job.attempts});
    lk.lock();
    t.in_flight = false;
    if (t.jobs.empty() || t.jobs.front().id != job.id) continue;  // evicted while in flight
    switch (res.outcome) {
      case DeliveryOutcome::kDelivered:
        ++t.m.delivered_total;
        remove_front_locked(t, qf::AckReason::kDelivered);
        t.next_try_ms = 0;
        break;
      case DeliveryOutcome::kFailed:
        ++t.m.failed_total;
        note_failure_locked(name, job, res.error, true);
        if (log_)
          log_->warn("notification failed permanently",
                     {{"target", name}, {"kind", job.kind}, {"job", std::to_string(job.id)}, {"err", res.error}});
        remove_front_locked(t, qf::AckReason::kFailed);
        t.next_try_ms = 0;
        break;
      case DeliveryOutcome::kRetry: {
        ++t.m.retried_total;
        note_failure_locked(name, job, res.error, false);
        Job& front = t.jobs.front();
        ++front.attempts;
        if (Status s = append_locked(qf::encode_attempt(front.id, front.attempts), false); !s && log_)
          log_->warn("delivery queue: could not record an attempt", {{"err", s.message()}});
        const int64_t delay = backoff_delay_ms(opts_.backoff, front.attempts, random_());
        t.next_try_ms = clock_.now_ms() + delay;
        if (log_)
          log_->warn("notification not delivered; will retry", {{"target", name},
                                                                {"kind", job.kind},
                                                                {"job", std::to_string(job.id)},
                                                                {"attempt", std::to_string(front.attempts)},
                                                                {"retry_in_ms", std::to_string(delay)},
                                                                {"err", res.error}});
        break;
      }
    }
    maybe_compact_locked();
  }
}

DeliveryMetrics DeliveryQueue::metrics() const {
  std::lock_guard lock(mu_);
  DeliveryMetrics out;
  const int64_t now = clock_.now_ms();
  for (const auto& [name, t] : targets_) {
    TargetMetrics m = t.m;
    m.target = name;
    m.queue_length = t.jobs.size();
    m.oldest_age_ms = t.jobs.empty() ? 0 : std::max<int64_t>(0, now - t.jobs.front().created_ms);
    m.next_attempt_ms = t.jobs.empty() ? 0 : t.next_try_ms;
    m.head_attempts = t.jobs.empty() ? 0 : t.jobs.front().attempts;
    out.total.queued_total += m.queued_total;
    out.total.delivered_total += m.delivered_total;
    out.total.retried_total += m.retried_total;
    out.total.failed_total += m.failed_total;
    out.total.dropped_total += m.dropped_total;
    out.total.queue_length += m.queue_length;
    out.total.oldest_age_ms = std::max(out.total.oldest_age_ms, m.oldest_age_ms);
    out.targets.push_back(std::move(m));
  }
  out.file_bytes = file_bytes_;
  out.compactions_total = compactions_;
  out.write_errors_total = write_errors_;
  return out;
}

std::vector<DeliveryFailure> DeliveryQueue::recent_failures() const {
  std::lock_guard lock(mu_);
  return {failures_.begin(), failures_.end()};
}

size_t DeliveryQueue::size() const {
  std::lock_guard lock(mu_);
  return jobs_;
}

}  // namespace llmon::notify
