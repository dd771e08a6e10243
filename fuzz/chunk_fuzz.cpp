// Fuzz target: the chunk codec (docs/format/chunk.md). Every input is decoded
// as a chunk (errors are fine; crashes, hangs and out-of-bounds reads are
// not), and also turned into an encodable series that must round-trip
// bit-exactly through both encodings (a mismatch aborts).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tsdb/chunk.h"

using namespace llmon;
using namespace llmon::tsdb;

namespace {

void decode_arbitrary(const uint8_t* data, size_t size) {
  auto dec = ChunkDecoder::open(std::span<const uint8_t>(data, size));
  if (!dec) return;
  int64_t prev = 0;
  bool first = true;
  while (dec->next()) {
    if (!first && dec->at().t_ms <= prev) std::abort();  // decoder promises increasing time
    prev = dec->at().t_ms;
    first = false;
  }
}

// Each 10-byte record: 2 bytes of timestamp step, 8 bytes of value. The top
// bits of the first byte pick how to read them, to reach every code path.
std::vector<model::Sample> series_from(const uint8_t* data, size_t size) {
  std::vector<model::Sample> out;
  int64_t t = -1'000'000;
  uint64_t n = 0;
  for (size_t i = 0; i + 10 <= size && out.size() < kMaxChunkSamples; i += 10) {
    uint16_t step = static_cast<uint16_t>(data[i] << 8 | data[i + 1]);
    uint64_t raw = 0;
    std::memcpy(&raw, data + i + 2, 8);
    switch (data[i] >> 6) {
      case 0:
        t += 1000;
        break;  // aligned
      case 1:
        t += 1 + (step & 0x3fff);
        break;  // small irregular
      case 2:
        t += int64_t{1} << (step & 0x3f ? (step & 0x3f) % 40 : 1);
        break;  // big jumps
      default:
        t += 1000 + (step & 7);
        break;
    }
    double v;
    switch (raw & 3) {
      case 0:
        v = std::bit_cast<double>(raw);
        break;  // any bits
      case 1:
        n += (raw >> 2) & 0xffff;
        v = static_cast<double>(n);
        break;  // integer counter
      case 2:
        n += (raw >> 2) & 0xff;
        v = static_cast<double>(n) / 100;
        break;  // centi counter
      default:
        v = static_cast<double>(static_cast<int64_t>(raw) >> 40) / 1000;
        break;
    }
    out.push_back({t, v});
  }
  return out;
}

void round_trip(const std::vector<model::Sample>& samples) {
  if (samples.empty()) return;
  for (Encoding e : {Encoding::kXor, Encoding::kXorInt}) {
    ChunkEncoder enc(e);
    for (const auto& s : samples)
      if (!enc.append(s.t_ms, s.v).is_ok()) std::abort();
    auto got = decode_chunk(enc.bytes());
    if (!got || got->size() != samples.size()) std::abort();
    for (size_t i = 0; i < samples.size(); ++i) {
      if ((*got)[i].t_ms != samples[i].t_ms) std::abort();
      if (std::bit_cast<uint64_t>((*got)[i].v) != std::bit_cast<uint64_t>(samples[i].v)) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  decode_arbitrary(data, size);
  round_trip(series_from(data, size));
  return 0;
}
