// The in-memory shape of one collection cycle: metric families with fixed
// label names per family, and series holding label values plus one value.
// A Snapshot is built by one SnapshotBuilder, then published immutable and
// shared (std::shared_ptr<const Snapshot>) with readers on other threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::model {

enum class MetricType { kCounter, kGauge, kUntyped };

std::string_view type_name(MetricType t);  // "counter", "gauge", "untyped"

struct Series {
  std::vector<std::string> label_values;  // parallel to Family::label_names
  double value = 0;
};

struct Family {
  std::string name;
  std::string help;
  MetricType type = MetricType::kUntyped;
  std::vector<std::string> label_names;  // sorted by name, as Prometheus clients emit them
  std::vector<Series> series;
};

// The families [first_family, end_family) of Snapshot::families one collector emitted.
struct CollectorSpan {
  std::string name;
  uint32_t first_family = 0, end_family = 0;
};

struct Snapshot {
  int64_t timestamp_ms = 0;  // one timestamp for every sample of the cycle
  double duration_seconds = 0;  // how long the cycle's collection took
  // Every collector of the cycle in run order (those that emitted nothing too).
  // Families outside every span (node_scrape_collector_*) belong to all of
  // them; their series name their collector in a "collector" label.
  std::vector<CollectorSpan> collectors;
  // In emission order (collector by collector), so the next cycle can recycle
  // storage in place. `order` lists the same families sorted by name (stable);
  // families sharing a name are adjacent there and exposed as one.
  std::vector<Family> families;
  std::vector<uint32_t> order;

  const Family* find(std::string_view name) const;
  // The first series of `name` (in any of its parts) whose labels match all
  // given pairs, or nullptr.
  const Series* find_series(std::string_view name,
                            std::initializer_list<std::pair<std::string_view, std::string_view>> labels) const;
  size_t series_count() const;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

// Metric and label name validity (Prometheus data model).
bool is_valid_metric_name(std::string_view name);
bool is_valid_label_name(std::string_view name);

}  // namespace llmon::model
