// Log rules: what the logwatch matches and what it makes of a match. Parsed
// from YAML (the built-in packs in deploy/logwatch/ and --logwatch.rules);
// pure: text in, rules or an error naming the file, line and field out.
//
//   rules:
//     - name: cuda_oom                     # [a-zA-Z_][a-zA-Z0-9_]*, unique
//       regex: 'CUDA out of memory\. Tried to allocate (?P<size>[0-9.]+ [KMGT]iB)'
//       # or literal: 'No space left on device'
//       case_insensitive: false
//       severity: error                    # info | warning | error | critical
//       source: files                      # files | kmsg | any | a glob over file paths
//       labels: {category: memory}         # added to the event (and the counter)
//       counter_labels: [xid]              # named groups that also label the counter
//       dedup: 60s                         # repeats within this window fold into one event
//       dedup_by: [pci, xid]               # ...when these groups are equal (default: all groups)
//       multiline:                         # group the following lines into the event
//         continue: '^\s'                  # lines matching this continue the group
//         include_end: true                # the first other line ends it, included
//         max_lines: 200
//         timeout: 2s                      # a group left open this long is emitted
//       event: true                        # false: count and feed metrics, make no event
//                                          #   (no dedup, dedup_by or multiline then)
//       metrics:                           # samples taken from the matched line
//         - name: train_step_duration_seconds  # a Prometheus metric name, not llmon_*
//           type: histogram                # counter | gauge | histogram
//           value: step_ms                 # a named group (counters: absent = 1 a match)
//           scale: 0.001                   # the value is multiplied by this (ms -> s)
//           labels: [stage]                # named groups that label the series
//           buckets: [0.1, 0.5, 1, 5]      # histograms; default Prometheus's DefBuckets
//           help: 'Training step time.'
//         - {name: train_samples_total, type: counter, value: samples, cumulative: true}
//                                          # cumulative: the value is the program's running
//                                          #   total, which the counter takes as it is
//
// Named groups become event labels. counter_labels must be few-valued (an
// Xid code, not a byte count): each value is a counter series.
//
// Metrics (mtail-style): each match of the rule updates one series per
// metric, keyed by (name, source, label values). The series carry `source`
// (the file's path, or "kmsg"), the rule's `labels` and the metric's label
// groups (a group that did not take part is ""). A gauge keeps the last
// value, a counter adds the value (or 1; a cumulative counter takes it), a
// histogram observes it (cumulative buckets, sum and count). Values
// are parsed as Go's strconv.ParseFloat does (so "nan", "NAN", "-Inf" are
// numbers): gauges take NaN and infinities; counters take finite values >= 0
// and histograms finite values; anything else is a parse error, counted,
// and the line then updates none of the rule's metrics. A value group that did not take part leaves the metric alone
// (an optional field of the line). One metric name has one type, one label set and one bucket list in every rule that
// writes it, and no metric is named as a histogram's _bucket, _sum or _count. Series appear at their first sample and
// live as long as the agent (label groups must be few-valued).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "logwatch/event.h"

namespace llmon::logwatch {

enum class SourceKind { kFiles, kKmsg, kAny, kGlob };

struct Multiline {
  bool enabled = false;
  std::string continue_regex = "^\\s";
  bool include_end = true;
  size_t max_lines = 200;
  int64_t timeout_ms = 2000;
};

enum class MetricKind { kCounter, kGauge, kHistogram };

std::string_view metric_kind_name(MetricKind k);  // "counter", "gauge", "histogram"

// Prometheus's DefBuckets: .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10.
const std::vector<double>& default_buckets();

struct LogMetric {
  std::string name;
  MetricKind kind = MetricKind::kCounter;
  std::string value;  // named group; "" : 1 per match (counters only)
  double scale = 1;
  bool cumulative = false;          // counters: the value is the running total
  std::vector<std::string> labels;  // named groups
  std::vector<double> buckets;      // histograms: ascending upper bounds, +Inf implied
  std::string help;
  std::string origin;  // "file.yml:12:9" for messages
};

struct LogRule {
  std::string name;
  std::string pattern;
  bool literal = false;
  bool case_insensitive = false;
  Severity severity = Severity::kWarning;
  SourceKind source = SourceKind::kFiles;
  std::string source_glob;  // with kGlob
  std::map<std::string, std::string> labels;
  std::vector<std::string> counter_labels;
  int64_t dedup_ms = 0;
  std::vector<std::string> dedup_by;  // empty: every named group
  Multiline multiline;
  bool event = true;  // false: matches are counted and feed metrics only
  std::vector<LogMetric> metrics;
  std::string origin;  // "file.yml:12" for messages
};

// Parses a rule file; `name` is used in errors ("training.yml:14:7: ...").
Expected<std::vector<LogRule>> parse_log_rules(std::string_view yaml, const std::string& name);

// Rules of several files together; a later rule with an earlier rule's name
// is an error naming both places, and so is a metric written by both with a
// different type, label set or buckets.
Status merge_log_rules(std::vector<LogRule>& into, std::vector<LogRule> more);

// True when a rule with this selector applies to `source` ("kmsg" or a path).
bool source_selected(const LogRule& rule, std::string_view source, bool is_kmsg);

}  // namespace llmon::logwatch
