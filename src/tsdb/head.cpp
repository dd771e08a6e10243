// The head's write side: series creation, appends buffered per cycle and
// applied under one exclusive lock, chunk cutting and retention. Reads are in
// head_querier.cpp. Chunks follow docs/format/chunk.md (tsdb/chunk.h).
#include "tsdb/head.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "tsdb/head_internal.h"

namespace llmon::tsdb {

using head_detail::ClosedChunk;
using head_detail::CommitMark;
using head_detail::kNoTime;
using head_detail::MemSeries;
using model::Labels;
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

// How many samples ahead append() prefetches a series (MemSeries::next_hint).
constexpr size_t kAppendAhead = 8;

class HeadAppender final : public storage::Appender {
 public:
  explicit HeadAppender(Head* head)
      : head_(head), id_(head->next_appender_id_.fetch_add(1, std::memory_order_relaxed)) {
    std::lock_guard l(head_->qmu_);
    buf_ = std::move(head_->spare_buffers_);
    if (!buf_) buf_ = std::make_unique<AppendBuffers>();
  }
  ~HeadAppender() override {
    if (!done_) (void)rollback();
  }

  Expected<SeriesRef> append(SeriesRef ref, const Labels& labels, int64_t t_ms, double v) override;
  Status commit() override;
  Status rollback() override;

 private:
  // Creates the series under the exclusive lock (or finds it, created meanwhile).
  Expected<SeriesRef> create(const Labels& labels);
  // Checks the sample against the series' committed and buffered samples and
  // buffers it. Under the shared lock (s stays alive).
  Expected<SeriesRef> buffer_locked(MemSeries& s, int64_t t_ms, uint64_t bits);
  // The series of a buffered sample; under either lock.
  MemSeries* series_of(const AppendBuffers::Pending& p) const {
    return head_->series_gen_ == gen_ ? p.series : head_->find_locked(p.ref);
  }
  // Gives back the ownership of the buffered series. Under either lock.
  void disown_locked();

  // Returns the buffers to the head for the next appender (allocation-free cycles).
  void release();

  Head* head_;
  const uint64_t id_;  // MemSeries::owner tag
  uint64_t gen_ = 0;   // Head::series_gen_ when the first sample was buffered
  bool done_ = false;
  std::unique_ptr<AppendBuffers> buf_;
};

Expected<SeriesRef> HeadAppender::create(const Labels& labels) {
  std::unique_lock lock(head_->mu_);
  SeriesRef ref = head_->index_.find(labels);
  if (ref != 0) return ref;
  ref = head_->next_ref_++;
  head_->add_series_locked(ref, labels.hash());
  head_->index_.add(ref, labels);
  return ref;
}

Expected<SeriesRef> HeadAppender::append(SeriesRef ref, const Labels& labels, int64_t t_ms, double v) {
  if (done_) return Status::error("append after commit/rollback");
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  // Twice at most: a series not found is created, then buffered on the second pass.
  for (int pass = 0; pass < 2; ++pass) {
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
      if (s != nullptr) {
        // Callers go through their series in the same order every cycle (a
        // scrape's page, a collector's snapshot): fetching the series that
        // came kAppendAhead later last time hides the cache miss its check
        // will take (a wrong guess costs a prefetch).
        if (const auto* next = static_cast<const char*>(s->next_hint)) {
          __builtin_prefetch(next, 1);
          __builtin_prefetch(next + 64, 1);
        }
        return buffer_locked(*s, t_ms, bits);
      }
    }
    if (pass == 1) break;
    auto created = create(labels);
    if (!created) return created.status();
    ref = *created;
  }
  // Created, then removed again before it could be buffered (cannot happen:
  // a new series survives one truncation).
  head_->unknown_ref_.fetch_add(1, std::memory_order_relaxed);
  return Status::error("series " + labels.to_string() + " removed while being created");
}

Expected<SeriesRef> HeadAppender::buffer_locked(MemSeries& s, int64_t t_ms, uint64_t bits) {
  const SeriesRef ref = s.ref;
  AppendBuffers::Last last{kNoTime, 0};
  bool have_last = false;
  bool last_known = true;
  const uint64_t owner = s.owner.load(std::memory_order_acquire);
  const bool mine = owner == id_;
  AppendBuffers::Last* in_map = nullptr;
  if (mine) {
    last = {s.pending_t, s.pending_v_bits};
    have_last = true;
  } else {
    if (s.total > 0) {
      last = {s.max_t, s.last_v_bits};
      have_last = true;
      last_known = s.last_v_known;
    }
    if ((in_map = buf_->last.find(ref)) != nullptr) {
      last = *in_map;
      have_last = true;
      last_known = true;
    }
  }
  if (have_last) {
    if (t_ms < last.t) {
      head_->out_of_order_.fetch_add(1, std::memory_order_relaxed);
      return Status::error("out of order sample: " + std::to_string(t_ms) + " ms < newest " + std::to_string(last.t));
    }
    if (t_ms == last.t) {
      if (last_known && bits == last.v_bits) return ref;  // exact duplicate: ignored
      head_->duplicate_.fetch_add(1, std::memory_order_relaxed);
      return Status::error("duplicate sample for timestamp " + std::to_string(t_ms) + " with a different value");
    }
  }
  // Accepted. Kept in the series if this appender owns it or can claim it
  // (never after it used the map for this series: the map has the newest).
  uint64_t expected = 0;
  if (mine ||
      (in_map == nullptr && owner == 0 && s.owner.compare_exchange_strong(expected, id_, std::memory_order_acquire))) {
    s.pending_t = t_ms;
    s.pending_v_bits = bits;
  } else if (in_map != nullptr) {
    *in_map = {t_ms, bits};
  } else {
    buf_->last.put(ref, {t_ms, bits});
  }
  if (buf_->pending.empty()) gen_ = head_->series_gen_;
  buf_->pending.push_back({&s, ref, t_ms, bits});
  return ref;
}

void HeadAppender::disown_locked() {
  for (const AppendBuffers::Pending& p : buf_->pending) {
    MemSeries* s = series_of(p);
    if (s == nullptr) continue;
    uint64_t expected = id_;
    s->owner.compare_exchange_strong(expected, 0, std::memory_order_release, std::memory_order_relaxed);
  }
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
  const std::vector<AppendBuffers::Pending>& pending = buf_->pending;
  const bool direct = h.series_gen_ == gen_;  // the buffered pointers are valid
  // The series and their open chunks are cold (a scrape's thousands of
  // series since append()): fetch the series 2k ahead, and the tail of its
  // open chunk (found in the series, fetched by then) k ahead.
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < pending.size(); ++i) {
    const AppendBuffers::Pending& p = pending[i];
    if (direct && i + 2 * kAhead < pending.size()) {
      const auto* ahead = reinterpret_cast<const char*>(pending[i + 2 * kAhead].series);
      __builtin_prefetch(ahead, 1);
      __builtin_prefetch(ahead + 64, 1);
      __builtin_prefetch(ahead + 128, 1);
      __builtin_prefetch(ahead + 192, 1);
    }
    if (direct && i + kAhead < pending.size()) {
      const std::vector<uint8_t>& b = pending[i + kAhead].series->open.bytes();
      if (!b.empty()) __builtin_prefetch(b.data() + b.size() - 1, 1);
    }
    MemSeries* s = direct ? p.series : h.find_locked(p.ref);
    // Re-checked: another appender or truncate_before may have run since append().
    if (s == nullptr) {
      h.unknown_ref_.fetch_add(1, std::memory_order_relaxed);
      ++rejected;
      continue;
    }
    if (direct) s->next_hint = i + kAppendAhead < pending.size() ? pending[i + kAppendAhead].series : nullptr;
    // Given back (exclusive lock: no one else reads it now); another
    // appender's claim stays (this one used its map for the series).
    if (s->owner.load(std::memory_order_relaxed) == id_) s->owner.store(0, std::memory_order_relaxed);
    if (p.t < h.min_valid_t_) {
      h.out_of_bounds_.fetch_add(1, std::memory_order_relaxed);
      ++rejected;
      continue;
    }
    if (s->total > 0 && p.t <= s->max_t) {
      if (p.t == s->max_t && p.v_bits == s->last_v_bits && s->last_v_known) continue;
      (p.t < s->max_t ? h.out_of_order_ : h.duplicate_).fetch_add(1, std::memory_order_relaxed);
      ++rejected;
      continue;
    }
    if (s->last_epoch != epoch) {
      if (!s->marks.empty()) std::erase_if(s->marks, [low](const CommitMark& m) { return m.epoch <= low; });
      if (queriers) s->marks.push_back({epoch, s->total, s->max_t});
      s->last_epoch = epoch;
    }
    size_t n = s->open.num_samples();
    if (n > 0 && (n >= opt.chunk_max_samples || p.t >= next_boundary(s->open_min_t, opt.chunk_range_ms))) {
      h.close_open_locked(*s);
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
    s->last_v_known = true;
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
  if (!buf_->pending.empty()) {
    std::shared_lock lock(head_->mu_);
    disown_locked();
  }
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
  return ref < by_ref_.size() ? by_ref_[ref] : nullptr;
}

void Head::add_series_locked(SeriesRef ref, uint64_t hash) {
  auto s = std::make_unique<MemSeries>(ref, hash, options_.encoding);
  if (by_ref_.size() <= ref) by_ref_.resize(std::max<size_t>(ref + 1, by_ref_.size() * 3 / 2));
  by_ref_[ref] = s.get();
  series_.emplace(ref, std::move(s));
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
      closed_chunk_bytes_ -= s->closed[drop].mem_bytes();
      ++drop;
    }
    if (drop > 0) {
      s->closed.erase(s->closed.begin(), s->closed.begin() + static_cast<ptrdiff_t>(drop));
      closed_chunks_ -= drop;
      r.chunks_removed += drop;
    }
    // Nothing newer than t. A series that never had a sample (created by an
    // append() whose commit is still to come, or rolled back) goes at the
    // second truncation that finds it empty.
    if (s->closed.empty() && s->open.num_samples() == 0 && s->total == 0) {
      if (s->empty_at_truncation) {
        gone.push_back(ref);
      } else {
        s->empty_at_truncation = true;
      }
    } else if (s->closed.empty() && (s->open.num_samples() == 0 || s->max_t < t_ms)) {
      if (s->open.num_samples() > 0) ++r.chunks_removed;
      gone.push_back(ref);
    }
  }
  if (!gone.empty()) ++series_gen_;
  for (SeriesRef ref : gone) {
    series_.erase(ref);
    by_ref_[ref] = nullptr;
  }
  index_.remove(gone);
  r.series_removed = gone.size();
  r.removed = std::move(gone);
  return r;
}

HeadMemory Head::memory() const {
  HeadMemory m;
  std::shared_lock lock(mu_);
  m.series = series_.size();
  m.closed_chunks = closed_chunks_;
  m.chunk_bytes = closed_chunk_bytes_;
  // In ref order through by_ref_ (sequential, unlike the map's nodes),
  // fetching the series a few refs ahead: the walk is cache misses otherwise.
  constexpr size_t kAhead = 8;
  for (size_t r = 0; r < by_ref_.size(); ++r) {
    if (r + kAhead < by_ref_.size() && by_ref_[r + kAhead] != nullptr) {
      const auto* ahead = reinterpret_cast<const char*>(by_ref_[r + kAhead]);
      for (size_t at = 0; at < sizeof(MemSeries); at += 64) __builtin_prefetch(ahead + at);
    }
    const MemSeries* s = by_ref_[r];
    if (s == nullptr) continue;
    m.max_t = std::max(m.max_t, s->max_t);
    if (!s->empty()) m.min_t = std::min(m.min_t, s->min_t());
    m.samples += s->open.num_samples();
    for (const auto& c : s->closed) {
      m.samples += c.num_samples;
      if (c.persisted()) {
        m.persisted_samples += c.num_samples;
        ++m.persisted_chunks;
      }
    }
    m.chunk_bytes += s->open.bytes().capacity();
    m.series_bytes += sizeof(MemSeries) + 64 /* map node */ + s->closed.capacity() * sizeof(ClosedChunk) +
                      s->closed.size() * 48 /* shared_ptr control block + vector (in-memory chunks) */ +
                      s->marks.capacity() * sizeof(CommitMark);
  }
  m.index_bytes = index_.bytes();
  return m;
}

void Head::close_open_locked(MemSeries& s) {
  size_t n = s.open.num_samples();
  if (n == 0) return;
  auto bytes = std::make_shared<std::vector<uint8_t>>(s.open.bytes());
  closed_chunk_bytes_ += bytes->size();
  ++closed_chunks_;
  ClosedChunk c;
  c.bytes = std::move(bytes);
  c.min_t = s.open_min_t;
  c.max_t = s.max_t;
  c.first_idx = s.open_first_idx;
  c.num_samples = static_cast<uint32_t>(n);
  s.closed.push_back(std::move(c));
  s.open = ChunkEncoder(options_.encoding);
}

int64_t Head::max_time() const {
  std::shared_lock lock(mu_);
  int64_t t = kNoTime;
  for (const auto& [ref, s] : series_) t = std::max(t, s->max_t);
  return t;
}

int64_t Head::min_time() const {
  std::shared_lock lock(mu_);
  int64_t t = std::numeric_limits<int64_t>::max();
  for (const auto& [ref, s] : series_) {
    if (!s->empty()) t = std::min(t, s->min_t());
  }
  return t;
}

Status Head::restore_series(SeriesRef ref, const Labels& labels) {
  std::unique_lock lock(mu_);
  if (ref < next_ref_) {
    return Status::error("restore series: ref " + std::to_string(ref) + " is not above the highest ref " +
                         std::to_string(next_ref_ - 1));
  }
  if (index_.find(labels) != 0) return Status::error("restore series: " + labels.to_string() + " exists twice");
  add_series_locked(ref, labels.hash());
  index_.add(ref, labels);
  next_ref_ = ref + 1;
  return Status::ok();
}

bool Head::attach_chunk(const PersistedChunk& chunk) {
  std::unique_lock lock(mu_);
  MemSeries* s = find_locked(chunk.meta.ref);
  if (s == nullptr) return false;
  ClosedChunk c;
  c.loc = chunk.loc;
  c.min_t = chunk.meta.min_t;
  c.max_t = chunk.meta.max_t;
  c.num_samples = chunk.meta.num_samples;
  s->closed.push_back(std::move(c));
  ++closed_chunks_;
  return true;
}

size_t Head::finish_recovery() {
  std::unique_lock lock(mu_);
  size_t dropped = 0;
  for (auto& [ref, s] : series_) {
    auto& cl = s->closed;
    std::stable_sort(cl.begin(), cl.end(), [](const ClosedChunk& a, const ClosedChunk& b) { return a.min_t < b.min_t; });
    std::vector<ClosedChunk> kept;
    kept.reserve(cl.size());
    for (auto& c : cl) {
      if (!kept.empty() && c.min_t <= kept.back().max_t) {  // overlaps (e.g. a chunk written twice)
        closed_chunk_bytes_ -= c.mem_bytes();
        ++dropped;
        continue;
      }
      kept.push_back(std::move(c));
    }
    cl = std::move(kept);
    uint64_t idx = 0;
    for (auto& c : cl) {
      c.first_idx = idx;
      idx += c.num_samples;
    }
    if (s->open.num_samples() == 0 && !cl.empty()) {
      s->total = idx;
      s->max_t = cl.back().max_t;
      s->last_v_known = false;
    }
  }
  closed_chunks_ -= dropped;
  return dropped;
}

size_t Head::close_chunks_before(int64_t t) {
  std::unique_lock lock(mu_);
  size_t n = 0;
  for (auto& [ref, s] : series_) {
    if (s->open.num_samples() > 0 && next_boundary(s->open_min_t, options_.chunk_range_ms) <= t) {
      close_open_locked(*s);
      ++n;
    }
  }
  return n;
}

size_t Head::close_all_chunks() {
  std::unique_lock lock(mu_);
  size_t n = 0;
  for (auto& [ref, s] : series_) {
    if (s->open.num_samples() > 0) {
      close_open_locked(*s);
      ++n;
    }
  }
  return n;
}

std::vector<PendingChunk> Head::unpersisted_chunks() const {
  std::vector<PendingChunk> out;
  std::shared_lock lock(mu_);
  for (const auto& [ref, s] : series_) {
    size_t i = s->closed.size();
    while (i > 0 && !s->closed[i - 1].persisted()) --i;
    for (; i < s->closed.size(); ++i) {
      const ClosedChunk& c = s->closed[i];
      out.push_back({{ref, c.min_t, c.max_t, static_cast<uint16_t>(c.num_samples)}, c.bytes});
    }
  }
  return out;
}

void Head::mark_persisted(const std::vector<PendingChunk>& batch, const std::vector<ChunkLocation>& locs) {
  std::unique_lock lock(mu_);
  for (size_t i = 0; i < batch.size() && i < locs.size(); ++i) {
    MemSeries* s = find_locked(batch[i].meta.ref);
    if (s == nullptr) continue;  // removed by retention meanwhile
    for (auto it = s->closed.rbegin(); it != s->closed.rend(); ++it) {
      if (it->min_t == batch[i].meta.min_t && it->bytes == batch[i].bytes) {
        closed_chunk_bytes_ -= it->mem_bytes();
        it->loc = locs[i];
        it->bytes.reset();
        break;
      }
    }
  }
}

std::vector<std::pair<SeriesRef, Labels>> Head::series_after(SeriesRef after) const {
  std::vector<std::pair<SeriesRef, Labels>> out;
  std::shared_lock lock(mu_);
  for (SeriesRef r = after + 1; r < next_ref_; ++r) {
    if (find_locked(r) == nullptr) continue;
    if (const Labels* l = index_.labels(r)) out.emplace_back(r, *l);
  }
  return out;
}

void Head::reserve_refs(SeriesRef ref) {
  std::unique_lock lock(mu_);
  next_ref_ = std::max(next_ref_, ref + 1);
}

SeriesRef Head::max_ref() const {
  std::shared_lock lock(mu_);
  return next_ref_ - 1;
}

std::vector<std::pair<std::string, size_t>> Head::series_per_value(std::string_view name) const {
  std::vector<std::pair<std::string, size_t>> out;
  std::shared_lock lock(mu_);
  for (std::string& v : index_.label_values(name)) {
    size_t n = index_.postings(name, v).size();
    out.emplace_back(std::move(v), n);
  }
  return out;
}

std::vector<std::pair<std::string, size_t>> Head::values_per_label() const {
  std::vector<std::pair<std::string, size_t>> out;
  std::shared_lock lock(mu_);
  for (std::string& n : index_.label_names()) {
    size_t k = index_.label_values(n).size();
    out.emplace_back(std::move(n), k);
  }
  return out;
}

void Head::reset_counters() {
  out_of_order_ = duplicate_ = out_of_bounds_ = unknown_ref_ = 0;
}

HeadCounters Head::counters() const {
  HeadCounters c;
  c.out_of_order = out_of_order_.load(std::memory_order_relaxed);
  c.duplicate = duplicate_.load(std::memory_order_relaxed);
  c.out_of_bounds = out_of_bounds_.load(std::memory_order_relaxed);
  c.unknown_ref = unknown_ref_.load(std::memory_order_relaxed);
  c.samples_appended = appended_.load(std::memory_order_relaxed);
  c.corrupt_chunks = corrupt_chunks_->load(std::memory_order_relaxed);
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
