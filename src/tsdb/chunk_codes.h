// Bit-level codes shared by the chunk encoder and decoder: dod buckets,
// zigzag, scales (docs/format/chunk.md). Internal to src/tsdb/.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tsdb/bitstream.h"

namespace llmon::tsdb::codes {

inline constexpr size_t kHeaderFixed = 3;  // encoding + num_samples
inline constexpr int kMaxScale = 6;
inline constexpr double kPow10[kMaxScale + 1] = {1, 10, 100, 1000, 10000, 100000, 1000000};
inline constexpr double kTwo53 = 9007199254740992.0;
// A run of up to this many "nothing new" samples is cheapest as single 0 bits.
inline constexpr size_t kMaxRunAsBits = 8;

// Payload widths of the five dod buckets (prefixes 0, 10, 110, 1110, 1111).
// Width 0 means "dod is 0, no payload".
inline constexpr int kTimeBuckets[5] = {0, 14, 17, 20, 64};
inline constexpr int kValueBuckets[5] = {6, 13, 20, 32, 64};

inline bool fits(int64_t dod, int nbits) {
  if (nbits == 0) return dod == 0;
  if (nbits == 64) return true;
  int64_t half = int64_t{1} << (nbits - 1);
  return dod >= -(half - 1) && dod <= half;
}

// Bits (prefix + payload) of the bucket that holds dod.
inline int dod_bits(uint64_t dod_bits, const int (&buckets)[5]) {
  auto dod = static_cast<int64_t>(dod_bits);
  for (int i = 0; i < 4; ++i)
    if (fits(dod, buckets[i])) return i + 1 + buckets[i];
  return 4 + buckets[4];
}

inline void write_dod(BitWriter& w, uint64_t dod_bits, const int (&buckets)[5]) {
  auto dod = static_cast<int64_t>(dod_bits);
  for (int i = 0; i < 5; ++i) {
    if (!fits(dod, buckets[i])) continue;
    // Prefix: i ones, then a terminating zero except for the last bucket.
    if (i < 4) {
      w.write_bits((uint64_t{1} << (i + 1)) - 2, i + 1);
    } else {
      w.write_bits(0xf, 4);
    }
    w.write_bits(dod_bits, buckets[i]);
    return;
  }
}

inline uint64_t read_dod(BitReader& r, const int (&buckets)[5], bool first_bit_was_one = false) {
  int i = first_bit_was_one ? 1 : 0;
  while (i < 4 && r.read_bit()) ++i;
  int n = buckets[i];
  if (n == 0) return 0;
  uint64_t x = r.read_bits(n);
  if (n < 64 && x > (uint64_t{1} << (n - 1))) x -= uint64_t{1} << n;  // sign-extend (wrapping)
  return x;
}

inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t u) {
  return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

inline double from_int(uint64_t n, int scale) {
  return static_cast<double>(static_cast<int64_t>(n)) / kPow10[scale];
}

}  // namespace llmon::tsdb::codes
