#include "scrape/target_appender.h"

#include <algorithm>
#include <cstring>

#include "ingest/importer.h"
#include "ingest/target_labels.h"
#include "model/sample.h"

namespace llmon::scrape {
namespace {

// Prometheus's report series (scrape/scrape.go), in the order it appends them.
constexpr uint64_t kMetadataEvery = 16;

constexpr std::string_view kReportNames[] = {"up", "scrape_duration_seconds", "scrape_samples_scraped",
                                             "scrape_samples_post_metric_relabeling", "scrape_series_added"};

std::string head(std::string_view s) {
  return std::string(s.substr(0, 50));
}

}  // namespace

TargetAppender::TargetAppender(storage::Storage& storage, std::vector<model::Label> target_labels, AppendOptions opts,
                               const Relabeler* metric_relabel)
    : storage_(storage), target_labels_(std::move(target_labels)), opts_(opts), metric_relabel_(metric_relabel) {
  for (std::string_view name : kReportNames) {
    if (!opts_.report_series) break;
    std::vector<model::Label> pairs{{"__name__", std::string(name)}};
    ingest::apply_target_labels(pairs, target_labels_, false);
    auto labels = model::Labels::make(std::move(pairs));
    report_.emplace_back(labels ? std::move(*labels) : model::Labels(), 0);
  }
}

Expected<std::optional<model::Labels>> TargetAppender::sample_labels(const exposition::TextSample& s) {
  scratch_.clear();
  scratch_.push_back({"__name__", std::string(s.name)});
  for (const auto& l : s.labels) scratch_.push_back({std::string(l.name), std::string(l.value)});
  ingest::apply_target_labels(scratch_, target_labels_, opts_.honor_labels);
  if (metric_relabel_ != nullptr && !metric_relabel_->empty()) {
    if (!metric_relabel_->process(scratch_)) return std::optional<model::Labels>();
  }
  std::erase_if(scratch_, [](const model::Label& l) { return l.value.empty(); });
  if (scratch_.empty()) return std::optional<model::Labels>();
  const bool named = std::any_of(scratch_.begin(), scratch_.end(), [](const auto& l) { return l.name == "__name__"; });
  if (!named) return Status::error("__name__ label is missing");
  if (opts_.label_limit > 0 && scratch_.size() > opts_.label_limit)
    return Status::error("label_limit exceeded (metric: " + head(s.series_text) + ", number of labels: " +
                         std::to_string(scratch_.size()) + ", limit: " + std::to_string(opts_.label_limit) + ")");
  for (const auto& l : scratch_) {
    if (opts_.label_name_length_limit > 0 && l.name.size() > opts_.label_name_length_limit)
      return Status::error("label_name_length_limit exceeded (metric: " + head(s.series_text) +
                           ", label name: " + head(l.name) + ", length: " + std::to_string(l.name.size()) +
                           ", limit: " + std::to_string(opts_.label_name_length_limit) + ")");
    if (opts_.label_value_length_limit > 0 && l.value.size() > opts_.label_value_length_limit)
      return Status::error("label_value_length_limit exceeded (metric: " + head(s.series_text) +
                           ", label name: " + head(l.name) + ", value: \"" + head(l.value) +
                           "\", length: " + std::to_string(l.value.size()) +
                           ", limit: " + std::to_string(opts_.label_value_length_limit) + ")");
  }
  auto labels = model::Labels::make(scratch_);
  if (!labels) return Status::error(labels.error());
  return std::optional<model::Labels>(std::move(*labels));
}

bool TargetAppender::add(storage::Appender& app, storage::SeriesRef& ref, const model::Labels& labels, int64_t t,
                         double v, ScrapeResult& r) {
  auto got = app.append(ref, labels, t, v);
  if (!got && ref != 0 && ingest::classify_rejection(got.error()) == ingest::RejectReason::kOther) {
    ref = 0;  // a ref the store no longer knows (retention): look the series up again
    got = app.append(0, labels, t, v);
  }
  if (!got) {
    ++r.rejected;
    return false;
  }
  ref = *got;
  return true;
}

Status TargetAppender::append_page(storage::Appender& app, std::string_view body, std::string_view content_type,
                                   int64_t t_ms, ScrapeResult& r) {
  const bool with_metadata = pages_++ % kMetadataEvery == 0;
  next_slots_.clear();
  next_arena_.clear();
  PageParser p(body, page_format(content_type), with_metadata);
  ++iter_;
  cur_.clear();
  seen_ = 0;
  uint64_t appended = 0;
  for (auto k = p.next(); k != PageParser::Next::kEnd; k = p.next()) {
    if (k == PageParser::Next::kError) return Status::error(p.error());
    const exposition::TextSample& s = p.sample();
    const size_t pos = r.samples_scraped++;
    Entry* found = nullptr;
    if (pos < slots_.size()) {
      const Slot& slot = slots_[pos];
      if (slot.len == s.series_text.size() &&
          std::memcmp(arena_.data() + slot.off, s.series_text.data(), slot.len) == 0)
        found = slot.entry;
    }
    auto it = found ? cache_.end() : cache_.find(s.series_text);
    bool created = false;
    if (found == nullptr && it == cache_.end()) {
      const exposition::TextSample* full = p.full_sample();
      if (full == nullptr) return Status::error(p.error());
      auto labels = sample_labels(*full);
      if (!labels) return labels.status();
      Entry e;
      if (*labels)
        e.labels = std::move(**labels);
      else
        e.dropped = true;
      it = cache_.emplace(std::string(full->series_text), std::move(e)).first;
      created = true;
    }
    Entry& e = found ? *found : it->second;
    next_slots_.push_back({static_cast<uint32_t>(next_arena_.size()), static_cast<uint32_t>(s.series_text.size()), &e});
    next_arena_.append(s.series_text);
    if (e.last_iter != iter_) ++seen_;
    e.last_iter = iter_;
    if (e.dropped) continue;
    const bool explicit_ts = opts_.honor_timestamps && s.timestamp_ms.has_value();
    const int64_t t = explicit_ts ? *s.timestamp_ms : t_ms;
    // Every sample past relabelling counts, stored or refused (Prometheus's "added").
    ++r.samples_post_relabel;
    if (opts_.sample_limit > 0 && appended >= opts_.sample_limit) {
      // Prometheus reads on to report the page's size, then fails the scrape.
      ++appended;
      continue;
    }
    if (!add(app, e.ref, e.labels, t, s.value, r)) continue;
    ++appended;
    if (created) ++r.series_added;
    if (!explicit_ts && e.tracked_iter != iter_) {
      e.tracked_iter = iter_;
      cur_.push_back(&e);
    }
  }
  if (opts_.sample_limit > 0 && appended > opts_.sample_limit) return Status::error("sample limit exceeded");
  if (with_metadata && p.metadata() != metadata_) {
    metadata_ = p.metadata();
    ++metadata_generation_;
  }
  slots_.swap(next_slots_);
  arena_.swap(next_arena_);
  return Status::ok();
}

void TargetAppender::append_stale(storage::Appender& app, int64_t t_ms, ScrapeResult& r, bool sweep) {
  // A series of the previous page that this one did not append (untimed) is stale.
  for (Entry* e : prev_) {
    if (e->tracked_iter == iter_) continue;
    if (add(app, e->ref, e->labels, t_ms, model::stale_nan(), r)) ++r.stale_markers;
  }
  prev_.swap(cur_);
  cur_.clear();
  // Forget the series this page did not have (their markers are written);
  // the sweep runs only when there are such series.
  if (!sweep || cache_.size() == seen_) return;
  for (auto it = cache_.begin(); it != cache_.end();) {
    if (it->second.last_iter != iter_)
      it = cache_.erase(it);
    else
      ++it;
  }
}

void TargetAppender::append_report(storage::Appender& app, int64_t t_ms, double duration_s, const ScrapeResult& r,
                                   bool stale) {
  const double values[] = {r.up ? 1.0 : 0.0, duration_s, static_cast<double>(r.samples_scraped),
                           static_cast<double>(r.samples_post_relabel), static_cast<double>(r.series_added)};
  ScrapeResult ignored;
  for (size_t i = 0; i < report_.size(); ++i) {
    auto& [labels, ref] = report_[i];
    if (labels.empty()) continue;
    add(app, ref, labels, t_ms, stale ? model::stale_nan() : values[i], ignored);
  }
}

ScrapeResult TargetAppender::append(std::string_view body, std::string_view content_type, int64_t t_ms,
                                    double duration_s, const std::string* scrape_error) {
  ScrapeResult r;
  Status page = scrape_error != nullptr ? Status::error(*scrape_error) : Status::ok();
  if (page) {
    auto app = storage_.appender();
    page = append_page(*app, body, content_type, t_ms, r);
    if (page) {
      append_stale(*app, t_ms, r, true);
      r.up = true;
      append_report(*app, t_ms, duration_s, r, false);
      if (Status c = app->commit(); !c) {
        r.up = false;
        r.error = "commit: " + c.message();
      }
      return r;
    }
    // Rolled back; the report keeps the page's counts, as Prometheus's does.
    app->rollback();
  }
  r.up = false;
  r.error = page.message();
  auto app = storage_.appender();
  // Every series of the last good page is stale; the cache stays (as
  // Prometheus's: the next good page adds no "new" series).
  slots_.clear();
  ++iter_;
  cur_.clear();
  append_stale(*app, t_ms, r, false);
  append_report(*app, t_ms, duration_s, r, false);
  (void)app->commit();
  return r;
}

void TargetAppender::stop(int64_t t_ms) {
  ScrapeResult r;
  auto app = storage_.appender();
  cur_.clear();
  slots_.clear();
  ++iter_;
  seen_ = 0;
  append_stale(*app, t_ms, r, true);
  append_report(*app, t_ms, 0, r, true);
  (void)app->commit();
}

}  // namespace llmon::scrape
