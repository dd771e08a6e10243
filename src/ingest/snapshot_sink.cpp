#include "ingest/snapshot_sink.h"

#include <algorithm>

#include "ingest/target_labels.h"

namespace llmon::ingest {

namespace {

void build_key(const model::Family& f, const model::Series& s, std::string& key) {
  key.clear();
  key += f.name;
  key += '\xff';
  for (size_t i = 0; i < f.label_names.size(); ++i) {
    key += f.label_names[i];
    key += '\xfe';
    if (i < s.label_values.size()) key += s.label_values[i];
    key += '\xff';
  }
}

// build_key(f, s) == key, without building it.
bool key_matches(std::string_view key, const model::Family& f, const model::Series& s) {
  auto take = [&key](std::string_view part, char sep) {
    if (key.size() < part.size() + 1 || key.compare(0, part.size(), part) != 0 || key[part.size()] != sep) {
      return false;
    }
    key.remove_prefix(part.size() + 1);
    return true;
  };
  if (!take(f.name, '\xff')) return false;
  for (size_t i = 0; i < f.label_names.size(); ++i) {
    std::string_view v = i < s.label_values.size() ? std::string_view(s.label_values[i]) : std::string_view();
    if (!take(f.label_names[i], '\xfe') || !take(v, '\xff')) return false;
  }
  return key.empty();
}

// Prometheus's report series (scrape/scrape.go), in the order it appends them.
constexpr std::string_view kReportNames[] = {"up", "scrape_duration_seconds", "scrape_samples_scraped",
                                             "scrape_samples_post_metric_relabeling", "scrape_series_added"};

}  // namespace

SnapshotSink::SnapshotSink(storage::Storage& storage, SnapshotSinkOptions opts)
    : storage_(storage), opts_(std::move(opts)) {
  if (opts_.target_labels.empty()) return;
  for (std::string_view name : kReportNames) {
    std::vector<model::Label> pairs = opts_.target_labels;
    pairs.push_back({"__name__", std::string(name)});
    Entry e;
    auto labels = model::Labels::make(std::move(pairs));
    if (labels) {
      e.labels = std::move(*labels);
    } else {
      e.valid = false;
    }
    report_.push_back(std::move(e));
  }
}

SnapshotSink::Entry* SnapshotSink::lookup(const model::Family& f, const model::Series& s, Entry* cached,
                                          bool& created) {
  created = false;
  if (cached != nullptr && key_matches(cached->key, f, s)) return cached;
  build_key(f, s, key_buf_);
  auto it = entries_.find(key_buf_);
  if (it != entries_.end()) return &it->second;
  created = true;
  Entry e;
  e.key = key_buf_;
  std::vector<model::Label> pairs;
  pairs.reserve(f.label_names.size() + 1);
  pairs.push_back({"__name__", f.name});
  for (size_t i = 0; i < f.label_names.size(); ++i) {
    pairs.push_back({f.label_names[i], i < s.label_values.size() ? s.label_values[i] : std::string()});
  }
  if (!opts_.target_labels.empty()) apply_target_labels(pairs, opts_.target_labels, false);
  auto labels = model::Labels::make(std::move(pairs));
  labels_built_.fetch_add(1, std::memory_order_relaxed);
  if (labels) {
    e.labels = std::move(*labels);
  } else {
    e.valid = false;
  }
  return &entries_.emplace(key_buf_, std::move(e)).first->second;
}

Status SnapshotSink::append_snapshot(const model::Snapshot& snap) {
  ++cycle_;
  cycles_.fetch_add(1, std::memory_order_relaxed);
  const int64_t t = snap.timestamp_ms;
  auto app = storage_.appender();
  uint64_t ok = 0, rejected = 0, invalid = 0, stale = 0;
  Counts counts;
  next_live_.clear();

  by_pos_.resize(snap.families.size());
  for (size_t fi = 0; fi < snap.families.size(); ++fi) {
    const model::Family& f = snap.families[fi];
    auto& pos = by_pos_[fi];
    if (pos.size() != f.series.size()) pos.resize(f.series.size(), nullptr);
    for (size_t si = 0; si < f.series.size(); ++si) {
      const model::Series& s = f.series[si];
      bool created = false;
      Entry* e = lookup(f, s, pos[si], created);
      pos[si] = e;
      ++counts.scraped;
      if (e->last_seen != cycle_) {
        e->last_seen = cycle_;
        next_live_.push_back(e);
      }
      if (!e->valid) {
        ++invalid;
        continue;
      }
      auto r = app->append(e->ref, e->labels, t, s.value);
      if (r) {
        e->ref = *r;
        ++ok;
        if (created) ++counts.series_added;
      } else {
        ++rejected;
      }
    }
  }

  // Series of the previous cycle missing from this one: staleness marker, then forget.
  counts.added = ok;  // the cycle's samples the store took, before staleness markers
  for (Entry* e : live_) {
    if (e->last_seen == cycle_) continue;
    if (e->valid) {
      auto r = app->append(e->ref, e->labels, t, model::stale_nan());
      if (r) {
        ++ok;
        ++stale;
      } else {
        ++rejected;
      }
    }
    entries_.erase(e->key);  // not referenced by by_pos_: every position was rewritten above
  }
  live_.swap(next_live_);
  if (!report_.empty()) ok += append_report(*app, t, snap.duration_seconds, counts, rejected);

  Status st = app->commit();
  samples_.fetch_add(ok, std::memory_order_relaxed);
  rejected_.fetch_add(rejected, std::memory_order_relaxed);
  invalid_.fetch_add(invalid, std::memory_order_relaxed);
  stale_.fetch_add(stale, std::memory_order_relaxed);
  if (!st.is_ok()) commit_errors_.fetch_add(1, std::memory_order_relaxed);
  return st;
}

uint64_t SnapshotSink::append_report(storage::Appender& app, int64_t t, double duration_seconds, const Counts& c,
                                     uint64_t& rejected) {
  const double values[] = {1, duration_seconds, static_cast<double>(c.scraped), static_cast<double>(c.added),
                           static_cast<double>(c.series_added)};
  uint64_t ok = 0;
  for (size_t i = 0; i < report_.size(); ++i) {
    Entry& e = report_[i];
    if (!e.valid) continue;
    auto r = app.append(e.ref, e.labels, t, values[i]);
    if (r) {
      e.ref = *r;
      ++ok;
    } else {
      ++rejected;
    }
  }
  return ok;
}

void SnapshotSink::append(const model::SnapshotPtr& snapshot) {
  if (snapshot) append_snapshot(*snapshot);
}

SnapshotSinkStats SnapshotSink::stats() const {
  SnapshotSinkStats s;
  s.cycles = cycles_.load(std::memory_order_relaxed);
  s.samples = samples_.load(std::memory_order_relaxed);
  s.rejected = rejected_.load(std::memory_order_relaxed);
  s.stale_markers = stale_.load(std::memory_order_relaxed);
  s.invalid_series = invalid_.load(std::memory_order_relaxed);
  s.commit_errors = commit_errors_.load(std::memory_order_relaxed);
  s.labels_built = labels_built_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace llmon::ingest
