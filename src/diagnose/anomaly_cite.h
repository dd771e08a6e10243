// Findings cite the anomalous series of their subject (docs/diagnosis.md
// "Baselines and anomalies"): a straggler or cooling finding gains, as
// evidence, the feature expression of each of its GPU's series that the
// baseline scored anomalous in the window, with its score and baseline.
// Citing adds evidence only: it never adds, removes or reorders findings.
#pragma once

#include <string_view>

#include "anomaly/scorer.h"
#include "diagnose/diagnose.h"
#include "promql/engine.h"

namespace llmon::diagnose {

// Adds the citations from `scorer` (series anomalous since the window's start).
void cite_anomalies(Diagnosis& d, const anomaly::Scorer& scorer);

// The same with a scorer rebuilt from the store: the features of the window
// and the two hours before it replayed a minute at a time (`llmon diagnose`,
// /api/v1/diagnosis).
void cite_anomalies(Diagnosis& d, promql::Engine& engine);

// The history replayed before the window by the second form.
inline constexpr int64_t kCiteHistoryMs = 2 * 3'600'000;

}  // namespace llmon::diagnose
