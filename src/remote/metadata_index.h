// The metadata remote_write sends (docs/remote_write.md "Metadata"): the
// HELP/TYPE/UNIT of the families the agent collects and scrapes, keyed by
// family name, and the lookup of a series' family from its metric name
// (exact, else without a _bucket/_sum/_count/_total/_created/_info suffix, as
// histogram, summary and counter series are named after their family).
// Pure and immutable once built; shared between a queue's shards.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "remote/write_request.h"

namespace llmon::remote {

// prompb's MetricType number of an exposition type name ("counter",
// "gauge", "histogram", "gaugehistogram", "summary", "info", "stateset";
// anything else, "untyped" and "unknown" included, is 0).
int metric_type_number(std::string_view type);

class MetadataIndex {
 public:
  MetadataIndex() = default;
  // Later entries for a family already present are ignored (the agent's
  // own families come first).
  explicit MetadataIndex(std::vector<WriteMetadata> entries);
  MetadataIndex(const MetadataIndex&) = delete;  // by_name_ views entries_' strings
  MetadataIndex& operator=(const MetadataIndex&) = delete;

  // The metadata of the family `metric_name` belongs to; null when unknown.
  const WriteMetadata* find(std::string_view metric_name) const;
  // Every family's metadata, sorted by family name (1.0's MetricMetadata).
  const std::vector<WriteMetadata>& all() const { return entries_; }

 private:
  std::vector<WriteMetadata> entries_;
  std::unordered_map<std::string_view, size_t> by_name_;
};

}  // namespace llmon::remote
