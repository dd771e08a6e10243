// ChunkEncoder: docs/format/chunk.md, the encoder's choices included.
#include <algorithm>
#include <bit>
#include <string>

#include "tsdb/chunk.h"
#include "tsdb/chunk_codes.h"

namespace llmon::tsdb {

using namespace codes;

ChunkEncoder::ChunkEncoder(Encoding encoding) : encoding_(encoding) {}

Status ChunkEncoder::append(int64_t t_ms, double v) {
  if (encoding_ != Encoding::kXor && encoding_ != Encoding::kXorInt)
    return Status::error("chunk: encoding " + std::string(encoding_name(encoding_)) +
                         " is not written sample by sample (seal_chunk)");
  uint64_t bits = std::bit_cast<uint64_t>(v);
  if (count_ == 0) {
    auto& out = writer_.mutable_bytes();
    out.push_back(static_cast<uint8_t>(encoding_));
    out.push_back(0);
    out.push_back(0);
    for (uint64_t z = zigzag(t_ms);; z >>= 7) {
      if (z < 0x80) {
        out.push_back(static_cast<uint8_t>(z));
        break;
      }
      out.push_back(static_cast<uint8_t>(z | 0x80));
    }
    writer_.write_bits(bits, 64);
    detail::update_after_other(int_, v);
  } else {
    if (t_ms <= t_prev_)
      return Status::error("chunk: sample at t=" + std::to_string(t_ms) +
                           " is not after the previous t=" + std::to_string(t_prev_) + " (out of order)");
    if (count_ >= kMaxChunkSamples)
      return Status::error("chunk: full (" + std::to_string(kMaxChunkSamples) + " samples)");
    uint64_t delta = static_cast<uint64_t>(t_ms) - static_cast<uint64_t>(t_prev_);
    uint64_t dod = delta - delta_prev_;
    delta_prev_ = delta;
    if (encoding_ == Encoding::kXor) {
      write_dod(writer_, dod, kTimeBuckets);
      write_value(v);
    } else if (dod == 0 && take_trivial_value(v)) {
      if (run_len_++ == 0) run_start_bits_ = writer_.bit_size();
      write_run();
    } else {
      run_len_ = 0;
      writer_.write_bit(true);
      write_dod(writer_, dod, kTimeBuckets);
      write_value(v);
    }
  }
  t_prev_ = t_ms;
  v_prev_bits_ = bits;
  ++count_;
  auto& out = writer_.mutable_bytes();
  out[1] = static_cast<uint8_t>(count_ >> 8);
  out[2] = static_cast<uint8_t>(count_);
  return Status::ok();
}

void ChunkEncoder::write_value(double v) {
  uint64_t x = std::bit_cast<uint64_t>(v) ^ v_prev_bits_;
  if (encoding_ == Encoding::kXorInt && int_.valid) {
    // Greedy: the cheapest of the codes that can express v (ties: integer first).
    int64_t n = 0;
    bool is_int = detail::representable(v, int_.scale, &n);
    uint64_t dod = is_int ? (static_cast<uint64_t>(n) - int_.n) - int_.d : 0;
    int int_cost = !is_int ? 1000 : dod == 0 ? 1 : 2 + dod_bits(dod, kValueBuckets);
    int same_cost = x == 0 ? 3 : 1000;
    int xor_cost = x == 0 ? 1000 : 3 + xor_tail_bits(x);
    if (int_cost <= same_cost && int_cost <= xor_cost) {
      if (dod == 0) {
        writer_.write_bit(false);
      } else {
        writer_.write_bits(0b10, 2);
        write_dod(writer_, dod, kValueBuckets);
      }
      int_.d += dod;
      int_.n += int_.d;
      return;
    }
    if (same_cost <= xor_cost) {
      writer_.write_bits(0b110, 3);
    } else {
      writer_.write_bits(0b111, 3);
      write_xor_tail(x);
    }
    detail::update_after_other(int_, v);
    return;
  }
  if (x == 0) {
    writer_.write_bit(false);
  } else {
    writer_.write_bit(true);
    write_xor_tail(x);
  }
  if (encoding_ == Encoding::kXorInt) detail::update_after_other(int_, v);
}

bool ChunkEncoder::take_trivial_value(double v) {
  if (int_.valid) {
    int64_t n = 0;
    if (!detail::representable(v, int_.scale, &n) || static_cast<uint64_t>(n) - int_.n != int_.d) return false;
    int_.n += int_.d;
    return true;
  }
  return std::bit_cast<uint64_t>(v) == v_prev_bits_;
}

void ChunkEncoder::write_run() {
  writer_.truncate(run_start_bits_);
  if (run_len_ <= kMaxRunAsBits) {
    writer_.write_bits(0, static_cast<int>(run_len_));
    return;
  }
  writer_.write_bits(0b100, 3);
  uint64_t r = run_len_ - 2;
  if (r < 16) {
    writer_.write_bits(r, 5);  // 0 + 4 bits
  } else if (r < 256) {
    writer_.write_bits(0b10u << 8 | r, 10);
  } else {
    writer_.write_bits(0b11u << 16 | r, 18);
  }
}

int ChunkEncoder::xor_tail_bits(uint64_t x) const {
  int lz = std::countl_zero(x);
  if (lz > 31) lz = 31;
  int tz = std::countr_zero(x);
  int fresh = 1 + 5 + 6 + (64 - lz - tz);
  if (window_.set && lz >= window_.lead && tz >= 64 - window_.lead - window_.sig)
    return std::min(1 + window_.sig, fresh);
  return fresh;
}

void ChunkEncoder::write_xor_tail(uint64_t x) {
  int lz = std::countl_zero(x);
  if (lz > 31) lz = 31;
  int tz = std::countr_zero(x);
  bool fits = window_.set && lz >= window_.lead && tz >= 64 - window_.lead - window_.sig;
  // XOR-INT also opens a new window when that is cheaper than the reused one
  // (a wide window set by one outlier would otherwise stay for the chunk).
  if (fits && (encoding_ == Encoding::kXor || window_.sig <= 11 + (64 - lz - tz))) {
    writer_.write_bit(false);
    writer_.write_bits(x >> (64 - window_.lead - window_.sig), window_.sig);
    return;
  }
  window_ = {true, lz, 64 - lz - tz};
  writer_.write_bit(true);
  writer_.write_bits(static_cast<uint64_t>(window_.lead), 5);
  writer_.write_bits(static_cast<uint64_t>(window_.sig & 63), 6);
  writer_.write_bits(x >> tz, window_.sig);
}
}  // namespace llmon::tsdb
