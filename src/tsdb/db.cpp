// tsdb::Db: recovery, the commit path, chunk persistence and retention
// (contract in db.h; byte formats in docs/format/).
#include "tsdb/db.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <unordered_map>

#include "tsdb/wal/record_log.h"
#include "tsdb/wal/records.h"

namespace llmon::tsdb {

using model::Labels;
using storage::SeriesRef;

namespace {

constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

// The largest multiple of range at or below t (floor division).
int64_t boundary_at_or_below(int64_t t, int64_t range) {
  int64_t q = t / range;
  if (t % range != 0 && t < 0) --q;
  return q * range;
}

// Bytes of the regular files directly in dir (0 if it cannot be listed).
uint64_t files_bytes(const std::string& dir) {
  std::error_code ec;
  uint64_t total = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code ec2;
    if (e.is_regular_file(ec2)) total += e.file_size(ec2);
  }
  return total;
}

// Chunks per ChunkStore::write() (bounds the batch buffer: ~4 KB each at 2 h of 1 s data).
constexpr size_t kPersistBatch = 4096;

}  // namespace

class DbAppender final : public storage::Appender {
 public:
  DbAppender(Db* db, std::unique_ptr<storage::Appender> head_app)
      : db_(db), head_(std::move(head_app)), samples_(db->take_sample_buffer()) {}
  ~DbAppender() override { db_->give_sample_buffer(std::move(samples_)); }
  Expected<SeriesRef> append(SeriesRef ref, const Labels& labels, int64_t t_ms, double v) override {
    if (done_) return Status::error("append after commit/rollback");
    auto r = head_->append(ref, labels, t_ms, v);
    if (r) samples_.push_back({*r, t_ms, v});
    return r;
  }
  Status commit() override {
    if (done_) return Status::error("commit after commit/rollback");
    done_ = true;
    return db_->commit(std::move(head_), samples_);
  }
  Status rollback() override {
    if (done_) return Status::error("rollback after commit/rollback");
    done_ = true;
    return head_->rollback();
  }

 private:
  Db* db_;
  std::unique_ptr<storage::Appender> head_;
  std::vector<wal::SampleEntry> samples_;
  bool done_ = false;
};

std::vector<wal::SampleEntry> Db::take_sample_buffer() {
  std::lock_guard l(spare_mu_);
  if (spare_samples_.empty()) return {};
  std::vector<wal::SampleEntry> v = std::move(spare_samples_.back());
  spare_samples_.pop_back();
  return v;
}

void Db::give_sample_buffer(std::vector<wal::SampleEntry> v) {
  // Bounded: as many as appenders run at once (scrape loops, collectors,
  // rules), and none much larger than a cycle needs.
  constexpr size_t kMaxSpare = 64;
  constexpr size_t kMaxKeptCapacity = 1 << 20;
  if (v.capacity() == 0 || v.capacity() > kMaxKeptCapacity) return;
  v.clear();
  std::lock_guard l(spare_mu_);
  if (spare_samples_.size() < kMaxSpare) spare_samples_.push_back(std::move(v));
}

Db::Db(DbOptions options, base::Logger& log, const base::Clock& clock)
    : options_(std::move(options)), log_(log), clock_(clock), head_(options_.head) {
  if (!options_.free_space) options_.free_space = free_bytes;
  options_.chunks.min_free_bytes = options_.min_free_bytes;
  options_.chunks.free_space = options_.free_space;
  next_boundary_ = std::numeric_limits<int64_t>::min();
  newest_t_ = std::numeric_limits<int64_t>::min();
  flush_delay_ms_ = options_.flush_delay_ms >= 0 ? options_.flush_delay_ms : options_.head.chunk_range_ms / 4;
}

Expected<std::unique_ptr<Db>> Db::open(DbOptions options, base::Logger& log, const base::Clock& clock) {
  std::unique_ptr<Db> db(new Db(std::move(options), log, clock));
  const std::string& dir = db->options_.path;
  if (db->options_.read_only) {
    db->options_.background = false;
    db->options_.chunks.read_only = true;
    if (Status st = db->recover(); !st) return st.with_context("storage " + dir);
    return db;
  }
  if (Status st = make_dirs(dir); !st) return st;
  std::string lock_path = dir + "/lock";
  db->lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (db->lock_fd_ < 0) return Status::error(lock_path + ": open: " + std::strerror(errno));
  if (::flock(db->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return Status::error(dir + " is in use by another llmon process (" + lock_path + " is locked)");
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(db->lock_fd_, 0) == 0) (void)pwrite_all(db->lock_fd_, lock_path, pid.data(), pid.size(), 0);
  if (Status st = db->recover(); !st) return st.with_context("storage " + dir);
  if (Status st = db->apply_retention(); !st) log.warn("retention at start-up failed", {{"err", st.message()}});
  if (db->options_.background) db->bg_ = std::thread([d = db.get()] { d->background_loop(); });
  return db;
}

Db::~Db() { (void)close(); }

Status Db::recover() {
  const std::string& dir = options_.path;
  auto note = [this](const std::string& what) {
    log_.warn("storage repair", {{"what", what}});
    std::lock_guard l(stats_mu_);
    ++counters_.repairs;
  };
  auto on_corruption = [&](const wal::Corruption& c) {
    note(c.file + ": " + c.reason + " at offset " + std::to_string(c.offset) + ", " + std::to_string(c.skipped) +
         " bytes dropped");
  };

  if (options_.read_only) {
    if (!std::filesystem::is_directory(dir + "/series")) return Status::error(dir + ": not an llmon data directory");
  } else {
    if (Status st = recover_series_dirs(); !st) return st;
    for (const char* sub : {"/series", "/wal"}) {
      if (Status st = make_dirs(dir + sub); !st) return st;
    }
  }
  // 1. Series log: creations and tombstones, applied in ref order.
  std::map<SeriesRef, Labels> series;
  std::vector<wal::SeriesEntry> sbuf;
  std::vector<SeriesRef> tbuf;
  SeriesRef max_logged = 0;  // highest ref the log ever named (tombstoned ones too)
  uint64_t tombstoned = 0;
  auto rs = wal::read_log(
      dir + "/series", 0,
      [&](std::string_view rec) -> Status {
        auto type = wal::record_type(rec);
        if (!type) return Status::ok();  // unknown record: reported by decode below
        if (*type == wal::RecordType::kSeries) {
          sbuf.clear();
          if (Status st = wal::decode_series(rec, sbuf); !st) {
            note(dir + "/series: " + st.message());
            return Status::ok();
          }
          for (auto& e : sbuf) {
            max_logged = std::max(max_logged, e.ref);
            series[e.ref] = std::move(e.labels);
          }
        } else if (*type == wal::RecordType::kTombstones) {
          tbuf.clear();
          if (Status st = wal::decode_tombstones(rec, tbuf); !st) {
            note(dir + "/series: " + st.message());
            return Status::ok();
          }
          for (SeriesRef r : tbuf) {
            max_logged = std::max(max_logged, r);
            if (series.erase(r) > 0) ++tombstoned;
          }
        }
        return Status::ok();
      },
      on_corruption);
  if (!rs) return rs.status();
  for (auto& [ref, labels] : series) {
    if (Status st = head_.restore_series(ref, labels); !st) note(dir + "/series: " + st.message());
  }

  // 2. Chunk segments.
  ChunkStoreRecovery crec;
  auto cs = ChunkStore::open(dir + "/chunks", options_.chunks, &crec);
  if (!cs) return cs.status();
  chunks_ = std::move(*cs);
  for (const auto& n : crec.notes) note(n);
  uint64_t attached = 0, orphan = 0;
  SeriesRef max_seen = 0;
  for (const auto& c : crec.chunks) {
    max_seen = std::max(max_seen, c.meta.ref);
    if (head_.attach_chunk(c)) {
      ++attached;
    } else {
      ++orphan;
    }
  }
  size_t overlapping = head_.finish_recovery();
  if (orphan > 0) log_.info("chunks of removed series ignored", {{"chunks", std::to_string(orphan)}});
  if (overlapping > 0) note(std::to_string(overlapping) + " overlapping chunks ignored");

  // 3. WAL replay: one appender per record (one commit per recorded cycle).
  uint64_t replayed = 0, skipped = 0;
  std::vector<wal::SampleEntry> samples;
  auto rw = wal::read_log(
      dir + "/wal", 0,
      [&](std::string_view rec) -> Status {
        auto type = wal::record_type(rec);
        if (!type || *type != wal::RecordType::kSamples) return Status::ok();
        samples.clear();
        if (Status st = wal::decode_samples(rec, samples); !st) {
          note(dir + "/wal: " + st.message());
          return Status::ok();
        }
        auto app = head_.appender();
        for (const auto& s : samples) {
          max_seen = std::max(max_seen, s.ref);
          if (app->append(s.ref, Labels(), s.t_ms, s.v)) {
            ++replayed;
          } else {
            ++skipped;
          }
        }
        (void)app->commit();
        return Status::ok();
      },
      on_corruption);
  if (!rw) return rw.status();
  head_.reset_counters();
  // Refs of series whose record was lost (damaged series log) stay unused.
  if (max_seen > max_logged) {
    note(dir + "/series: chunks or WAL samples reference series refs up to " + std::to_string(max_seen) +
         " beyond the last series record (" + std::to_string(max_logged) +
         "): the series log lost records; their data is ignored and their refs never reused");
  }
  head_.reserve_refs(std::max(max_seen, max_logged));
  tombstones_in_log_ = tombstoned;

  logged_max_ref_ = head_.max_ref();
  {
    std::lock_guard l(stats_mu_);
    counters_.recovered_series = series.size();
    counters_.recovered_chunks = attached;
    counters_.replayed_samples = replayed;
    counters_.replay_skipped = skipped;
  }
  if (options_.read_only) return Status::ok();
  // 4. Writers (they truncate torn tails, already reported above).
  wal::LogOptions lo;
  lo.segment_bytes = options_.wal_segment_bytes;
  std::string repair;
  auto sl = wal::LogWriter::open(dir + "/series", lo, &repair);
  if (!sl) return sl.status();
  series_log_ = std::move(*sl);
  auto wl = wal::LogWriter::open(dir + "/wal", lo, &repair);
  if (!wl) return wl.status();
  wal_ = std::move(*wl);
  int64_t max_t = head_.max_time();
  newest_t_ = max_t;
  next_boundary_ = max_t == kNoTime ? kNoTime
                                    : boundary_at_or_below(max_t, options_.head.chunk_range_ms) +
                                          options_.head.chunk_range_ms;
  log_.info("storage opened",
            {{"path", dir},
             {"series", std::to_string(series.size())},
             {"chunks", std::to_string(attached)},
             {"wal_samples", std::to_string(replayed)}});
  // Samples replayed into chunks that close at the next boundary are flushed by it.
  return Status::ok();
}

std::unique_ptr<storage::Appender> Db::appender() { return std::make_unique<DbAppender>(this, head_.appender()); }

Expected<std::unique_ptr<storage::Querier>> Db::querier(int64_t mint_ms, int64_t maxt_ms) {
  return head_.querier(mint_ms, maxt_ms);
}

Status Db::check_space_locked() {
  auto free = options_.free_space(options_.path);
  if (!free) return free.status();
  if (*free < options_.min_free_bytes) {
    return Status::error("disk almost full: " + std::to_string(*free) + " bytes free on " + options_.path +
                         ", below --storage.min-free-space " + std::to_string(options_.min_free_bytes) +
                         "; not appending until space returns");
  }
  return Status::ok();
}

Status Db::commit(std::unique_ptr<storage::Appender> head_app, std::vector<wal::SampleEntry>& samples) {
  if (samples.empty()) return head_app->commit();
  std::unique_lock lock(commit_mu_);
  auto refuse = [&](const Status& why) {
    (void)head_app->rollback();
    bool first = false;
    {
      std::lock_guard l(stats_mu_);
      ++counters_.commits_refused;
      first = counters_.writable;
      counters_.writable = false;
      counters_.last_error = why.message();
    }
    if (first) log_.error("storage is not accepting samples", {{"err", why.message()}});
    return why.with_context("storage");
  };
  if (closed_ || !wal_) return refuse(Status::error(wal_ ? "closed" : "opened read-only"));
  if (Status st = check_space_locked(); !st) return refuse(st);

  // New series first: a sample is never logged before its series.
  auto fresh = head_.series_after(logged_max_ref_);
  if (!fresh.empty()) {
    std::vector<wal::SeriesEntry> entries;
    entries.reserve(fresh.size());
    for (auto& [ref, labels] : fresh) entries.push_back({ref, std::move(labels)});
    series_buf_.clear();
    wal::encode_series(entries, series_buf_);
    if (Status st = series_log_->append(series_buf_); !st) return refuse(st);
    logged_max_ref_ = entries.back().ref;
  }
  int64_t batch_max = kNoTime;
  for (const auto& s : samples) batch_max = std::max(batch_max, s.t_ms);
  // First sample past a chunk-range boundary: roll the WAL so that every
  // segment before it holds only samples older than the boundary.
  if (next_boundary_ != kNoTime && batch_max >= next_boundary_) {
    int64_t w = boundary_at_or_below(batch_max, options_.head.chunk_range_ms);
    auto seg = wal_->roll();
    if (!seg) return refuse(seg.status());
    boundaries_.emplace_back(w, *seg);
    next_boundary_ = w + options_.head.chunk_range_ms;
  } else if (next_boundary_ == kNoTime) {
    next_boundary_ = boundary_at_or_below(batch_max, options_.head.chunk_range_ms) + options_.head.chunk_range_ms;
  }
  encode_buf_.clear();
  wal::encode_samples(samples, encode_buf_);
  if (Status st = wal_->append(encode_buf_); !st) return refuse(st);
  Status applied = head_app->commit();
  dirty_ = true;
  bool sync_now = options_.fsync_interval_ms == 0;
  newest_t_ = newest_t_ == kNoTime ? batch_max : std::max(newest_t_, batch_max);
  bool flush_due = boundaries_due_locked(false) > 0;
  lock.unlock();
  if (sync_now) (void)sync();
  {
    std::lock_guard l(stats_mu_);
    ++counters_.commits;
    counters_.samples_committed += samples.size();
    if (!counters_.writable) {
      counters_.writable = true;
      log_.info("storage is accepting samples again");
    }
  }
  if (flush_due && options_.background) bg_cv_.notify_one();
  return applied;
}

Status Db::sync() {
  std::lock_guard lock(commit_mu_);
  if (!dirty_ || !wal_) return Status::ok();
  if (Status st = series_log_->sync(); !st) return st;
  if (Status st = wal_->sync(); !st) return st;
  dirty_ = false;
  std::lock_guard l(stats_mu_);
  ++counters_.fsyncs;
  return Status::ok();
}

Status Db::persist_closed_chunks() {
  auto pending = head_.unpersisted_chunks();
  for (size_t i = 0; i < pending.size(); i += kPersistBatch) {
    std::vector<PendingChunk> batch(pending.begin() + static_cast<ptrdiff_t>(i),
                                    pending.begin() + static_cast<ptrdiff_t>(std::min(pending.size(), i + kPersistBatch)));
    // Sealing: each chunk is re-encoded for the disk (the packed encoding
    // when smaller, checked by decoding; docs/format/chunk.md). The head
    // knows its chunks by their in-memory bytes, so it gets `batch`.
    std::vector<PendingChunk> sealed = batch;
    for (auto& c : sealed) {
      auto s = seal_chunk(*c.bytes);
      if (s && s->size() < c.bytes->size()) c.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(*s));
    }
    auto locs = chunks_->write(sealed);
    if (!locs) {
      std::lock_guard l(stats_mu_);
      ++counters_.persist_errors;
      counters_.last_error = locs.status().message();
      return locs.status();
    }
    head_.mark_persisted(batch, *locs);
    std::lock_guard l(stats_mu_);
    counters_.chunks_persisted += batch.size();
  }
  return Status::ok();
}

size_t Db::boundaries_due_locked(bool all) const {
  size_t n = 0;
  while (n < boundaries_.size() &&
         (all || boundaries_[n].first == std::numeric_limits<int64_t>::max() ||
          (newest_t_ != kNoTime && boundaries_[n].first <= newest_t_ - flush_delay_ms_))) {
    ++n;
  }
  return n;
}

Status Db::flush_boundaries(bool all) {
  std::vector<std::pair<int64_t, uint32_t>> todo;
  {
    std::lock_guard lock(commit_mu_);
    todo.assign(boundaries_.begin(), boundaries_.begin() + static_cast<ptrdiff_t>(boundaries_due_locked(all)));
  }
  if (todo.empty()) return Status::ok();
  head_.close_chunks_before(todo.back().first);
  if (Status st = persist_closed_chunks(); !st) return st;
  // Everything before the newest boundary is in segments now: drop its WAL.
  std::lock_guard lock(commit_mu_);
  if (Status st = wal_->remove_before(todo.back().second); !st) return st;
  boundaries_.erase(boundaries_.begin(), boundaries_.begin() + static_cast<ptrdiff_t>(todo.size()));
  return Status::ok();
}

Status Db::flush(bool close_open) {
  if (!wal_) return Status::error(options_.path + ": opened read-only");
  std::lock_guard fl(flush_mu_);
  if (close_open) {
    // Everything goes to segments; the WAL can go entirely.
    std::unique_lock lock(commit_mu_);
    auto seg = wal_->roll();
    if (!seg) return seg.status();
    boundaries_.emplace_back(std::numeric_limits<int64_t>::max(), *seg);
    lock.unlock();
    head_.close_all_chunks();
  }
  Status st = flush_boundaries(close_open);
  if (!st) return st;
  // Chunks cut by size between boundaries: persisted too (memory), WAL kept.
  return close_open ? Status::ok() : persist_closed_chunks();
}

Status Db::apply_retention() {
  if (!wal_) return Status::ok();
  std::lock_guard fl(flush_mu_);
  int64_t now = clock_.now_ms();
  std::vector<SeriesRef> removed;
  uint64_t segs_removed = 0;
  auto drop_before = [&](int64_t t) {
    auto r = head_.truncate_before(t);
    removed.insert(removed.end(), r.removed.begin(), r.removed.end());
  };
  if (options_.retention_ms > 0) {
    int64_t cutoff = now - options_.retention_ms;
    drop_before(cutoff);
    for (const auto& s : chunks_->segments()) {
      if (s.id == chunks_->active_segment() || s.chunks == 0 || s.max_t >= cutoff) continue;
      if (Status st = chunks_->remove_segment(s.id); !st) return st;
      ++segs_removed;
    }
  }
  if (options_.retention_bytes > 0) {
    for (;;) {
      auto segs = chunks_->segments();
      uint64_t total = chunks_->disk_bytes() + wal_->disk_bytes() + series_log_->disk_bytes();
      if (total <= options_.retention_bytes || segs.size() < 2) break;
      const SegmentInfo& oldest = segs.front();
      if (oldest.chunks > 0) drop_before(oldest.max_t + 1);
      if (Status st = chunks_->remove_segment(oldest.id); !st) return st;
      ++segs_removed;
    }
  }
  if (!removed.empty()) {
    std::lock_guard lock(commit_mu_);
    std::string rec;
    wal::encode_tombstones(removed, rec);
    if (Status st = series_log_->append(rec); !st) return st;
    dirty_ = true;
    tombstones_in_log_ += removed.size();
    // Series churn (per-process series) would grow the log forever: rewrite
    // it with the live series once tombstones outnumber them.
    if (tombstones_in_log_ > std::max<uint64_t>(1000, head_.num_series())) {
      if (Status st = rewrite_series_log_locked(); !st) {
        log_.warn("rewriting the series log failed; keeping the old one", {{"err", st.message()}});
      }
    }
  }
  std::lock_guard l(stats_mu_);
  counters_.retention_segments_removed += segs_removed;
  counters_.retention_series_removed += removed.size();
  return Status::ok();
}

// Writes DIR/series.new with one record of every live series (plus a
// tombstone naming the highest ref ever handed out, so refs are never reused
// after a restart), syncs it, then swaps directories: series -> series.old,
// series.new -> series, and removes series.old. recover_series_dirs() finishes
// or undoes a swap interrupted by a crash. Called under commit_mu_.
Status Db::rewrite_series_log_locked() {
  const std::string& dir = options_.path;
  std::string cur = dir + "/series", fresh = dir + "/series.new", old = dir + "/series.old";
  std::error_code ec;
  std::filesystem::remove_all(fresh, ec);
  wal::LogOptions lo;
  lo.segment_bytes = options_.wal_segment_bytes;
  {
    auto w = wal::LogWriter::open(fresh, lo);
    if (!w) return w.status();
    auto live = head_.series_after(0);
    SeriesRef high = head_.max_ref();
    std::vector<wal::SeriesEntry> batch;
    std::string rec;
    for (size_t i = 0; i < live.size(); i += 4096) {
      batch.clear();
      for (size_t k = i; k < std::min(live.size(), i + 4096); ++k) batch.push_back({live[k].first, live[k].second});
      wal::encode_series(batch, rec);
      if (Status st = (*w)->append(rec); !st) return st;
    }
    if (live.empty() || live.back().first < high) {
      wal::encode_tombstones({high}, rec);
      if (Status st = (*w)->append(rec); !st) return st;
    }
    if (Status st = (*w)->sync(); !st) return st;
    if (!live.empty()) logged_max_ref_ = std::max(logged_max_ref_, live.back().first);
  }
  series_log_.reset();
  std::filesystem::rename(cur, old, ec);
  if (!ec) std::filesystem::rename(fresh, cur, ec);
  if (ec) return Status::error(cur + ": swapping in the rewritten series log: " + ec.message());
  if (Status st = fsync_dir(dir); !st) return st;
  std::filesystem::remove_all(old, ec);
  auto w = wal::LogWriter::open(cur, lo);
  if (!w) return w.status();
  series_log_ = std::move(*w);
  tombstones_in_log_ = 0;
  log_.info("series log rewritten", {{"series", std::to_string(head_.num_series())}});
  return Status::ok();
}

// A crash during rewrite_series_log_locked() leaves one of: series.new
// (incomplete: dropped), series.old + series (swap done: old dropped), or
// series.old without series (between the renames: the old one comes back).
Status Db::recover_series_dirs() {
  const std::string& dir = options_.path;
  std::string cur = dir + "/series", fresh = dir + "/series.new", old = dir + "/series.old";
  std::error_code ec;
  bool has_cur = std::filesystem::is_directory(cur), has_old = std::filesystem::is_directory(old);
  if (!has_cur && has_old) {
    if (std::filesystem::is_directory(fresh)) {
      std::filesystem::rename(fresh, cur, ec);  // the new log was complete (synced before the swap)
    } else {
      std::filesystem::rename(old, cur, ec);
    }
    if (ec) return Status::error(cur + ": finishing an interrupted series log rewrite: " + ec.message());
  }
  std::filesystem::remove_all(fresh, ec);
  std::filesystem::remove_all(old, ec);
  return Status::ok();
}

void Db::background_loop() {
  int64_t last_sync = clock_.now_ms();
  int64_t last_retention = last_sync;
  std::unique_lock lock(bg_mu_);
  while (!stop_) {
    int64_t wait = options_.fsync_interval_ms > 0 ? std::min<int64_t>(options_.fsync_interval_ms, 1000) : 1000;
    bg_cv_.wait_for(lock, std::chrono::milliseconds(wait));
    if (stop_) break;
    lock.unlock();
    int64_t now = clock_.now_ms();
    if (options_.fsync_interval_ms > 0 && now - last_sync >= options_.fsync_interval_ms) {
      if (Status st = sync(); !st) log_.error("storage fsync failed", {{"err", st.message()}});
      last_sync = now;
    }
    bool due;
    {
      std::lock_guard cl(commit_mu_);
      due = boundaries_due_locked(false) > 0;
    }
    if (due) {
      std::lock_guard fl(flush_mu_);
      if (Status st = flush_boundaries(false); !st) log_.error("persisting chunks failed; will retry", {{"err", st.message()}});
    }
    if (now - last_retention >= options_.retention_check_interval_ms) {
      if (Status st = apply_retention(); !st) log_.error("retention failed", {{"err", st.message()}});
      last_retention = now;
    }
    lock.lock();
  }
}

Status Db::close() {
  if (close_called_.exchange(true)) return Status::ok();
  {
    std::lock_guard l(bg_mu_);
    stop_ = true;
  }
  bg_cv_.notify_all();
  if (bg_.joinable()) bg_.join();
  Status st;
  if (wal_) {
    std::lock_guard fl(flush_mu_);
    st = flush_boundaries(false);
    if (!st) log_.warn("persisting chunks at shutdown failed; they stay in the WAL", {{"err", st.message()}});
    Status s2 = sync();
    if (st) st = s2;
  }
  {
    std::lock_guard l(commit_mu_);
    closed_ = true;
  }
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
  return st;
}

DbStats Db::stats() const {
  DbStats s;
  {
    std::lock_guard l(stats_mu_);
    s = counters_;
  }
  HeadMemory m;
  {
    std::lock_guard l(memory_mu_);
    const double now = base::monotonic_seconds();
    if (now - memory_at_ >= 10 || memory_cache_.series != head_.num_series()) {
      memory_cache_ = head_.memory();
      memory_at_ = now;
    }
    m = memory_cache_;
  }
  s.series = m.series;
  s.head_memory_bytes = m.total();
  s.head = head_.counters();
  const int64_t hmin = m.min_t, hmax = m.max_t;  // one pass over the series, not three
  if (hmax != kNoTime) {
    s.min_t = hmin;
    s.max_t = hmax;
  }
  if (chunks_) {
    auto segs = chunks_->segments();
    s.chunk_segments = segs.size();
    for (const auto& g : segs) {
      s.chunk_bytes += g.bytes;
      s.persisted_chunks += g.chunks;
    }
  }
  {
    std::lock_guard l(commit_mu_);
    // The cached head walk may be up to 10 s old; the newest time is exact.
    if (hmax != kNoTime && newest_t_ != kNoTime) s.max_t = std::max(s.max_t, newest_t_);
    s.wal_bytes = wal_ ? wal_->disk_bytes() : files_bytes(options_.path + "/wal");
    s.series_log_bytes = series_log_ ? series_log_->disk_bytes() : files_bytes(options_.path + "/series");
  }
  return s;
}


}  // namespace llmon::tsdb
