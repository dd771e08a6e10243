// SnapshotBuilder fills a Snapshot during one collection cycle.
// It recycles the storage of an earlier snapshot: when a cycle emits the same
// families and series in the same order as before (the steady state), strings
// are assigned in place and no memory is allocated. finish() computes the
// name-sorted order. One thread only.
#pragma once

#include <initializer_list>
#include <string_view>

#include "model/metric.h"

namespace llmon::model {

class SnapshotBuilder;

// Adds series to one family. Label values are given in the order of the
// family's label names. Valid until the next SnapshotBuilder::family() call.
class FamilyWriter {
 public:
  void add(double value);
  void add(std::initializer_list<std::string_view> label_values, double value);
  void add(const std::vector<std::string_view>& label_values, double value);
  void add(const std::vector<std::string>& label_values, double value);

 private:
  friend class SnapshotBuilder;
  FamilyWriter(Family* f, size_t* used) : family_(f), used_(used) {}
  Series& next_series();
  Family* family_;
  size_t* used_;
};

class SnapshotBuilder {
 public:
  // Starts a cycle writing into target (whose old contents are recycled).
  SnapshotBuilder(Snapshot& target, int64_t timestamp_ms);
  FamilyWriter family(std::string_view name, std::string_view help, MetricType type,
                      std::initializer_list<std::string_view> label_names = {});
  FamilyWriter family(std::string_view name, std::string_view help, MetricType type,
                      const std::vector<std::string>& label_names);
  // Drops recycled leftovers and computes the sorted
  // order. Call exactly once.
  void finish();
  int64_t timestamp_ms() const { return snap_.timestamp_ms; }
  // Families added so far (the index the next family() gets).
  size_t families_used() const { return families_used_; }

 private:
  Family& next_family(std::string_view name, std::string_view help, MetricType type);
  Snapshot& snap_;
  size_t families_used_ = 0;
  std::vector<size_t> series_used_;
  bool names_changed_ = false;
};

}  // namespace llmon::model
