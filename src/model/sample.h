// One sample of a series, and Prometheus's staleness marker. Header-only,
// pure values; used by the store, PromQL, rules and ingestion alike.
#pragma once

#include <bit>
#include <cstdint>

namespace llmon::model {

// One sample. `t_ms`: milliseconds since the Unix epoch; `v`: stored bit-exactly.
struct Sample {
  int64_t t_ms = 0;
  double v = 0;
};

// Prometheus's staleness marker: a NaN with this exact bit pattern, appended
// when a series disappears from a scrape/collection. Other NaNs are ordinary
// values; only this payload means "stale". Stores must keep the bits exactly.
inline constexpr uint64_t kStaleNaNBits = 0x7ff0000000000002ull;
inline double stale_nan() {
  return std::bit_cast<double>(kStaleNaNBits);
}
inline bool is_stale(double v) {
  return std::bit_cast<uint64_t>(v) == kStaleNaNBits;
}

}  // namespace llmon::model
