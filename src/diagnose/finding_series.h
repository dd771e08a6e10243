// Findings as series, so rules alert on them and notifications route them:
// `llmon_diagnosis_finding{kind, severity, <subject labels>, <target labels>} 1`
// at each continuous diagnosis while the finding holds, and a staleness
// marker the first time it no longer does (docs/diagnosis.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "diagnose/diagnose.h"
#include "model/labels.h"
#include "storage/storage.h"

namespace llmon::diagnose {

inline constexpr const char* kFindingMetric = "llmon_diagnosis_finding";

class FindingSeries {
 public:
  // target: the labels every series carries (the agent's job and instance).
  explicit FindingSeries(std::vector<model::Label> target) : target_(std::move(target)) {}
  // Appends one sample per finding at t_ms and staleness markers for the
  // findings of the previous call that are gone; commits. Labels that are not
  // valid label values (empty) are left out.
  Status write(const Diagnosis& d, storage::Appender& app, int64_t t_ms);
  // The label sets written last time (for tests).
  const std::vector<model::Labels>& active() const { return active_; }

 private:
  std::vector<model::Label> target_;
  std::vector<model::Labels> active_;
};

}  // namespace llmon::diagnose
