// Pushed bodies in the protobuf exposition (client_model's dto.MetricFamily,
// varint length-delimited, Content-Type
// `application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;
// encoding=delimited`): what client_golang's push package sends by default.
// Read as Pushgateway 1.5 reads it (handler/push.go): families one after the
// other until the body ends, a later family of the same name replacing an
// earlier one; then into PushedFamily values for PushStore::push_families.
//
// Fields read (client_model metrics.proto): MetricFamily name(1) help(2)
// type(3) metric(4); Metric label(1) gauge(2) counter(3) summary(4)
// untyped(5) histogram(7) timestamp_ms(6); LabelPair name(1) value(2);
// Gauge/Counter/Untyped value(1); Summary sample_count(1) sample_sum(2)
// quantile(3){quantile(1) value(2)}; Histogram sample_count(1)
// sample_sum(2) bucket(3){cumulative_count(1) upper_bound(2)}. Other fields
// (exemplars, created timestamps, native-histogram spans and deltas) are
// skipped by wire type, as protobuf readers skip unknown fields; a
// GAUGE_HISTOGRAM reads as a histogram.
// Errors (answered 400, nothing stored): a truncated or malformed message
// (with its byte offset; Pushgateway says "unexpected EOF"), a family without
// a name, an unknown type. Problems Pushgateway finds later, in its store's
// consistency check, are returned as a `problem` instead (the store then
// refuses the push and records push_failure_time_seconds, as Pushgateway
// does): a metric whose value does not match its family's type
// (client_golang's `... is not a GAUGE`), a label name given twice. A metric
// with timestamp_ms sets `had_timestamps` (checked first, as there). Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "scrape/push_family.h"

namespace llmon::scrape {

// The first metric the consistency check would refuse: `family` holds only
// that metric, typed as what it holds (so describe_metric shows it as
// Pushgateway's message does); `reason` follows the description, e.g.
// " is not a GAUGE".
struct ProtoProblem {
  PushedFamily family;
  std::string reason;
};

struct ProtoPush {
  std::vector<PushedFamily> families;  // in first-seen order, labels sorted
  bool had_timestamps = false;
  std::optional<ProtoProblem> problem;
};

// The refusal text for PushStore::push_families (without the store's
// "pushed metrics are invalid..." prefix): timestamps first, then the
// problem with `grouping` applied to its labels; "" when there is none.
std::string protobuf_refusal(const ProtoPush& push, const std::vector<model::Label>& grouping);

// True for a Content-Type naming the delimited MetricFamily protobuf.
bool is_protobuf_push(std::string_view content_type);

Expected<ProtoPush> parse_protobuf_push(std::string_view body);

// The encoder the tests and the benchmark use (and a client could): the
// families as delimited MetricFamily messages.
std::string encode_protobuf_push(const std::vector<PushedFamily>& families);

}  // namespace llmon::scrape
