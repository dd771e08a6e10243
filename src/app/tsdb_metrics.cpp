#include "app/tsdb_metrics.h"

namespace llmon::app {
namespace {

using model::MetricType;

class TsdbCollector final : public collector::Collector {
 public:
  explicit TsdbCollector(const TsdbMetricsSources& src) : src_(src) {}

  Status collect(model::SnapshotBuilder& out) override {
    tsdb::DbStats s = src_.db->stats();
    auto d = [](uint64_t v) { return static_cast<double>(v); };
    out.family("llmon_tsdb_series", "Series in the store.", MetricType::kGauge).add(d(s.series));
    out.family("llmon_tsdb_head_memory_bytes",
               "Estimated memory of the store's head (chunks not yet persisted, series, index).", MetricType::kGauge)
        .add(d(s.head_memory_bytes));
    {
      auto f = out.family("llmon_tsdb_storage_bytes", "Bytes the store uses on disk, by part.", MetricType::kGauge,
                          {"part"});
      f.add({"chunks"}, d(s.chunk_bytes));
      f.add({"wal"}, d(s.wal_bytes));
      f.add({"series"}, d(s.series_log_bytes));
    }
    out.family("llmon_tsdb_chunk_segments", "Chunk segment files on disk.", MetricType::kGauge).add(d(s.chunk_segments));
    out.family("llmon_tsdb_persisted_chunks", "Chunks in segment files.", MetricType::kGauge).add(d(s.persisted_chunks));
    if (s.max_t != 0 || s.min_t != 0) {
      out.family("llmon_tsdb_lowest_timestamp_seconds", "Oldest sample held.", MetricType::kGauge)
          .add(static_cast<double>(s.min_t) / 1000.0);
      out.family("llmon_tsdb_highest_timestamp_seconds", "Newest sample held.", MetricType::kGauge)
          .add(static_cast<double>(s.max_t) / 1000.0);
    }
    out.family("llmon_tsdb_writable",
               "1 while the store accepts samples; 0 after a refused commit (disk almost full, write error) until "
               "the next one succeeds.",
               MetricType::kGauge)
        .add(s.writable ? 1 : 0);
    out.family("llmon_tsdb_commits_total", "Collection cycles committed to the store.", MetricType::kCounter)
        .add(d(s.commits));
    out.family("llmon_tsdb_commits_refused_total",
               "Commits refused because the disk is almost full or a write failed (their samples are not stored).",
               MetricType::kCounter)
        .add(d(s.commits_refused));
    out.family("llmon_tsdb_samples_appended_total", "Samples committed to the store.", MetricType::kCounter)
        .add(d(s.samples_committed));
    {
      auto f = out.family("llmon_tsdb_samples_rejected_total", "Samples the store refused, by reason.",
                          MetricType::kCounter, {"reason"});
      f.add({"out_of_order"}, d(s.head.out_of_order));
      f.add({"duplicate"}, d(s.head.duplicate));
      f.add({"out_of_bounds"}, d(s.head.out_of_bounds));
      f.add({"unknown_series"}, d(s.head.unknown_ref));
    }
    out.family("llmon_tsdb_wal_fsyncs_total", "fdatasync() calls on the write-ahead log.", MetricType::kCounter)
        .add(d(s.fsyncs));
    out.family("llmon_tsdb_chunks_persisted_total", "Chunks written to segment files since start.",
               MetricType::kCounter)
        .add(d(s.chunks_persisted));
    out.family("llmon_tsdb_persist_errors_total",
               "Failed attempts to persist chunks (retried; the data stays in memory and the WAL).",
               MetricType::kCounter)
        .add(d(s.persist_errors));
    out.family("llmon_tsdb_chunk_corruptions_total",
               "Persisted chunks that failed their checksum or could not be read; queries skip them.",
               MetricType::kCounter)
        .add(d(s.head.corrupt_chunks));
    out.family("llmon_tsdb_retention_segments_removed_total", "Chunk segments deleted by retention.",
               MetricType::kCounter)
        .add(d(s.retention_segments_removed));
    out.family("llmon_tsdb_retention_series_removed_total", "Series deleted by retention (no samples left).",
               MetricType::kCounter)
        .add(d(s.retention_series_removed));
    out.family("llmon_tsdb_recovery_repairs",
               "Damaged or torn parts of the store found and dropped when it was opened.", MetricType::kGauge)
        .add(d(s.repairs));
    out.family("llmon_tsdb_recovery_wal_samples", "Samples replayed from the write-ahead log when the store opened.",
               MetricType::kGauge)
        .add(d(s.replayed_samples));
    if (const api::ImportRoute* route = src_.import.load(std::memory_order_acquire)) import_metrics(route->stats(), out);
    return Status::ok();
  }

 private:
  static void import_metrics(const api::ImportRouteStats& s, model::SnapshotBuilder& out) {
    auto d = [](uint64_t v) { return static_cast<double>(v); };
    {
      auto f = out.family("llmon_import_requests_total", "POST /api/v1/import/prometheus requests, by outcome.",
                          MetricType::kCounter, {"outcome"});
      f.add({"ok"}, d(s.requests_ok));
      f.add({"invalid"}, d(s.requests_invalid));
      f.add({"busy"}, d(s.requests_busy));
    }
    out.family("llmon_import_body_bytes_total", "Import request bodies received (as sent, before gunzip).",
               MetricType::kCounter)
        .add(d(s.body_bytes));
    {
      auto f = out.family("llmon_import_samples_total", "Imported samples, by outcome.", MetricType::kCounter,
                          {"outcome"});
      f.add({"accepted"}, d(s.samples_accepted));
      f.add({"invalid_line"}, d(s.invalid_lines));
      f.add({"duplicate_dropped"}, d(s.duplicates_dropped));
      f.add({"out_of_order"}, d(s.rejected_out_of_order));
      f.add({"duplicate_timestamp"}, d(s.rejected_duplicate));
      f.add({"out_of_bounds"}, d(s.rejected_out_of_bounds));
      f.add({"other"}, d(s.rejected_other));
    }
  }

  const TsdbMetricsSources& src_;
};

}  // namespace

std::unique_ptr<collector::Collector> make_tsdb_collector(const TsdbMetricsSources& sources) {
  return std::make_unique<TsdbCollector>(sources);
}

}  // namespace llmon::app
