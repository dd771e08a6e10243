// Grafana Loki push bodies from log events (docs/logwatch-forward.md,
// "Loki"): POST /loki/api/v1/push as JSON, or as logproto.PushRequest
// protobuf (grafana/loki pkg/push/push.proto) compressed with snappy's block
// format. Pure functions on values; the protobuf is written by hand (four
// small messages) and decoded independently in the tests. The HTTP side is
// loki_forwarder.h's.
//
// Streams are keyed by low-cardinality labels only: job="llmon", host, rule,
// severity and source, plus the configured static labels (which win over
// those of the same name). Each event is one entry at its time_ms, whose
// line is the event's lines joined by LF, followed, when the event has
// labels or repeats, by a TAB and logfmt pairs (`size="2.00 GiB" repeat=3`):
// event labels (regex groups) can take many values and stay out of the
// stream labels. Invalid UTF-8 becomes U+FFFD (both formats carry strings).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "logwatch/event.h"

namespace llmon::logwatch {

using LokiLabels = std::vector<std::pair<std::string, std::string>>;  // sorted by name, unique

struct LokiEntry {
  int64_t time_ns = 0;
  std::string line;
};

struct LokiStream {
  LokiLabels labels;
  std::vector<LokiEntry> entries;  // in time order (stable)
};

struct LokiLabelOptions {
  std::string host;
  LokiLabels static_labels;  // --logwatch.forward.loki-labels
};

// The events grouped by stream; streams in label order.
std::vector<LokiStream> loki_streams(const std::vector<Event>& events, const LokiLabelOptions& o);

// An entry's line (the header says how).
std::string loki_line(const Event& e);

// {"streams":[{"stream":{"job":"llmon",...},"values":[["<ns>","line"],...]},...]}
std::string loki_json_body(const std::vector<LokiStream>& streams);

// logproto.PushRequest, uncompressed: streams = 1 { labels = 1, entries = 2
// { timestamp = 1 { seconds = 1, nanos = 2 }, line = 2 } }.
std::string loki_protobuf_body(const std::vector<LokiStream>& streams);

// snappy block format (not the framed stream format), what Loki expects
// with Content-Type application/x-protobuf.
std::string snappy_block(std::string_view raw);

// {a="b", c="d"}: labels in Prometheus selector form (values escaped as Go's
// strconv.Quote does for ASCII: \\ \" \n \t, other controls \xNN).
std::string prometheus_labels(const LokiLabels& labels);

// "k=v,k2=v2" (the flag's form): names [a-zA-Z_][a-zA-Z0-9_]*, values
// anything but ','; empty text: no labels. Errors name the pair.
Expected<LokiLabels> parse_loki_labels(std::string_view text);

}  // namespace llmon::logwatch
