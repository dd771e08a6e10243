#include "app/log_rule_metrics.h"

#include <algorithm>

#include "go/strconv.h"

namespace llmon::app {

using model::MetricType;

void LogRuleMetricsWriter::label_values(const logwatch::MetricSeriesKey& key) {
  values_.assign(names_.size(), std::string());
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == "source") {
      values_[i] = key.source;
      continue;
    }
    for (const auto& [ln, lv] : key.labels)
      if (ln == names_[i]) values_[i] = lv;
  }
}

void LogRuleMetricsWriter::write(model::SnapshotBuilder& out, const std::map<std::string, logwatch::MetricInfo>& info,
                                 const std::map<logwatch::MetricSeriesKey, logwatch::MetricSeries>& series,
                                 const std::map<std::string, uint64_t>& parse_errors) {
  if (!parse_errors.empty()) {
    auto f = out.family("llmon_log_metric_parse_errors_total",
                        "Values of log-derived metrics that did not parse as numbers (or that the metric's type "
                        "refuses: a negative counter, a NaN observation), by rule; skipped.",
                        MetricType::kCounter, {"rule"});
    for (const auto& [rule, n] : parse_errors) f.add({rule}, static_cast<double>(n));
  }
  // Both maps are ordered by metric name first: walk them together.
  auto it = series.begin();
  for (const auto& [name, mi] : info) {
    while (it != series.end() && it->first.name < name) ++it;
    auto end = it;
    while (end != series.end() && end->first.name == name) ++end;
    if (it == end) continue;  // no sample yet
    names_.assign(mi.labels.begin(), mi.labels.end());
    names_.push_back("source");
    std::sort(names_.begin(), names_.end());
    if (mi.kind != logwatch::MetricKind::kHistogram) {
      auto f = out.family(
          name, mi.help, mi.kind == logwatch::MetricKind::kCounter ? MetricType::kCounter : MetricType::kGauge, names_);
      for (auto i = it; i != end; ++i) {
        label_values(i->first);
        f.add(values_, i->second.value);
      }
      it = end;
      continue;
    }
    bucket_names_ = names_;
    bucket_names_.push_back("le");
    std::sort(bucket_names_.begin(), bucket_names_.end());
    const size_t le =
        static_cast<size_t>(std::find(bucket_names_.begin(), bucket_names_.end(), "le") - bucket_names_.begin());
    {
      auto f = out.family(name + "_bucket", mi.help, MetricType::kUntyped, bucket_names_);
      for (auto i = it; i != end; ++i) {
        label_values(i->first);
        bucket_values_ = values_;
        bucket_values_.insert(bucket_values_.begin() + static_cast<std::ptrdiff_t>(le), std::string());
        const logwatch::MetricSeries& s = i->second;
        for (size_t b = 0; b < mi.buckets.size(); ++b) {
          bucket_values_[le] = go::format_float(mi.buckets[b]);
          f.add(bucket_values_, static_cast<double>(b < s.bucket.size() ? s.bucket[b] : 0));
        }
        bucket_values_[le] = "+Inf";
        f.add(bucket_values_, static_cast<double>(s.count));
      }
    }
    {
      auto f = out.family(name + "_sum", mi.help, MetricType::kUntyped, names_);
      for (auto i = it; i != end; ++i) {
        label_values(i->first);
        f.add(values_, i->second.sum);
      }
    }
    {
      auto f = out.family(name + "_count", mi.help, MetricType::kUntyped, names_);
      for (auto i = it; i != end; ++i) {
        label_values(i->first);
        f.add(values_, static_cast<double>(i->second.count));
      }
    }
    it = end;
  }
}

}  // namespace llmon::app
