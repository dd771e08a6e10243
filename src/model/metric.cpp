#include "model/metric.h"

namespace llmon::model {

std::string_view type_name(MetricType t) {
  switch (t) {
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kUntyped: return "untyped";
  }
  return "untyped";
}

const Family* Snapshot::find(std::string_view name) const {
  for (const auto& f : families)
    if (f.name == name) return &f;
  return nullptr;
}

const Series* Snapshot::find_series(
    std::string_view name, std::initializer_list<std::pair<std::string_view, std::string_view>> labels) const {
  for (const auto& f : families) {
    if (f.name != name) continue;  // a name can have several parts (label sets)
    for (const auto& s : f.series) {
      bool ok = true;
      for (const auto& [k, v] : labels) {
        bool found = false;
        for (size_t i = 0; i < f.label_names.size(); ++i) {
          if (f.label_names[i] == k) {
            found = s.label_values[i] == v;
            break;
          }
        }
        if (!found) {
          ok = false;
          break;
        }
      }
      if (ok) return &s;
    }
  }
  return nullptr;
}

size_t Snapshot::series_count() const {
  size_t n = 0;
  for (const auto& f : families) n += f.series.size();
  return n;
}

namespace {
bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }
}  // namespace

bool is_valid_metric_name(std::string_view name) {
  if (name.empty() || !(name_start(name[0]) || name[0] == ':')) return false;
  for (char c : name)
    if (!(name_char(c) || c == ':')) return false;
  return true;
}

bool is_valid_label_name(std::string_view name) {
  if (name.empty() || !name_start(name[0])) return false;
  for (char c : name)
    if (!name_char(c)) return false;
  return true;
}

}  // namespace llmon::model
