#include "scrape/push_ingest.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <utility>

namespace llmon::scrape {
namespace {

AppendOptions push_append_options() {
  AppendOptions o;
  o.honor_labels = true;
  o.honor_timestamps = true;
  o.report_series = false;
  return o;
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

PushIngest::PushIngest(storage::Storage& storage, const base::Clock& clock, base::Logger& log, PushIngestOptions opts)
    : storage_(storage),
      clock_(clock),
      log_(log),
      opts_(std::move(opts)),
      store_(clock),
      appender_(storage, {}, push_append_options(), nullptr) {
  if (opts_.interval_ms <= 0) opts_.interval_ms = 1000;
  if (opts_.min_gap_ms < 0) opts_.min_gap_ms = 0;
}

PushIngest::~PushIngest() {
  stop();
}

void PushIngest::start() {
  const std::string& path = opts_.persistence_file;
  if (!path.empty() && file_exists(path)) {
    if (Status st = store_.load(path); !st) {
      std::string aside = path + ".corrupt";
      if (std::rename(path.c_str(), aside.c_str()) != 0) {
        log_.error("cannot read the push persistence file, and cannot move it aside: pushes are not saved",
                   {{"err", st.message()}, {"rename", std::strerror(errno)}});
        opts_.persistence_file.clear();
      } else {
        log_.error("cannot read the push persistence file: moved aside, starting empty",
                   {{"err", st.message()}, {"moved_to", aside}});
      }
    } else {
      log_.info("push groups loaded", {{"file", path}, {"groups", std::to_string(store_.group_count())}});
    }
  }
  saved_generation_ = store_.generation();
  std::lock_guard<std::mutex> lk(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void PushIngest::stop() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
    append_once(clock_.now_ms());
    persist();
  }
}

void PushIngest::changed() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    pending_ = true;
  }
  cv_.notify_all();
}

void PushIngest::count(int status) {
  std::lock_guard<std::mutex> lk(mu_);
  ++stats_.requests_by_code[status];
}

PushReply PushIngest::handle(std::string_view method, std::string_view raw_path, std::string_view body,
                             std::string_view content_type) {
  const uint64_t before = store_.generation();
  PushReply r = handle_push_request(store_, method, raw_path, body, content_type);
  count(r.status);
  if (store_.generation() != before) changed();
  return r;
}

void PushIngest::append_once(int64_t t_ms) {
  const uint64_t gen = store_.generation();
  if (gen != page_generation_) {
    page_.clear();
    write_push_page(store_.families(), page_);
    page_generation_ = gen;
  }
  ScrapeResult r = appender_.append(page_, "text/plain; version=0.0.4", t_ms, 0, nullptr);
  std::lock_guard<std::mutex> lk(mu_);
  ++stats_.appends;
  stats_.samples_appended = r.samples_post_relabel;
  stats_.rejected += r.rejected;
  if (!r.up) log_.error("storing pushed groups", {{"err", r.error}});
}

void PushIngest::persist() {
  if (opts_.persistence_file.empty()) return;
  const uint64_t gen = store_.generation();
  if (gen == saved_generation_) return;
  Status st = store_.save(opts_.persistence_file);
  std::lock_guard<std::mutex> lk(mu_);
  if (!st) {
    ++stats_.persist_errors;
    log_.error("saving pushed groups", {{"err", st.message()}});
    return;
  }
  saved_generation_ = gen;
}

void PushIngest::run() {
  const int64_t interval = opts_.interval_ms;
  int64_t last_append = INT64_MIN / 2;
  std::unique_lock<std::mutex> lk(mu_);
  int64_t next_tick = (clock_.now_ms() / interval + 1) * interval;
  while (!stopping_) {
    const int64_t now = clock_.now_ms();
    int64_t stamp = -1;
    if (now >= next_tick) {
      // A tick: stamped with its slot when on time (regular spacing
      // compresses well), as the scrape loops do.
      stamp = now - next_tick <= 2 ? next_tick : now;
      next_tick = (now / interval + 1) * interval;
    } else if (pending_ && now >= last_append + opts_.min_gap_ms) {
      stamp = now;
    }
    if (stamp < 0) {
      int64_t wake = next_tick;
      if (pending_) wake = std::min(wake, last_append + opts_.min_gap_ms);
      cv_.wait_for(lk, std::chrono::milliseconds(std::clamp<int64_t>(wake - now, 1, interval)));
      continue;
    }
    pending_ = false;
    lk.unlock();
    append_once(stamp);
    persist();
    lk.lock();
    last_append = stamp;
  }
}

PushIngestStats PushIngest::stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  PushIngestStats s = stats_;
  s.groups = store_.group_count();
  return s;
}

}  // namespace llmon::scrape
