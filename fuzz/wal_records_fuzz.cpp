// Fuzz target: the WAL record codecs (docs/format/wal.md "Records"). Every
// input is decoded as a series, samples and tombstones record (errors are
// fine; crashes, hangs and out-of-bounds reads are not); whatever decodes must
// re-encode to a record that decodes to the same entries. The input is also
// turned into a samples record that must round-trip bit-exactly (a mismatch
// aborts).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tsdb/wal/records.h"

using namespace llmon;
using namespace llmon::tsdb::wal;

namespace {

bool same(const SampleEntry& a, const SampleEntry& b) {
  return a.ref == b.ref && a.t_ms == b.t_ms && std::bit_cast<uint64_t>(a.v) == std::bit_cast<uint64_t>(b.v);
}

void check_samples(const std::vector<SampleEntry>& in) {
  std::string rec;
  encode_samples(in, rec);
  std::vector<SampleEntry> out;
  if (!decode_samples(rec, out).is_ok() || out.size() != in.size()) std::abort();
  for (size_t i = 0; i < in.size(); ++i)
    if (!same(in[i], out[i])) std::abort();
}

void decode_arbitrary(std::string_view rec) {
  std::vector<SeriesEntry> series;
  if (decode_series(rec, series).is_ok()) {
    std::string again;
    encode_series(series, again);
    std::vector<SeriesEntry> back;
    if (!decode_series(again, back).is_ok() || back.size() != series.size()) std::abort();
    for (size_t i = 0; i < series.size(); ++i)
      if (back[i].ref != series[i].ref || !(back[i].labels == series[i].labels)) std::abort();
  } else if (!series.empty()) {
    std::abort();  // decoders leave `out` empty on error
  }
  std::vector<SampleEntry> samples;
  if (decode_samples(rec, samples).is_ok()) {
    check_samples(samples);
  } else if (!samples.empty()) {
    std::abort();
  }
  std::vector<storage::SeriesRef> refs;
  if (decode_tombstones(rec, refs).is_ok()) {
    std::string again;
    encode_tombstones(refs, again);
    std::vector<storage::SeriesRef> back;
    if (!decode_tombstones(again, back).is_ok() || back != refs) std::abort();
  } else if (!refs.empty()) {
    std::abort();
  }
  (void)record_type(rec);
}

// Each 12-byte group: a ref step, a timestamp choice and value bits; the low
// bits of the first byte pick how to read the value, to reach every kind.
std::vector<SampleEntry> samples_from(const uint8_t* data, size_t size) {
  std::vector<SampleEntry> out;
  storage::SeriesRef ref = 0;
  const int64_t t = 1'700'000'000'000;
  for (size_t i = 0; i + 12 <= size; i += 12) {
    const uint8_t c = data[i];
    uint64_t raw = 0;
    std::memcpy(&raw, data + i + 4, 8);
    ref += (c & 0x80) ? static_cast<int8_t>(data[i + 1]) : 1;
    const int64_t ts = (c & 0x40) ? t + static_cast<int16_t>(data[i + 2] << 8 | data[i + 3]) : t;
    double v;
    switch (c & 7) {
      case 0:
        v = std::bit_cast<double>(raw);
        break;  // any bits
      case 1:
        v = static_cast<double>(raw >> (raw & 63));
        break;  // integers
      case 2:
        v = static_cast<double>(static_cast<int64_t>(raw) >> 24) / 100;
        break;  // decimals
      case 3:
        v = static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(raw)));
        break;
      case 4:
        v = static_cast<double>(raw & 1);
        break;  // 0/1 gauges
      case 5:
        v = std::bit_cast<double>(model::kStaleNaNBits);
        break;
      case 6:
        v = -static_cast<double>(raw >> (raw & 63)) * 1024;
        break;
      default:
        v = static_cast<double>(static_cast<int64_t>(raw) >> 30) / 1e6;
        break;
    }
    out.push_back({ref, ts, v});
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  decode_arbitrary(std::string_view(reinterpret_cast<const char*>(data), size));
  check_samples(samples_from(data, size));
  return 0;
}
