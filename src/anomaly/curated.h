// The curated series that get a baseline (docs/diagnosis.md "Baselines and
// anomalies"): a few GPU and host signals, each a PromQL expression of its
// one-minute feature. Data only, no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmon::anomaly {

struct Metric {
  std::string_view name;  // the `metric` label of llmon_anomaly_score
  std::string_view expr;  // the feature; "{S}" / "{S," stand for the selector's matchers
  double abs_floor;       // the baseline's smallest scale, in the feature's units
};

// GPU utilisation, SM activity, power, temperature, memory used; node CPU
// busy, iowait, network receive/transmit, disk throughput; training step time.
const std::vector<Metric>& curated_metrics();

// expr with the selector's matchers put in ("" leaves plain selectors).
std::string with_selector(std::string_view expr, std::string_view selector);

}  // namespace llmon::anomaly
