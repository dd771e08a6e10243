// The head's write side: series creation, appends buffered per cycle and
// applied under one exclusive lock, chunk cutting and retention. Reads are in
// head_querier.cpp. Chunks follow docs/format/chunk.md (tsdb/chunk.h).
#include "tsdb/head.h"

#include <algorithm>
#include <bit>
#include <string>

#include "tsdb/head_internal.h"

namespace llmon::tsdb {

using head_detail::ClosedChunk;
using head_detail::CommitMark;
using head_detail::kNoTime;
using head_detail::MemSeries;
using storage::Labels;
using storage::SeriesRef;

namespace {

// The first multiple of `range` strictly after t (floor division for t < 0).
int64_t next_boundary(int64_t t, int64_t range) {
  int64_t q = t / range;
  if (t % range != 0 && t < 0) --q;
  return (q + 1) * range;
}

}  // namespace

namespace head_detail {

class HeadAppender final : public storage::Appender {
 public:
  explicit HeadAppender(Head* head) : head_(head) {
    std::lock_guard l(head_->qmu_);
    buf_ = std::move(head_->spare_buffers_);
    if (!buf_) buf_ = std::make_unique<AppendBuffers>();
  }
  ~HeadAppender() override { release(); }

  Expected<SeriesRef> append(SeriesRef ref, const Labels& labels, int64_t t_ms, double v) override;
  Status commit() override;
  Status rollback() override;

 private:
  Expected<SeriesRef> create(const Labels& labels);

  // Returns the buffers to the head for the next appender (allocation-free cycles).
  void release();

  Head* head_;
  bool done_ = false;
  std::unique_ptr<AppendBuffers> buf_;
};

Expected<SeriesRef> HeadAppender::create(const Labels& labels) {
  std::unique_lock lock(head_->mu_);
  SeriesRef ref = head_->index_.find(labels);
  if (ref != 0) return ref;
  ref = head_->next_ref_++;
  head_->series_.emplace(ref, std::make_unique<MemSeries>(ref, labels.hash(), head_->options_.encoding));
  head_->index_.add(ref, labels);
  return ref;
}

Expected<SeriesRef> HeadAppender::append(SeriesRef ref, const Labels& labels, int64_t t_ms, double v) {
  if (done_) return Status::error("append after commit/rollback");
  uint64_t bits = std::bit_cast<uint64_t>(v);
  AppendBuffers::Last last{kNoTime, 0};
  bool have_last = false;
  {
    std::shared_lock lock(head_->mu_);
    MemSeries* s = ref != 0 ? head_->find_locked(ref) : nullptr;
    if (s != nullptr && !labels.empty() && labels.hash() != s->hash) {
      return Status::error("series ref " + std::to_string(ref) + " does not belong to " + labels.to_string());
    }
    if (s == nullptr) {
      if (labels.empty()) {
        head_->unknown_ref_.fetch_add(1, std::memory_order_relaxed);
        return Status::error("unknown series ref " + std::to_string(ref) + " and no labels");
      }
      ref = head_->index_.find(labels);
      s = ref != 0 ? head_->find_locked(ref) : nullptr;
    }
    if (t_ms < head_->min_valid_t_) {
      head_->out_of_bounds_.fetch_add(1, std::memory_order_relaxed);
      return Status::error("out of bounds: sample at " + std::to_string(t_ms) + " ms is before the head's minimum " +
                           std::to_string(head_->min_valid_t_));
    }
    if (s != nullptr && s->total > 0) {
      last = {s->max_t, s->last_v_bits};
      have_last = true;
    }
  }
  if (ref == 0) {
    auto created = create(labels);
    if (!created) return created.status();
    ref = *created;
  }
  if (const AppendBuffers::Last* b = buf_->last.find(ref)) {
    last = *b;
    have_last = true;
  }
  if (have_last) {
    if (t_ms < last.t) {
      head_->out_of_order_.fetch_add(1, std::memory_order_relaxed);
      return Status::error("out of order sample: " + std::to_string(t_ms) + " ms < newest " + std::to_string(last.t));
    }
    if (t_ms == last.t) {
      if (bits == last.v_bits) return ref;  // exact duplicate: ignored
      head_->duplicate_.fetch_add(1, std::memory_order_relaxed);
      return Status::error("duplicate sample for timestamp " + std::to_string(t_ms) + " with a different value");
    }
  }
  buf_->pending.push_back({ref, t_ms, bits});
  buf_->last.put(ref, {t_ms, bits});
  return ref;
}

Status HeadAppender::commit() {
  if (done_) return Status::error("commit after commit/rollback");
  done_ = true;
  if (buf_->pending.empty()) {
    release();
    return Status::ok();
  }
  Head& h = *head_;
  const HeadOptions& opt = h.options_;
  uint64_t rejected = 0;
  uint64_t applied = 0;
  std::unique_lock lock(h.mu_);
  uint64_t epoch = ++h.epoch_;
  uint64_t low;
  bool queriers;
  {
    std::lock_guard ql(h.qmu_);
    queriers = !h.live_queriers_.empty();
    low = h.low_watermark_locked();
  }
  for (const AppendBuffers::Pending& p : buf_->pending) {
    MemSeries* s = h.find_locked(p.ref);
    // Re-checked: another appender or truncate_before may have run since append().
    if (s == nullptr) {
      h.unknown_ref_.fetch_add(1, std::memory_order_relaxed);
      ++rejected;
      continue;
    }
    if (p.t < h.min_valid_t_) {
      h.out_of_bounds_.fetch_add(1, std::memory_order_relaxed);
      ++rejected;
      continue;
    }
    if (s->total > 0 && p.t <= s->max_t) {
      if (p.t == s->max_t && p.v_bits == s->last_v_bits) continue;
      (p.t < s->max_t ? h.out_of_order_ : h.duplicate_).fetch_add(1, std::memory_order_relaxed);
      ++rejected;
      continue;
    }
    if (s->last_epoch != epoch) {
      std::erase_if(s->marks, [low](const CommitMark& m) { return m.epoch <= low; });
      if (queriers) s->marks.push_back({epoch, s->total, s->max_t});
      s->last_epoch = epoch;
    }
    size_t n = s->open.num_samples();
    if (n > 0 && (n >= opt.chunk_max_samples || p.t >= next_boundary(s->open_min_t, opt.chunk_range_ms))) {
      auto bytes = std::make_shared<std::vector<uint8_t>>(s->open.bytes());
      h.closed_chunk_bytes_ += bytes->size();
      ++h.closed_chunks_;
      s->closed.push_back({std::move(bytes), s->open_min_t, s->max_t, s->open_first_idx, static_cast<uint32_t>(n)});
      s->open = ChunkEncoder(opt.encoding);
      n = 0;
    }
    Status st = s->open.append(p.t, std::bit_cast<double>(p.v_bits));
    if (!st.is_ok()) {  // cannot happen after the checks above; counted, never fatal
      h.out_of_order_.fetch_add(1, std::memory_order_relaxed);
      ++rejected;
      continue;
    }
    if (n == 0) {
      s->open_min_t = p.t;
      s->open_first_idx = s->total;
    }
    ++s->total;
    ++applied;
    s->max_t = p.t;
    s->last_v_bits = p.v_bits;
  }
  lock.unlock();
  h.appended_.fetch_add(applied, std::memory_order_relaxed);
  release();
  if (rejected > 0) {
    return Status::error(std::to_string(rejected) + " samples rejected at commit (series changed concurrently)");
  }
  return Status::ok();
}

Status HeadAppender::rollback() {
  if (done_) return Status::error("rollback after commit/rollback");
  done_ = true;
  release();
  return Status::ok();
}

void HeadAppender::release() {
  if (!buf_) return;
  buf_->last.clear();
  buf_->pending.clear();
  std::lock_guard l(head_->qmu_);
  head_->spare_buffers_ = std::move(buf_);
}

}  // namespace head_detail

Head::Head(HeadOptions options) : options_(options), min_valid_t_(kNoTime) {
  if (options_.chunk_range_ms <= 0) options_.chunk_range_ms = HeadOptions{}.chunk_range_ms;
  options_.chunk_max_samples = std::clamp<size_t>(options_.chunk_max_samples, 1, kMaxChunkSamples);
}

Head::~Head() = default;

std::unique_ptr<storage::Appender> Head::appender() {
  return std::make_unique<head_detail::HeadAppender>(this);
}

MemSeries* Head::find_locked(SeriesRef ref) const {
  auto it = series_.find(ref);
  return it == series_.end() ? nullptr : it->second.get();
}

uint64_t Head::low_watermark_locked() const {
  return live_queriers_.empty() ? epoch_ : *live_queriers_.begin();
}

TruncateResult Head::truncate_before(int64_t t_ms) {
  TruncateResult r;
  std::unique_lock lock(mu_);
  min_valid_t_ = std::max(min_valid_t_, t_ms);
  std::vector<SeriesRef> gone;
  for (auto& [ref, s] : series_) {
    size_t drop = 0;
    while (drop < s->closed.size() && s->closed[drop].max_t < t_ms) {
      closed_chunk_bytes_ -= s->closed[drop].bytes->size();
      ++drop;
    }
    if (drop > 0) {
      s->closed.erase(s->closed.begin(), s->closed.begin() + static_cast<ptrdiff_t>(drop));
      closed_chunks_ -= drop;
      r.chunks_removed += drop;
    }
    // Nothing newer than t (or never had a sample, e.g. a rolled-back append).
    if (s->closed.empty() && (s->open.num_samples() == 0 || s->max_t < t_ms)) {
      if (s->open.num_samples() > 0) ++r.chunks_removed;
      gone.push_back(ref);
    }
  }
  for (SeriesRef ref : gone) series_.erase(ref);
  index_.remove(gone);
  r.series_removed = gone.size();
  return r;
}

HeadMemory Head::memory() const {
  HeadMemory m;
  std::shared_lock lock(mu_);
  m.series = series_.size();
  m.closed_chunks = closed_chunks_;
  m.chunk_bytes = closed_chunk_bytes_;
  for (const auto& [ref, s] : series_) {
    m.samples += s->open.num_samples();
    for (const auto& c : s->closed) m.samples += c.num_samples;
    m.chunk_bytes += s->open.bytes().capacity();
    m.series_bytes += sizeof(MemSeries) + 64 /* map node */ + s->closed.capacity() * sizeof(ClosedChunk) +
                      s->closed.size() * 48 /* shared_ptr control block + vector */ +
                      s->marks.capacity() * sizeof(CommitMark);
  }
  m.index_bytes = index_.bytes();
  return m;
}

HeadCounters Head::counters() const {
  HeadCounters c;
  c.out_of_order = out_of_order_.load(std::memory_order_relaxed);
  c.duplicate = duplicate_.load(std::memory_order_relaxed);
  c.out_of_bounds = out_of_bounds_.load(std::memory_order_relaxed);
  c.unknown_ref = unknown_ref_.load(std::memory_order_relaxed);
  c.samples_appended = appended_.load(std::memory_order_relaxed);
  return c;
}

size_t Head::num_series() const {
  std::shared_lock lock(mu_);
  return series_.size();
}

int64_t Head::min_valid_time() const {
  std::shared_lock lock(mu_);
  return min_valid_t_;
}

}  // namespace llmon::tsdb
