// remote_write protocol 2.0's request body (docs/remote_write.md): the
// protobuf io.prometheus.write.v2.Request
// (prompb/io/prometheus/write/v2/types.proto), hand-written with
// base/proto_wire.h like the 1.0 message. Every string (label names and
// values, help, unit) is interned in the request's symbol table, whose first
// entry is the empty string; series refer to it by index. Pure encoding.
//
//   Request    { reserved 1 to 3; repeated string symbols = 4;
//                repeated TimeSeries timeseries = 5; }
//   TimeSeries { repeated uint32 labels_refs = 1 (packed: name, value, ...);
//                repeated Sample samples = 2; Metadata metadata = 5; }
//   Sample     { double value = 1; int64 timestamp = 2; }
//   Metadata   { MetricType type = 1; uint32 help_ref = 3; uint32 unit_ref = 4; }
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "remote/write_request.h"

namespace llmon::remote {

inline constexpr std::string_view kContentTypeV2 = "application/x-protobuf;proto=io.prometheus.write.v2.Request";
inline constexpr std::string_view kProtocolVersionV2 = "2.0.0";
// Response headers a 2.0 receiver must send (spec: "Required Written
// Response Headers"), lower-cased as net::http::Response keeps them.
inline constexpr std::string_view kSamplesWrittenHeader = "x-prometheus-remote-write-samples-written";
inline constexpr std::string_view kHistogramsWrittenHeader = "x-prometheus-remote-write-histograms-written";
inline constexpr std::string_view kExemplarsWrittenHeader = "x-prometheus-remote-write-exemplars-written";

// Writes the serialized Request to `out` (cleared first). WriteSeries'
// metadata, when set, becomes the series' Metadata (its family name is not
// sent: 2.0 names the metric by __name__ alone).
void encode_write_request_v2(std::span<const SeriesView> series, std::string& out);
inline void encode_write_request_v2(const std::vector<WriteSeries>& series, std::string& out) {
  encode_write_request_v2(views_of(series), out);
}

}  // namespace llmon::remote
