// Implements docs/format/chunk.md: what encoder and decoder share.
#include "tsdb/chunk.h"

#include <bit>
#include <cmath>

#include "tsdb/chunk_codes.h"

namespace llmon::tsdb {

using namespace codes;

std::string_view encoding_name(Encoding e) {
  switch (e) {
    case Encoding::kXor:
      return "xor";
    case Encoding::kXorInt:
      return "xor-int";
    case Encoding::kPacked:
      return "packed";
    case Encoding::kGroup:
      return "group";
  }
  return "unknown";
}

namespace detail {

bool representable(double v, int scale, int64_t* n) {
  if (!std::isfinite(v)) return false;
  double x = v * kPow10[scale];
  if (!(std::fabs(x) <= kTwo53)) return false;
  int64_t r = std::llround(x);
  if (r > (int64_t{1} << 53) || r < -(int64_t{1} << 53)) return false;
  double back = static_cast<double>(r) / kPow10[scale];
  if (std::bit_cast<uint64_t>(back) != std::bit_cast<uint64_t>(v)) return false;
  *n = r;
  return true;
}

void update_after_other(IntState& st, double v) {
  for (int s = st.scale; s <= kMaxScale; ++s) {
    int64_t n = 0;
    if (representable(v, s, &n)) {
      st.valid = true;
      st.scale = s;
      st.n = static_cast<uint64_t>(n);
      st.d = 0;
      return;
    }
  }
  st.valid = false;
}

}  // namespace detail

Expected<std::vector<uint8_t>> group_chunks(std::span<const std::span<const uint8_t>> parts,
                                            std::vector<size_t>* offsets) {
  if (parts.size() < 2 || parts.size() > kMaxGroupParts)
    return Status::error("chunk: a group holds 2.." + std::to_string(kMaxGroupParts) + " parts, not " +
                         std::to_string(parts.size()));
  std::vector<uint8_t> out;
  out.push_back(static_cast<uint8_t>(Encoding::kGroup));
  out.push_back(static_cast<uint8_t>(parts.size()));
  if (offsets != nullptr) offsets->clear();
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    if (p.empty() || p[0] < static_cast<uint8_t>(Encoding::kXor) || p[0] > static_cast<uint8_t>(Encoding::kPacked))
      return Status::error("chunk: group part " + std::to_string(i + 1) + " is not a chunk of encoding 1-3");
    if (p.size() >= (uint64_t{1} << 32)) return Status::error("chunk: group part too large");
    if (i + 1 < parts.size()) {
      for (uint64_t len = p.size();; len >>= 7) {
        if (len < 0x80) {
          out.push_back(static_cast<uint8_t>(len));
          break;
        }
        out.push_back(static_cast<uint8_t>(len | 0x80));
      }
    }
    if (offsets != nullptr) offsets->push_back(out.size());
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

Expected<std::vector<model::Sample>> decode_chunk(std::span<const uint8_t> chunk) {
  auto dec = ChunkDecoder::open(chunk);
  if (!dec) return dec.status();
  std::vector<model::Sample> out;
  out.reserve(dec->num_samples());
  while (dec->next()) out.push_back(dec->at());
  if (!dec->err().is_ok()) return dec->err();
  return out;
}

}  // namespace llmon::tsdb
