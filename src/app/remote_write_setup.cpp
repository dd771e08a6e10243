#include "app/remote_write_setup.h"

#include "base/file_reader.h"
#include "config/flag_names.h"

namespace llmon::app {
namespace {

using model::MetricType;

class RemoteWriteCollector final : public collector::Collector {
 public:
  explicit RemoteWriteCollector(const RemoteWrite& rw) : rw_(rw) {}

  Status collect(model::SnapshotBuilder& out) override {
    struct Family {
      const char* name;
      const char* help;
      MetricType type;
      uint64_t remote::QueueStats::*field;
    };
    static const Family kFamilies[] = {
        {"llmon_remote_storage_samples_total", "Samples the receiver acknowledged.", MetricType::kCounter,
         &remote::QueueStats::samples_sent},
        {"llmon_remote_storage_samples_failed_total",
         "Samples in requests that failed (transport error, 5xx, 429) and were retried, each attempt counted.",
         MetricType::kCounter, &remote::QueueStats::samples_failed},
        {"llmon_remote_storage_samples_retried_total", "Samples resent after a failed request.", MetricType::kCounter,
         &remote::QueueStats::samples_retried},
        {"llmon_remote_storage_samples_dropped_total",
         "Samples given up on: refused by the receiver with a 4xx other than 429, or of series missing from the "
         "store's series log.",
         MetricType::kCounter, &remote::QueueStats::samples_dropped},
        {"llmon_remote_storage_samples_relabel_dropped_total", "Samples dropped by write_relabel_configs.",
         MetricType::kCounter, &remote::QueueStats::samples_relabel_dropped},
        {"llmon_remote_storage_samples_pending",
         "Samples in the requests being sent (or retried), all shards together.", MetricType::kGauge,
         &remote::QueueStats::samples_pending},
        {"llmon_remote_storage_sent_batches_total", "Requests the receiver acknowledged.", MetricType::kCounter,
         &remote::QueueStats::requests_sent},
        {"llmon_remote_storage_bytes_total", "Compressed request bytes the receiver acknowledged.",
         MetricType::kCounter, &remote::QueueStats::bytes_sent},
        {"llmon_remote_storage_wal_segments_lost_total",
         "WAL segments the store removed before the queue read them (their time range is re-read from the store).",
         MetricType::kCounter, &remote::QueueStats::wal_segments_lost},
        {"llmon_remote_storage_samples_refilled_total",
         "Samples re-read from the store's chunks for lost WAL segments and acknowledged.", MetricType::kCounter,
         &remote::QueueStats::samples_refilled},
        {"llmon_remote_storage_wal_corruptions_total", "Damaged WAL stretches skipped by the queue's reader.",
         MetricType::kCounter, &remote::QueueStats::wal_corruptions},
        {"llmon_remote_storage_metadata_total", "Metric metadata entries the receiver acknowledged (protocol 1.0).",
         MetricType::kCounter, &remote::QueueStats::metadata_sent},
        {"llmon_remote_storage_protocol_fallbacks_total",
         "Times the receiver refused protocol 2.0 (415, or no X-Prometheus-Remote-Write-*-Written header) and the "
         "queue fell back to 1.0.",
         MetricType::kCounter, &remote::QueueStats::protocol_fallbacks},
        {"llmon_remote_storage_shards", "Shards (requests in flight at most) the queue runs now.", MetricType::kGauge,
         &remote::QueueStats::shards},
        {"llmon_remote_storage_shards_desired", "Shards the last resharding computed (before the 30 % dead band).",
         MetricType::kGauge, &remote::QueueStats::shards_desired},
        {"llmon_remote_storage_shards_max", "queue_config.max_shards.", MetricType::kGauge,
         &remote::QueueStats::shards_max},
        {"llmon_remote_storage_shards_min", "queue_config.min_shards.", MetricType::kGauge,
         &remote::QueueStats::shards_min},
    };
    const std::vector<RemoteWrite::QueueView> q = rw_.views();
    for (const Family& fam : kFamilies) {
      auto f = out.family(fam.name, fam.help, fam.type, {"remote_name", "url"});
      for (const auto& v : q) f.add({v.name, v.url}, static_cast<double>(v.stats.*fam.field));
    }
    auto f = out.family("llmon_remote_storage_highest_timestamp_sent_seconds",
                        "Newest sample timestamp the receiver acknowledged, in Unix seconds.", MetricType::kGauge,
                        {"remote_name", "url"});
    for (const auto& v : q) f.add({v.name, v.url}, static_cast<double>(v.stats.highest_sent_ms) / 1000.0);
    auto p = out.family("llmon_remote_storage_protocol_info",
                        "The protocol the queue sends now (1.0: prometheus.WriteRequest, 2.0: "
                        "io.prometheus.write.v2.Request); always 1.",
                        MetricType::kGauge, {"protocol", "remote_name", "url"});
    for (const auto& v : q) p.add({v.stats.protocol_v2 ? "2.0" : "1.0", v.name, v.url}, 1);
    return Status::ok();
  }

 private:
  const RemoteWrite& rw_;
};

}  // namespace

Expected<std::unique_ptr<RemoteWrite>> RemoteWrite::create(const config::Settings& s, tsdb::Db& db,
                                                           const base::Clock& clock, base::Logger& log,
                                                           remote::MetadataFn metadata) {
  const std::string& path = s.get(config::flag::kRemoteWriteConfig);
  if (path.empty()) return std::unique_ptr<RemoteWrite>();
  std::unique_ptr<RemoteWrite> rw(new RemoteWrite(path, s.get(config::flag::kStoragePath), db, clock, log));
  rw->metadata_ = std::move(metadata);
  auto queues = rw->build();
  if (!queues) return queues.status();
  rw->queues_ = std::move(*queues);
  return rw;
}

Expected<std::vector<std::unique_ptr<remote::Queue>>> RemoteWrite::build() const {
  auto text = base::read_file(path_);
  if (!text) return Status::error("--remote-write.config " + path_ + ": " + text.error());
  auto file = remote::parse_remote_write_config(*text, path_);
  if (!file) return file.status();
  std::vector<std::unique_ptr<remote::Queue>> out;
  for (const auto& c : file->remote_write) {
    auto post = remote::http_post_fn(c);
    if (!post) return post.status();
    remote::QueueOptions o;
    o.config = c;
    o.external_labels = file->external_labels;
    o.storage_path = storage_;
    o.position_path = storage_ + "/remote_write/" + remote::queue_hash(c) + ".pos";
    o.store = &db_;
    o.metadata = metadata_;
    auto q = remote::Queue::create(std::move(o), std::move(*post), clock_, log_);
    if (!q) return q.status();
    out.push_back(std::move(*q));
  }
  return out;
}

void RemoteWrite::start() {
  std::lock_guard lock(mu_);
  started_ = true;
  for (auto& q : queues_) q->start();
}

void RemoteWrite::stop() {
  std::lock_guard lock(mu_);
  started_ = false;
  for (auto& q : queues_) q->stop();
}

Status RemoteWrite::reload() {
  // The old queues stop (saving nothing past what was acknowledged) before
  // the new ones read their positions.
  std::lock_guard lock(mu_);
  for (auto& q : queues_) q->stop();
  auto fresh = build();
  if (!fresh) {
    if (started_)
      for (auto& q : queues_) q->start();
    return fresh.status();
  }
  queues_ = std::move(*fresh);
  if (started_)
    for (auto& q : queues_) q->start();
  log_.info("remote_write config reloaded", {{"queues", std::to_string(queues_.size())}});
  return Status::ok();
}

std::vector<RemoteWrite::QueueView> RemoteWrite::views() const {
  std::lock_guard lock(mu_);
  std::vector<QueueView> out;
  for (const auto& q : queues_) out.push_back({q->name(), q->url(), q->stats()});
  return out;
}

std::unique_ptr<collector::Collector> RemoteWrite::make_collector() const {
  return std::make_unique<RemoteWriteCollector>(*this);
}

}  // namespace llmon::app
