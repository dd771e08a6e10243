// Pushed metric families as Pushgateway 1.5 holds them (client_model's
// dto.MetricFamily, read by expfmt's text parser): one PushedMetric per
// label set, histograms and summaries whole. Converting parsed text into
// them, the grouping labels Pushgateway sets on every pushed metric, and the
// two ways out: its /metrics page text, and model families for a Snapshot
// (storage, other pages). Pure functions and values; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "exposition/text_families.h"
#include "model/labels.h"
#include "model/snapshot_builder.h"

namespace llmon::scrape {

using PushedType = exposition::TextType;

struct PushedMetric {
  // Sorted by name, names unique; a value may be "" (instance="" is set on
  // every pushed metric that has no instance label). For histograms and
  // summaries, without le / quantile.
  std::vector<model::Label> labels;
  double value = 0;  // counter, gauge, untyped
  // summary: (quantile, value); histogram: (upper bound, cumulative count),
  // in the order pushed.
  std::vector<std::pair<double, double>> points;
  double sum = 0;      // histogram, summary
  uint64_t count = 0;  // histogram, summary (expfmt keeps counts as uint64)
};

struct PushedFamily {
  std::string name;
  std::optional<std::string> help;  // absent: no HELP line
  PushedType type = PushedType::kUntyped;
  std::vector<PushedMetric> metrics;
};

// "COUNTER", "GAUGE", "SUMMARY", "UNTYPED", "HISTOGRAM" (dto's names, used in
// Pushgateway's messages).
std::string_view dto_type_name(PushedType t);

// expfmt's reading of text families: counter/gauge/untyped samples become one
// metric each; summary (histogram) samples are gathered per label set without
// quantile (le): x_sum, x_count, and the quantile (bucket) samples; counts
// are truncated to integers (a negative or NaN count reads as 0). A quantile
// or le that is not a float is an error (expfmt's words: `expected float as
// value for 'le' label, got "x"`). Labels come out sorted by name.
Expected<std::vector<PushedFamily>> pushed_families(std::vector<exposition::TextFamily> text);

// Pushgateway's sanitizeLabels: each grouping label is set on the metric
// (overriding a pushed value), instance="" is added when there is no
// instance label, labels are sorted.
void apply_grouping_labels(PushedFamily& f, const std::vector<model::Label>& grouping);

// The metric in protobuf's compact text form, as Pushgateway's messages show
// it: `{ label:<name:"job" value:"a" > gauge:<value:2 > }`.
std::string describe_metric(const PushedFamily& f, const PushedMetric& m);

// client_golang's metric order within a family: fewer labels first, then
// the label values compared in name order.
bool metric_less(const PushedMetric& a, const PushedMetric& b);

// Pushgateway's /metrics text for these families (in the order given; the
// store gives them sorted by name): "# HELP" when the family has help,
// "# TYPE" always, histogram buckets then _sum and _count (a +Inf bucket
// added when missing), summary quantiles then _sum and _count, le/quantile
// after the other labels, values in Go's 'g' form.
void write_push_page(const std::vector<PushedFamily>& families, std::string& out);

// The families as model families for a Snapshot: counter, gauge and untyped
// families as they are (one model family per distinct set of label names, all
// under the family's name, which the Snapshot exposes as one); a histogram x
// as untyped x_bucket (with le, +Inf added when missing), x_sum and x_count,
// a summary x as untyped x (with quantile), x_sum and x_count -- the series
// a scrape of the Pushgateway stores. `help_default` stands in for a family
// without help.
void add_to_snapshot(const std::vector<PushedFamily>& families, model::SnapshotBuilder& out,
                     std::string_view help_default = "");

}  // namespace llmon::scrape
