// Families of one cycle that share a name (two collectors emitting the same
// family, or a *.prom file re-using a built-in name such as node_load1) are
// exposed as one. A series can then appear twice with the same labels, which
// Prometheus rejects for the whole scrape ("duplicate sample for
// timestamp"), and the store would get two values for one instant.
// drop_duplicate_series() keeps the first occurrence, built-in collectors
// before the textfile collector and otherwise in emission order: a later
// series with the same label set is removed, and a later part of another
// metric type is removed whole (exposed under the first part's TYPE it
// would be mislabelled). Returns the names of the families that lost series,
// sorted, in `dropped` (cleared first). Steady cost without shared names: one
// pass over the name-sorted order comparing neighbours.
#pragma once

#include <string>
#include <vector>

#include "model/metric.h"

namespace llmon::collector {

// `textfile` names the collector whose parts lose to every other's.
void drop_duplicate_series(model::Snapshot& snap, std::string_view textfile, std::vector<std::string>& dropped);

}  // namespace llmon::collector
