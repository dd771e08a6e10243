#include "app/logwatch_metrics.h"

#include <algorithm>
#include <set>

#include "app/log_rule_metrics.h"

namespace llmon::app {
namespace {

using model::MetricType;

double d(uint64_t v) {
  return static_cast<double>(v);
}

class LogwatchCollector final : public collector::Collector {
 public:
  explicit LogwatchCollector(const logwatch::Watcher& w) : w_(w) {}

  Status collect(model::SnapshotBuilder& out) override {
    logwatch::WatcherStats s = w_.stats();
    write_matches(out, s);
    rule_metrics_.write(out, s.metric_info, s.metric_series, s.metric_parse_errors);
    {
      auto f = out.family("llmon_log_lines_total", "Log lines read, by kind of source (files, kmsg).",
                          MetricType::kCounter, {"source"});
      f.add({"files"}, d(s.files.lines));
      if (s.kmsg_enabled) f.add({"kmsg"}, d(s.kmsg.records));
    }
    out.family("llmon_log_read_bytes_total", "Bytes read from log files.", MetricType::kCounter).add(d(s.files.bytes));
    out.family("llmon_log_truncated_lines_total", "Log lines cut at --logwatch.max-line-size.", MetricType::kCounter)
        .add(d(s.files.truncated_lines));
    out.family("llmon_log_rotations_total", "Rotations (renames, copytruncate, truncations) the tailer followed.",
               MetricType::kCounter)
        .add(d(s.files.rotations));
    out.family("llmon_log_read_errors_total", "Errors reading log files (retried at the next poll).",
               MetricType::kCounter)
        .add(d(s.files.read_errors));
    out.family("llmon_log_files", "Log files followed now.", MetricType::kGauge).add(d(s.files.files));
    {
      auto f = out.family("llmon_log_events_total",
                          "Log events committed to the journal: new events, and updates of deduplicated bursts.",
                          MetricType::kCounter, {"kind"});
      f.add({"new"}, d(s.events));
      f.add({"update"}, d(s.updates));
    }
    out.family("llmon_log_events_dropped_total",
               "Events given up while the journal could not be written (more than 10000 pending).",
               MetricType::kCounter)
        .add(d(s.events_dropped));
    out.family("llmon_log_journal_commits_total", "Commits of events and positions to the journal.",
               MetricType::kCounter)
        .add(d(s.journal.commits));
    out.family("llmon_log_journal_commit_errors_total",
               "Failed journal commits (full disk, write error); the events are kept and retried.",
               MetricType::kCounter)
        .add(d(s.commit_errors));
    out.family("llmon_log_journal_bytes", "Bytes of the event journal on disk.", MetricType::kGauge)
        .add(d(s.journal.bytes));
    out.family("llmon_log_watcher_last_pass_timestamp_seconds",
               "When the log watcher last finished a pass over its sources (its liveness).", MetricType::kGauge)
        .add(static_cast<double>(s.last_pass_ms) / 1000.0);
    if (s.kmsg_enabled) write_kmsg(out, s);
    return Status::ok();
  }

 private:
  void write_kmsg(model::SnapshotBuilder& out, const logwatch::WatcherStats& s) {
    out.family("llmon_kmsg_reader_up",
               "Whether the kernel-log reader is open and its last read succeeded (1) or not (0).", MetricType::kGauge)
        .add(s.kmsg.up ? 1 : 0);
    out.family("llmon_kmsg_records_total", "Kernel-log records read.", MetricType::kCounter).add(d(s.kmsg.records));
    out.family("llmon_kmsg_dropped_records_total",
               "Kernel-log records lost before they were read (the ring overwrote them): the sum of the sequence "
               "number gaps.",
               MetricType::kCounter)
        .add(d(s.kmsg.dropped));
    out.family("llmon_kmsg_overruns_total", "Reads of /dev/kmsg that answered EPIPE (records overwritten).",
               MetricType::kCounter)
        .add(d(s.kmsg.overruns));
    out.family("llmon_kmsg_malformed_records_total", "Kernel-log records that did not parse (skipped).",
               MetricType::kCounter)
        .add(d(s.kmsg.malformed));
    if (s.kmsg.last_read_ms > 0)
      out.family("llmon_kmsg_last_read_timestamp_seconds", "When the kernel log was last read without error.",
                 MetricType::kGauge)
          .add(static_cast<double>(s.kmsg.last_read_ms) / 1000.0);
  }

  // llmon_log_matches_total: the union of every counter's label names (a
  // rule's counter_labels are its own); a label a series lacks is empty,
  // which the store and Prometheus treat as absent.
  void write_matches(model::SnapshotBuilder& out, const logwatch::WatcherStats& s) {
    std::set<std::string> extra;
    for (const auto& [key, n] : s.matches)
      for (const auto& [name, value] : key.labels) extra.insert(name);
    names_.assign({"rule", "severity", "source"});
    names_.insert(names_.end(), extra.begin(), extra.end());
    std::sort(names_.begin(), names_.end());
    auto f = out.family("llmon_log_matches_total",
                        "Log lines a rule matched, by rule, source (kmsg or the file's path) and severity, with the "
                        "rule's counter labels.",
                        MetricType::kCounter, names_);
    for (const auto& [key, n] : s.matches) {
      values_.assign(names_.size(), std::string());
      for (size_t i = 0; i < names_.size(); ++i) {
        const std::string& name = names_[i];
        if (name == "rule") {
          values_[i] = key.rule;
        } else if (name == "source") {
          values_[i] = key.source;
        } else if (name == "severity") {
          values_[i] = logwatch::severity_name(key.severity);
        } else {
          for (const auto& [ln, lv] : key.labels)
            if (ln == name) values_[i] = lv;
        }
      }
      f.add(values_, d(n));
    }
  }

  const logwatch::Watcher& w_;
  std::vector<std::string> names_;
  std::vector<std::string> values_;
  LogRuleMetricsWriter rule_metrics_;
};

class ForwardCollector final : public collector::Collector {
 public:
  explicit ForwardCollector(std::vector<const logwatch::Forwarder*> f) : f_(std::move(f)) {}

  Status collect(model::SnapshotBuilder& out) override {
    struct Family {
      const char* name;
      const char* help;
      MetricType type;
      uint64_t logwatch::ForwarderStats::*field;
    };
    static const Family kFamilies[] = {
        {"llmon_log_forward_sent_total", "Log events the forwarder delivered.", MetricType::kCounter,
         &logwatch::ForwarderStats::sent},
        {"llmon_log_forward_dropped_total",
         "Log events the forwarder gave up on (queue full, rejected by the receiver, left at shutdown).",
         MetricType::kCounter, &logwatch::ForwarderStats::dropped},
        {"llmon_log_forward_errors_total", "Failed connects, writes and pushes of the forwarder (each retry counts).",
         MetricType::kCounter, &logwatch::ForwarderStats::errors},
        {"llmon_log_forward_queue_length", "Log events waiting in the forwarder's queue.", MetricType::kGauge,
         &logwatch::ForwarderStats::queue},
    };
    std::vector<logwatch::ForwarderStats> stats;
    for (const auto* f : f_) stats.push_back(f->stats());
    for (const Family& fam : kFamilies) {
      auto f = out.family(fam.name, fam.help, fam.type, {"forwarder"});
      for (size_t i = 0; i < f_.size(); ++i) f.add({f_[i]->name()}, d(stats[i].*fam.field));
    }
    return Status::ok();
  }

 private:
  std::vector<const logwatch::Forwarder*> f_;
};

}  // namespace

std::unique_ptr<collector::Collector> make_forward_collector(std::vector<const logwatch::Forwarder*> forwarders) {
  return std::make_unique<ForwardCollector>(std::move(forwarders));
}

std::unique_ptr<collector::Collector> make_logwatch_collector(const logwatch::Watcher& watcher) {
  return std::make_unique<LogwatchCollector>(watcher);
}

}  // namespace llmon::app
