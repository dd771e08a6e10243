// Runs every detector over one window and orders the findings: severity
// first, then how many GPUs a finding covers (a node-wide bottleneck before a
// single GPU's trouble), then confidence; a cause found together with the
// symptom it explains (a leak and the memory pressure it ends in, a straggler
// and its one throttling GPU) comes right before that symptom. With no finding, the summary says the node is
// healthy and gives its utilisation and what its GPUs cost.
#pragma once

#include <string>
#include <vector>

#include "diagnose/detector.h"

namespace llmon::diagnose {

struct Summary {
  int gpus = 0;
  double gpu_utilization_avg = 0;  // percent, over the window and the GPUs
  double gpu_hours = 0;            // GPUs x window
  double cost = 0;                 // $ for those GPU-hours
  double idle_cost = 0;            // $ of the unused share (1 - utilisation)
};

struct Diagnosis {
  Options options;
  std::vector<Finding> findings;
  Summary summary;
  std::vector<std::string> errors;  // queries that failed (missing families are not errors)
};

Diagnosis run(QuerySource& source, const Options& options);
Diagnosis run(QuerySource& source, const Options& options, std::vector<std::unique_ptr<Detector>>& detectors);

}  // namespace llmon::diagnose
