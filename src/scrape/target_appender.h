// One target's scrapes into the store, as Prometheus 2.42's scrapeLoop
// appends them (scrape/scrape.go): the page is parsed (page_parser.h), each
// sample gets the target's labels (ingest/target_labels.h, honor_labels),
// then metric_relabel_configs; samples without a timestamp (or all, with
// honor_timestamps false) take the scrape's start time.
//
// Per scrape, in one Appender:
//   * series are cached by their text as exposed ("name{...}"), so a page
//     that repeats builds no labels; series dropped by relabelling are
//     cached as dropped;
//   * the scrape fails, and everything it appended is rolled back, on a
//     parse error, a sample without a metric name, more samples than
//     sample_limit, or a series over label_limit / label_name_length_limit
//     / label_value_length_limit;
//   * samples the store refuses (out of order, duplicate timestamp, out of
//     bounds) are counted and skipped, as Prometheus does;
//   * series of the previous successful page that are absent now (and all
//     of them after a failed scrape) get a staleness marker at the scrape's
//     time; series with explicit timestamps are not tracked;
//   * the report series up, scrape_duration_seconds, scrape_samples_scraped,
//     scrape_samples_post_metric_relabeling and scrape_series_added are
//     appended with the target's labels (up 0 for a failed scrape).
// stop() is the target's end: staleness markers for its series and its
// report series. One thread per TargetAppender; stats() from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/labels.h"
#include "scrape/page_parser.h"
#include "scrape/relabel.h"
#include "storage/storage.h"

namespace llmon::scrape {

struct AppendOptions {
  bool honor_labels = false;
  bool honor_timestamps = true;
  uint64_t sample_limit = 0;  // 0: none
  uint64_t label_limit = 0;
  uint64_t label_name_length_limit = 0;
  uint64_t label_value_length_limit = 0;
  // false: no up/scrape_* series (pushed groups, which are not scrapes).
  bool report_series = true;
};

// What one scrape gave: the figures of the report series, and why it failed.
struct ScrapeResult {
  bool up = false;
  std::string error;  // empty when up
  uint64_t samples_scraped = 0;
  uint64_t samples_post_relabel = 0;
  uint64_t series_added = 0;
  uint64_t rejected = 0;  // refused by the store (out of order, ...)
  uint64_t stale_markers = 0;
};

class TargetAppender {
 public:
  // `metric_relabel` may be null (no rules); it must outlive the appender.
  TargetAppender(storage::Storage& storage, std::vector<model::Label> target_labels, AppendOptions opts,
                 const Relabeler* metric_relabel);

  // Appends one scrape that started at t_ms and took duration_s. With
  // `scrape_error` set (the fetch failed) the body is ignored.
  ScrapeResult append(std::string_view body, std::string_view content_type, int64_t t_ms, double duration_s,
                      const std::string* scrape_error);

  // The target is gone: staleness markers at t_ms for every series of the
  // last page and for the report series.
  void stop(int64_t t_ms);

  // Metadata of a recent page that parsed: gathered from the first page and
  // then from every 16th (families rarely change; gathering costs a map
  // update per # TYPE line).
  const std::map<std::string, FamilyMetadata, std::less<>>& metadata() const { return metadata_; }
  // Grows when metadata() changes (a reader copies it only then).
  uint64_t metadata_generation() const { return metadata_generation_; }
  const std::vector<model::Label>& target_labels() const { return target_labels_; }

 private:
  struct Entry {
    model::Labels labels;
    storage::SeriesRef ref = 0;
    bool dropped = false;
    uint64_t last_iter = 0;     // the last page that had it
    uint64_t tracked_iter = 0;  // the last page that appended it without a timestamp
  };
  // Builds the final labels of a sample; nullopt if relabelling dropped it;
  // an error for a missing name or a broken limit.
  Expected<std::optional<model::Labels>> sample_labels(const exposition::TextSample& s);
  Status append_page(storage::Appender& app, std::string_view body, std::string_view content_type, int64_t t_ms,
                     ScrapeResult& r);
  // `sweep`: forget cache entries the page did not have.
  void append_stale(storage::Appender& app, int64_t t_ms, ScrapeResult& r, bool sweep);
  void append_report(storage::Appender& app, int64_t t_ms, double duration_s, const ScrapeResult& r, bool stale);
  bool add(storage::Appender& app, storage::SeriesRef& ref, const model::Labels& labels, int64_t t, double v,
           ScrapeResult& r);

  storage::Storage& storage_;
  std::vector<model::Label> target_labels_;
  AppendOptions opts_;
  const Relabeler* metric_relabel_;
  // Keyed by the series text; looked up by string_view (no allocation per sample).
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, Entry, TextHash, std::equal_to<>> cache_;
  // Staleness tracking: the series appended without an explicit timestamp
  // by the previous and by the current page (entries of cache_, which keeps
  // them until their staleness marker is written).
  std::vector<Entry*> prev_, cur_;
  // The last good page's series in page order, their texts end to end in
  // one arena: a page like the previous one finds each entry at its
  // position with one sequential compare, no hashing and no bucket walk.
  struct Slot {
    uint32_t off = 0, len = 0;
    Entry* entry = nullptr;
  };
  std::vector<Slot> slots_, next_slots_;
  std::string arena_, next_arena_;
  size_t seen_ = 0;  // cache entries the current page had
  std::vector<std::pair<model::Labels, storage::SeriesRef>> report_;
  std::map<std::string, FamilyMetadata, std::less<>> metadata_;
  uint64_t iter_ = 0;
  uint64_t pages_ = 0;
  uint64_t metadata_generation_ = 0;  // pages parsed; metadata is gathered from every kMetadataEvery-th
  std::vector<model::Label> scratch_;
};

}  // namespace llmon::scrape
