#include "model/snapshot_builder.h"

#include <algorithm>
#include <cassert>

namespace llmon::model {

namespace {
template <typename Range>
void assign_strings(std::vector<std::string>& dst, const Range& src) {
  dst.resize(src.size());
  size_t i = 0;
  for (const auto& s : src) {
    std::string_view v(s);
    if (dst[i] != v) dst[i].assign(v.data(), v.size());
    ++i;
  }
}
}  // namespace

Series& FamilyWriter::next_series() {
  size_t& used = *used_;
  if (used == family_->series.size()) family_->series.emplace_back();
  return family_->series[used++];
}

void FamilyWriter::add(double value) {
  Series& s = next_series();
  s.label_values.clear();
  s.value = value;
}

void FamilyWriter::add(std::initializer_list<std::string_view> label_values, double value) {
  assert(label_values.size() == family_->label_names.size());
  Series& s = next_series();
  assign_strings(s.label_values, label_values);
  s.value = value;
}

void FamilyWriter::add(const std::vector<std::string_view>& label_values, double value) {
  assert(label_values.size() == family_->label_names.size());
  Series& s = next_series();
  assign_strings(s.label_values, label_values);
  s.value = value;
}

void FamilyWriter::add(const std::vector<std::string>& label_values, double value) {
  assert(label_values.size() == family_->label_names.size());
  Series& s = next_series();
  assign_strings(s.label_values, label_values);
  s.value = value;
}

SnapshotBuilder::SnapshotBuilder(Snapshot& target, int64_t timestamp_ms) : snap_(target) {
  snap_.timestamp_ms = timestamp_ms;
  series_used_.reserve(snap_.families.size() + 8);
}

Family& SnapshotBuilder::next_family(std::string_view name, std::string_view help, MetricType type) {
  if (families_used_ == snap_.families.size()) snap_.families.emplace_back();
  Family& f = snap_.families[families_used_++];
  if (f.name != name) {
    f.name.assign(name.data(), name.size());
    f.series.clear();
    names_changed_ = true;
  }
  if (f.help != help) f.help.assign(help.data(), help.size());
  f.type = type;
  series_used_.push_back(0);
  return f;
}

FamilyWriter SnapshotBuilder::family(std::string_view name, std::string_view help, MetricType type,
                                     std::initializer_list<std::string_view> label_names) {
  Family& f = next_family(name, help, type);
  assign_strings(f.label_names, label_names);
  return FamilyWriter(&f, &series_used_.back());
}

FamilyWriter SnapshotBuilder::family(std::string_view name, std::string_view help, MetricType type,
                                     const std::vector<std::string>& label_names) {
  Family& f = next_family(name, help, type);
  assign_strings(f.label_names, label_names);
  return FamilyWriter(&f, &series_used_.back());
}

void SnapshotBuilder::finish() {
  if (snap_.families.size() != families_used_) names_changed_ = true;
  snap_.families.resize(families_used_);
  for (size_t i = 0; i < families_used_; ++i) snap_.families[i].series.resize(series_used_[i]);
  auto& fams = snap_.families;
  // Families without series stay (so storage keeps its positions); writers skip them.
  if (!names_changed_ && snap_.order.size() == fams.size()) return;  // recycled order still valid
  snap_.order.resize(fams.size());
  for (uint32_t i = 0; i < fams.size(); ++i) snap_.order[i] = i;
  std::stable_sort(snap_.order.begin(), snap_.order.end(),
                   [&](uint32_t a, uint32_t b) { return fams[a].name < fams[b].name; });
}

}  // namespace llmon::model
