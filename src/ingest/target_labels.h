// A target's labels applied to a scraped sample's, as Prometheus's
// mutateSampleLabels does (scrape/scrape.go), for the agent's own cycles
// (SnapshotSink) and for scraped applications (scrape/).
//   honor_labels false: every target label with a value is set; an exposed
//     label it displaces is kept as exported_<name>, prefixed again while
//     that name is taken by an exposed label, a target label or an earlier
//     displaced one (shortest names first: resolveConflictingExposedLabels).
//   honor_labels true: a target label is set only where the sample has no
//     such label at all; an exposed empty value (instance="", as the
//     Pushgateway exposes) keeps it off, and the result has neither.
// Pure; `pairs` may be in any order and is left unsorted; empty values mean
// absent, as everywhere.
#pragma once

#include <string_view>
#include <vector>

#include "model/labels.h"

namespace llmon::ingest {

void apply_target_labels(std::vector<model::Label>& pairs, const std::vector<model::Label>& target, bool honor_labels);

}  // namespace llmon::ingest
