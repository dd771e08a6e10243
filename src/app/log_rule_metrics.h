// The log rules' own metrics (rule_file.h "Metrics": counters, gauges and
// histograms taken from matched lines) as model families, under the names
// the rules give them: one family per metric, its label names sorted
// (`source`, the rule's labels, the metric's groups); a histogram as its
// _bucket (with le, cumulative, +Inf last), _sum and _count families, untyped
// as the model has no histogram type (PromQL's histogram_quantile reads them
// all the same). Values that did not parse are counted in
// llmon_log_metric_parse_errors_total{rule}. Pure: the processor's (or the
// watcher's copy of its) series in, families out; one thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "logwatch/processor.h"
#include "model/snapshot_builder.h"

namespace llmon::app {

class LogRuleMetricsWriter {
 public:
  void write(model::SnapshotBuilder& out, const std::map<std::string, logwatch::MetricInfo>& info,
             const std::map<logwatch::MetricSeriesKey, logwatch::MetricSeries>& series,
             const std::map<std::string, uint64_t>& parse_errors);

 private:
  // The values of key's labels in the order of names_.
  void label_values(const logwatch::MetricSeriesKey& key);
  std::vector<std::string> names_, bucket_names_, values_, bucket_values_;
};

}  // namespace llmon::app
