// remote_write protocol 1.0's request body (docs/remote_write.md): the
// protobuf prometheus.WriteRequest (prompb/remote.proto, types.proto),
// hand-written with base/proto_wire.h, and snappy's block format (never the
// framed one). Pure encoding: no I/O, no state; callers own the buffers.
//
//   WriteRequest { repeated TimeSeries timeseries = 1; reserved 2, 3;
//                  repeated MetricMetadata metadata = 4; }
//   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
//   Label        { string name = 1; string value = 2; }
//   Sample       { double value = 1; int64 timestamp = 2; }   // ms
//   MetricMetadata { MetricType type = 1; string metric_family_name = 2;
//                    string help = 4; string unit = 5; }
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/labels.h"

namespace llmon::remote {

inline constexpr std::string_view kContentType = "application/x-protobuf";
inline constexpr std::string_view kContentEncoding = "snappy";
inline constexpr std::string_view kProtocolVersion = "0.1.0";

// Which message a queue sends: remote_write's `protobuf_message`.
enum class Protocol { kV1, kV2 };  // prometheus.WriteRequest, io.prometheus.write.v2.Request

struct WriteSample {
  int64_t t_ms = 0;
  double v = 0;  // sent bit-exactly: the staleness NaN stays a staleness NaN
};

// prompb MetricMetadata.MetricType: 0 unknown, 1 counter, 2 gauge,
// 3 histogram, 4 gaugehistogram, 5 summary, 6 info, 7 stateset (the same
// numbers as io.prometheus.write.v2.Metadata.MetricType).
struct WriteMetadata {
  int type = 0;
  std::string family;
  std::string help;
  std::string unit;
  bool operator==(const WriteMetadata&) const = default;
};

// Labels sorted by name, unique, no empty values (the spec's rule; the
// encoder writes them as given).
struct WriteSeries {
  std::vector<model::Label> labels;
  std::vector<WriteSample> samples;  // in time order
  // The family's metadata (2.0 sends it per series; 1.0 ignores it). Owned
  // by the caller, alive while the series is encoded; may be null.
  const WriteMetadata* metadata = nullptr;
};

// A series as the encoders read it, borrowing everything (the queue's
// send path builds these over its caches without copying labels or
// samples). Alive while encoded.
struct SeriesView {
  const std::vector<model::Label>* labels = nullptr;
  std::span<const WriteSample> samples;
  const WriteMetadata* metadata = nullptr;
};
std::vector<SeriesView> views_of(const std::vector<WriteSeries>& series);

// Appends the serialized WriteRequest to `out` (cleared first).
void encode_write_request(std::span<const SeriesView> series, const std::vector<WriteMetadata>& metadata,
                          std::string& out);
inline void encode_write_request(const std::vector<WriteSeries>& series, const std::vector<WriteMetadata>& metadata,
                                 std::string& out) {
  encode_write_request(views_of(series), metadata, out);
}

// snappy block format.
std::string snappy_compress(std::string_view raw);

}  // namespace llmon::remote
