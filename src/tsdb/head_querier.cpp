// The head's read side: select() matches series and, under the shared lock,
// copies references to closed chunks and a snapshot of each open chunk's
// bytes, cut to what the querier's epoch may see (head.h "Isolation");
// iterators then decode lazily without any lock.
#include <algorithm>
#include <atomic>
#include <optional>
#include <span>

#include "tsdb/head.h"
#include "tsdb/head_internal.h"

namespace llmon::tsdb {

using head_detail::kNoTime;
using head_detail::MemSeries;
using model::Labels;
using model::Matcher;
using model::Sample;

namespace head_detail {
namespace {

struct ChunkRef {
  std::shared_ptr<const std::vector<uint8_t>> bytes;  // or, when null, read from loc
  ChunkLocation loc;
  int64_t min_t;
  int64_t max_t;         // of the visible samples
  uint32_t num_visible;  // samples of this chunk the querier may see
};

struct SeriesData {
  Labels labels;
  std::vector<ChunkRef> chunks;
  std::shared_ptr<std::atomic<uint64_t>> corrupt;  // the head's counter
};

class ChunkListIterator final : public storage::SeriesIterator {
 public:
  ChunkListIterator(std::shared_ptr<const SeriesData> data, int64_t mint, int64_t maxt)
      : data_(std::move(data)), mint_(mint), maxt_(maxt) {}

  bool next() override {
    while (!done_) {
      if (!dec_ || left_ == 0) {
        if (!open_next()) return finish();
        continue;
      }
      if (!dec_->next()) {
        if (!dec_->err().is_ok()) {
          err_ = dec_->err();
          return finish();
        }
        dec_.reset();
        continue;
      }
      --left_;
      cur_ = dec_->at();
      if (cur_.t_ms < mint_) continue;
      if (cur_.t_ms > maxt_) return finish();
      started_ = true;
      return true;
    }
    return false;
  }

  bool seek(int64_t t_ms) override {
    if (done_) return false;
    if (started_ && cur_.t_ms >= t_ms) return true;
    t_ms = std::max(t_ms, mint_);
    // Skip whole chunks that end before t_ms without decoding them.
    if (!dec_ || left_ == 0 || data_->chunks[ci_ - 1].max_t < t_ms) {
      dec_.reset();
      while (ci_ < data_->chunks.size() && data_->chunks[ci_].max_t < t_ms) ++ci_;
    }
    if (!dec_ && !open_next()) return finish();
    // Inside the chunk, the decoder skips a group's parts that end before t_ms.
    size_t before = dec_->position();
    bool found = dec_->seek(t_ms);
    size_t used = dec_->position() - before;
    if (!found && !dec_->err().is_ok()) {
      err_ = dec_->err();
      return finish();
    }
    if (found && used <= left_) {
      left_ -= used;
      cur_ = dec_->at();
      if (cur_.t_ms > maxt_) return finish();
      started_ = true;
      return true;
    }
    // The chunk holds nothing visible at or after t_ms: go on with the next ones.
    dec_.reset();
    while (next()) {
      if (cur_.t_ms >= t_ms) return true;
    }
    return false;
  }

  Sample at() const override { return cur_; }
  Status err() const override { return err_; }

  void append_until(int64_t maxt_ms, std::vector<Sample>& out) override {
    maxt_ms = std::min(maxt_ms, maxt_);
    if (done_ || !started_ || cur_.t_ms > maxt_ms) return;
    out.push_back(cur_);
    for (;;) {
      if (!dec_ || left_ == 0) {
        if (!open_next()) break;
        continue;
      }
      // Decode straight into `out`, a batch at a time (a chunk may go on
      // long past maxt), then cut at maxt.
      size_t at = out.size(), want = std::min<size_t>(left_, 512);
      out.resize(at + want);
      size_t got = dec_->next_many(out.data() + at, want);
      left_ -= got;
      auto end = out.begin() + static_cast<ptrdiff_t>(at + got);
      auto past = std::upper_bound(out.begin() + static_cast<ptrdiff_t>(at), end, maxt_ms,
                                   [](int64_t t, const Sample& s) { return t < s.t_ms; });
      out.erase(past, out.end());
      if (!dec_->err().is_ok()) {
        err_ = dec_->err();
        break;
      }
      if (past != end) break;  // a sample after maxt_ms
      if (got < want) {        // the decoder ended early without an error (cannot happen)
        left_ = 0;
        continue;
      }
      if (left_ == 0) dec_.reset();
    }
    finish();
  }

 private:
  // Opens the next chunk. A persisted chunk that cannot be read or fails
  // its CRC is skipped (counted; docs/format/chunks.md), not fatal.
  bool open_next() {
    while (ci_ < data_->chunks.size()) {
      const ChunkRef& c = data_->chunks[ci_++];
      std::span<const uint8_t> bytes;
      if (c.bytes) {
        bytes = *c.bytes;
      } else {
        auto loaded = c.loc.segment->read(c.loc.offset, c.loc.length, c.loc.crc);
        if (!loaded) {
          data_->corrupt->fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        loaded_ = std::move(*loaded);
        bytes = loaded_;
      }
      auto d = ChunkDecoder::open(bytes);
      if (!d) {
        err_ = d.status();
        return false;
      }
      dec_.emplace(std::move(*d));
      left_ = c.num_visible;
      return true;
    }
    return false;
  }
  bool finish() {
    done_ = true;
    dec_.reset();
    return false;
  }

  std::shared_ptr<const SeriesData> data_;
  int64_t mint_, maxt_;
  size_t ci_ = 0;
  std::optional<ChunkDecoder> dec_;
  std::vector<uint8_t> loaded_;  // the current persisted chunk's bytes
  size_t left_ = 0;
  Sample cur_;
  bool started_ = false;
  bool done_ = false;
  Status err_;
};

class HeadSeries final : public storage::Series {
 public:
  HeadSeries(std::shared_ptr<const SeriesData> data, int64_t mint, int64_t maxt)
      : data_(std::move(data)), mint_(mint), maxt_(maxt) {}
  const Labels& labels() const override { return data_->labels; }
  std::unique_ptr<storage::SeriesIterator> iterator() const override {
    return std::make_unique<ChunkListIterator>(data_, mint_, maxt_);
  }

 private:
  std::shared_ptr<const SeriesData> data_;
  int64_t mint_, maxt_;
};

class HeadSeriesSet final : public storage::SeriesSet {
 public:
  HeadSeriesSet(std::vector<HeadSeries> series, Status err) : series_(std::move(series)), err_(std::move(err)) {}
  bool next() override {
    if (pos_ >= series_.size()) return false;
    ++pos_;
    return true;
  }
  const storage::Series& at() const override { return series_[pos_ - 1]; }
  Status err() const override { return err_; }

 private:
  std::vector<HeadSeries> series_;
  size_t pos_ = 0;
  Status err_;
};

}  // namespace

class HeadQuerier final : public storage::Querier {
 public:
  HeadQuerier(Head* head, int64_t mint, int64_t maxt, uint64_t epoch)
      : head_(head), mint_(mint), maxt_(maxt), epoch_(epoch) {}
  ~HeadQuerier() override {
    std::lock_guard ql(head_->qmu_);
    head_->live_queriers_.erase(head_->live_queriers_.find(epoch_));
  }

  std::unique_ptr<storage::SeriesSet> select(int64_t mint, int64_t maxt, const std::vector<Matcher>& matchers) override;
  Expected<std::vector<std::string>> label_names() override;
  Expected<std::vector<std::string>> label_values(std::string_view name) override;

 private:
  bool in_range(const MemSeries& s) const { return !s.empty() && s.min_t() <= maxt_ && s.max_t >= mint_; }

  Head* head_;
  int64_t mint_, maxt_;
  uint64_t epoch_;
};

std::unique_ptr<storage::SeriesSet> HeadQuerier::select(int64_t mint, int64_t maxt,
                                                        const std::vector<Matcher>& matchers) {
  mint = std::max(mint, mint_);
  maxt = std::min(maxt, maxt_);
  std::vector<HeadSeries> out;
  std::shared_lock lock(head_->mu_);
  auto refs = head_->index_.select(matchers);
  if (!refs) return std::make_unique<HeadSeriesSet>(std::move(out), refs.status());
  if (mint > maxt) return std::make_unique<HeadSeriesSet>(std::move(out), Status::ok());
  for (storage::SeriesRef ref : *refs) {
    const MemSeries* s = head_->find_locked(ref);
    if (s == nullptr || s->empty()) continue;
    // What this querier's epoch may see: the state before the oldest later commit.
    uint64_t visible = s->total;
    int64_t vis_max_t = s->max_t;
    for (const auto& m : s->marks) {
      if (m.epoch > epoch_) {
        visible = m.count_before;
        vis_max_t = m.max_t_before;
        break;
      }
    }
    if (visible == 0 || vis_max_t < mint || s->min_t() > maxt) continue;
    auto data = std::make_shared<SeriesData>();
    auto add = [&](const std::shared_ptr<const std::vector<uint8_t>>& bytes, const ChunkLocation* loc, int64_t min_t,
                   int64_t max_t, uint64_t first_idx, uint32_t n) {
      if (first_idx >= visible || min_t > maxt) return false;
      uint32_t nv = static_cast<uint32_t>(std::min<uint64_t>(n, visible - first_idx));
      max_t = std::min(max_t, vis_max_t);
      if (max_t < mint) return true;
      data->chunks.push_back({bytes, loc != nullptr ? *loc : ChunkLocation{}, min_t, max_t, nv});
      return true;
    };
    bool more = true;
    for (const auto& c : s->closed) {
      if (!(more = add(c.bytes, c.bytes ? nullptr : &c.loc, c.min_t, c.max_t, c.first_idx, c.num_samples))) break;
    }
    if (more && s->open.num_samples() > 0 && s->open_first_idx < visible && s->open_min_t <= maxt &&
        std::min(s->max_t, vis_max_t) >= mint) {
      auto snap = std::make_shared<const std::vector<uint8_t>>(s->open.bytes());
      add(snap, nullptr, s->open_min_t, s->max_t, s->open_first_idx, static_cast<uint32_t>(s->open.num_samples()));
    }
    if (data->chunks.empty()) continue;
    data->labels = *head_->index_.labels(ref);
    data->corrupt = head_->corrupt_chunks_;
    out.emplace_back(std::move(data), mint, maxt);
  }
  lock.unlock();
  std::sort(out.begin(), out.end(), [](const HeadSeries& a, const HeadSeries& b) { return a.labels() < b.labels(); });
  return std::make_unique<HeadSeriesSet>(std::move(out), Status::ok());
}

Expected<std::vector<std::string>> HeadQuerier::label_names() {
  std::vector<std::string> out;
  std::shared_lock lock(head_->mu_);
  for (const std::string& name : head_->index_.label_names()) {
    for (const std::string& value : head_->index_.label_values(name)) {
      const auto& list = head_->index_.postings(name, value);
      if (std::any_of(list.begin(), list.end(), [&](storage::SeriesRef r) {
            const MemSeries* s = head_->find_locked(r);
            return s != nullptr && in_range(*s);
          })) {
        out.push_back(name);
        break;
      }
    }
  }
  return out;
}

Expected<std::vector<std::string>> HeadQuerier::label_values(std::string_view name) {
  std::vector<std::string> out;
  std::shared_lock lock(head_->mu_);
  for (std::string& value : head_->index_.label_values(name)) {
    const auto& list = head_->index_.postings(name, value);
    if (std::any_of(list.begin(), list.end(), [&](storage::SeriesRef r) {
          const MemSeries* s = head_->find_locked(r);
          return s != nullptr && in_range(*s);
        })) {
      out.push_back(std::move(value));
    }
  }
  return out;
}

}  // namespace head_detail

Expected<std::unique_ptr<storage::Querier>> Head::querier(int64_t mint_ms, int64_t maxt_ms) {
  if (mint_ms > maxt_ms)
    return Status::error("querier: mint " + std::to_string(mint_ms) + " > maxt " + std::to_string(maxt_ms));
  std::shared_lock lock(mu_);
  uint64_t epoch = epoch_;
  {
    std::lock_guard ql(qmu_);
    live_queriers_.insert(epoch);
  }
  return std::unique_ptr<storage::Querier>(std::make_unique<head_detail::HeadQuerier>(this, mint_ms, maxt_ms, epoch));
}

}  // namespace llmon::tsdb
