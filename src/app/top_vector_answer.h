// The answer of the Prometheus query API to an instant query of a vector
// (`{"status":"success","data":{"resultType":"vector","result":[{"metric":
// {...},"value":[t,"v"]},...]}}`) -> a snapshot, as `llmon top --url` shows
// it. Pure. Read by a pull reader of its own, no DOM (nlohmann's SAX lexer
// was most of `top --url`'s CPU): only data.result[*].metric (labels sorted
// by name; __name__ is the family) and data.result[*].value[1] are read,
// everything else is checked as JSON and skipped. A series
// without a name or a value is left out; series of one name and label set
// form one family (a counter when the name ends in _total, else a gauge);
// families come in first-seen order, `order` sorts them by name. Invalid
// JSON (RFC 8259, strict: no trailing bytes, nesting bounded at 64) is an
// error naming the byte offset; a top level that is not an object too.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "model/metric.h"

namespace llmon::app {

Expected<model::SnapshotPtr> parse_vector_answer(std::string_view body, int64_t ts_ms);

}  // namespace llmon::app
