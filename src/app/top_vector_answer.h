// The answer of the Prometheus query API to an instant query of a vector
// (`{"status":"success","data":{"resultType":"vector","result":[{"metric":
// {...},"value":[t,"v"]},...]}}`) -> a snapshot, as `llmon top --url` shows
// it. Pure. Read with nlohmann's SAX interface, no DOM: only
// data.result[*].metric (labels sorted by name; __name__ is the family) and
// data.result[*].value[1] are read, everything else is skipped. A series
// without a name or a value is left out; series of one name and label set
// form one family (a counter when the name ends in _total, else a gauge);
// families come in first-seen order, `order` sorts them by name. Invalid
// JSON is an error.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "model/metric.h"

namespace llmon::app {

Expected<model::SnapshotPtr> parse_vector_answer(std::string_view body, int64_t ts_ms);

}  // namespace llmon::app
