// Processor: the rules applied to lines. Each line from a source (a file's
// path, or "kmsg") runs through one Matcher holding every rule's pattern; a
// match counts in the rule's counter and becomes an Event (deduplicated
// within the rule's window, grouped with the lines that follow for a
// multi-line rule). Pure: no I/O, time comes with each call. Not thread-safe.
//
// Events are handed out as they happen: a new event at its first occurrence
// (a multi-line group when it closes); tick() hands out the updates of bursts
// that grew (same id, higher repeat, later time_ms), at most one per burst a
// call, and closes the multi-line groups that timed out.
//
// A rule's metrics (rule_file.h) are updated at each match, whether or not
// the rule makes events (event: false): one series per (metric name,
// source, label values). A value that does not parse (or that its type
// refuses: a negative counter increment, a NaN histogram observation) is
// counted in metric_parse_errors() under the rule's name, and the line then
// updates none of the rule's metrics (a garbled line is not half-read).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "base/status.h"
#include "logwatch/event.h"
#include "logwatch/matcher.h"
#include "logwatch/rule_file.h"

namespace re2 {
class RE2;
}

namespace llmon::logwatch {

// One series of llmon_log_matches_total.
struct CounterKey {
  std::string rule;
  std::string source;
  Severity severity = Severity::kInfo;
  std::vector<std::pair<std::string, std::string>> labels;  // the rule's counter_labels, as matched
  bool operator<(const CounterKey& o) const {
    return std::tie(rule, source, severity, labels) < std::tie(o.rule, o.source, o.severity, o.labels);
  }
};

// One series of a log-derived metric.
struct MetricSeriesKey {
  std::string name;
  std::string source;
  std::vector<std::pair<std::string, std::string>> labels;  // the rule's labels and the metric's groups, by name
  bool operator<(const MetricSeriesKey& o) const {
    return std::tie(name, source, labels) < std::tie(o.name, o.source, o.labels);
  }
};

struct MetricSeries {
  double value = 0;              // gauge: the last value; counter: the sum
  std::vector<uint64_t> bucket;  // histogram: cumulative counts, one per bound of MetricInfo::buckets
  uint64_t count = 0;            // histogram: observations (the +Inf bucket)
  double sum = 0;                // histogram: their sum
};

// What every series of one metric name shares (the first rule's help).
struct MetricInfo {
  MetricKind kind = MetricKind::kGauge;
  std::string help;
  std::vector<std::string> labels;  // sorted; without "source"
  std::vector<double> buckets;      // histograms
};

class Processor {
 public:
  // An error names the rule whose pattern does not compile.
  static Expected<std::unique_ptr<Processor>> build(std::vector<LogRule> rules);
  ~Processor();

  // A source the rules will see: its counters exist from now on at 0 (so
  // increase() sees the first match), for each rule that selects it and has
  // no counter_labels.
  void declare_source(const std::string& source, bool is_kmsg);
  void line(const std::string& source, bool is_kmsg, std::string_view text, int64_t now_ms, std::vector<Event>& out);
  void tick(int64_t now_ms, std::vector<Event>& out);

  const std::map<CounterKey, uint64_t>& counters() const { return counters_; }
  const std::map<MetricSeriesKey, MetricSeries>& metric_series() const { return series_; }
  const std::map<std::string, MetricInfo>& metric_info() const { return metric_info_; }
  // By rule: every rule with a value-taking metric, from 0.
  const std::map<std::string, uint64_t>& metric_parse_errors() const { return parse_errors_; }
  // Grows at every change of the series or the parse errors.
  uint64_t metric_version() const { return metric_version_; }
  const std::vector<LogRule>& rules() const { return rules_; }
  uint64_t lines() const { return lines_; }
  // Event ids continue after the largest one already stored.
  void set_next_id(uint64_t id) { next_id_ = id; }
  uint64_t next_id() const { return next_id_; }

 private:
  struct Burst;
  struct Group;
  explicit Processor(std::vector<LogRule> rules);
  Event make_event(size_t rule, const std::string& source,
                   const std::vector<std::pair<std::string, std::string>>& groups, std::string_view text,
                   int64_t now_ms);
  void emit(size_t rule, Event ev, int64_t now_ms, std::vector<Event>& out);
  void close_group(const std::string& source, size_t rule, int64_t now_ms, std::vector<Event>& out);
  void update_metrics(const LogRule& r, const std::string& source,
                      const std::vector<std::pair<std::string, std::string>>& groups);
  MetricSeriesKey series_key(const LogRule& r, const LogMetric& m, const std::string& source,
                             const std::vector<std::pair<std::string, std::string>>& groups) const;

  std::vector<LogRule> rules_;
  std::unique_ptr<Matcher> matcher_;
  std::vector<std::unique_ptr<re2::RE2>> continue_;  // per rule (multi-line rules only)
  std::map<CounterKey, uint64_t> counters_;
  std::map<MetricSeriesKey, MetricSeries> series_;
  std::map<std::string, MetricInfo> metric_info_;
  std::map<std::string, uint64_t> parse_errors_;
  uint64_t metric_version_ = 0;
  std::vector<std::optional<double>> values_;  // update_metrics' scratch, per metric of the rule
  std::map<std::string, std::unique_ptr<Burst>> bursts_;                     // by dedup key
  std::map<std::pair<std::string, size_t>, std::unique_ptr<Group>> groups_;  // by (source, rule)
  std::vector<Match> matches_;
  uint64_t next_id_ = 1;
  uint64_t lines_ = 0;
};

}  // namespace llmon::logwatch
