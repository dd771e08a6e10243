// ChunkDecoder: docs/format/chunk.md. Never reads outside the chunk (BitReader
// bounds every read); every malformed input ends in err().
#include <algorithm>
#include <bit>
#include <string>

#include "tsdb/chunk.h"
#include "tsdb/chunk_codes.h"

namespace llmon::tsdb {

using namespace codes;

namespace {

// A part's length in a group: unsigned LEB128, at most 5 bytes (< 2^32).
bool read_len(std::span<const uint8_t> b, size_t& pos, uint64_t& len) {
  len = 0;
  for (int i = 0; i < 5; ++i) {
    if (pos >= b.size()) return false;
    uint8_t x = b[pos++];
    len |= static_cast<uint64_t>(x & 0x7f) << (7 * i);
    if (!(x & 0x80)) return true;
  }
  return false;
}

}  // namespace

Expected<ChunkDecoder> ChunkDecoder::open(std::span<const uint8_t> chunk) {
  if (!chunk.empty() && chunk[0] == static_cast<uint8_t>(Encoding::kGroup)) return open_group(chunk);
  return open_part(chunk);
}

// docs/format/chunk.md "Encoding 4 (group)".
Expected<ChunkDecoder> ChunkDecoder::open_group(std::span<const uint8_t> chunk) {
  if (chunk.size() < 2) return Status::error("chunk: group header truncated");
  size_t parts = chunk[1];
  if (parts < 2) return Status::error("chunk: group of " + std::to_string(parts) + " parts");
  size_t pos = 2, total = 0, rest = 0;
  std::span<const uint8_t> first;
  for (size_t i = 0; i < parts; ++i) {
    std::span<const uint8_t> part;
    if (i + 1 < parts) {
      uint64_t len = 0;
      if (!read_len(chunk, pos, len) || len > chunk.size() - pos)
        return Status::error("chunk: group part " + std::to_string(i + 1) + " of " + std::to_string(parts) +
                             ": length truncated or past the end");
      part = chunk.subspan(pos, len);
      pos += len;
    } else {
      part = chunk.subspan(pos);
    }
    if (part.size() < kHeaderFixed + 1 || part[0] < static_cast<uint8_t>(Encoding::kXor) ||
        part[0] > static_cast<uint8_t>(Encoding::kPacked) || (part[1] == 0 && part[2] == 0))
      return Status::error("chunk: group part " + std::to_string(i + 1) + " of " + std::to_string(parts) +
                           ": not a chunk of encoding 1-3");
    total += (size_t{part[1]} << 8) | part[2];
    if (i == 0) {
      first = part;
      rest = pos;
    }
  }
  if (total > kMaxChunkSamples)
    return Status::error("chunk: group of " + std::to_string(total) + " samples (at most " +
                         std::to_string(kMaxChunkSamples) + ")");
  auto dec = open_part(first);
  if (!dec) return Status::error("chunk: group part 1: " + dec.error());
  dec->group_ = true;
  dec->total_ = total;
  dec->group_rest_ = chunk.subspan(rest);
  dec->group_left_ = parts - 1;
  return dec;
}

bool ChunkDecoder::enter_next_part() {
  std::span<const uint8_t> part = group_rest_;
  size_t pos = 0;
  if (group_left_ > 1) {
    uint64_t len = 0;
    (void)read_len(group_rest_, pos, len);  // checked by open_group
    part = group_rest_.subspan(pos, len);
    pos += len;
  } else {
    pos = group_rest_.size();
  }
  auto dec = open_part(part);
  if (!dec) {
    ++part_;
    return fail(dec.error());
  }
  model::Sample prev = cur_;
  std::span<const uint8_t> rest = group_rest_.subspan(pos);
  size_t left = group_left_ - 1, total = total_, part_no = part_ + 1, before = done_before_ + count_;
  *this = std::move(*dec);
  group_ = true;
  group_rest_ = rest;
  group_left_ = left;
  total_ = total;
  part_ = part_no;
  done_before_ = before;
  cur_ = prev;
  return true;
}

bool ChunkDecoder::next_part() {
  int64_t prev_t = cur_.t_ms;
  if (!enter_next_part() || !next()) return false;
  if (cur_.t_ms <= prev_t)
    return fail("timestamp " + std::to_string(cur_.t_ms) + " not after " + std::to_string(prev_t) +
                " (the previous part's last)");
  return true;
}

bool ChunkDecoder::peek_part(std::span<const uint8_t> rest, size_t left, PartPeek* out) {
  size_t pos = 0;
  uint64_t len = rest.size();
  if (left > 1) {
    if (!read_len(rest, pos, len) || len > rest.size() - pos) return false;
  }
  std::span<const uint8_t> part = rest.subspan(pos, len);
  if (part.size() < kHeaderFixed + 1) return false;
  out->count = (size_t{part[1]} << 8) | part[2];
  uint64_t z = 0;
  for (size_t i = 0; i < 10; ++i) {
    if (kHeaderFixed + i >= part.size()) return false;
    uint8_t b = part[kHeaderFixed + i];
    z |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      out->first_t = static_cast<int64_t>(unzigzag(z));
      out->after = rest.subspan(pos + len);
      return true;
    }
  }
  return false;
}

Expected<ChunkDecoder> ChunkDecoder::open_part(std::span<const uint8_t> chunk) {
  if (chunk.size() < kHeaderFixed + 1)
    return Status::error("chunk: header truncated (" + std::to_string(chunk.size()) + " bytes)");
  uint8_t enc = chunk[0];
  if (enc < static_cast<uint8_t>(Encoding::kXor) || enc > static_cast<uint8_t>(Encoding::kPacked))
    return Status::error("chunk: unknown encoding " + std::to_string(enc));
  size_t count = (size_t{chunk[1]} << 8) | chunk[2];
  if (count == 0) return Status::error("chunk: num_samples is 0");
  uint64_t z = 0;
  size_t pos = kHeaderFixed;
  for (int i = 0;; ++i) {
    if (pos >= chunk.size()) return Status::error("chunk: first_t varint truncated");
    if (i == 9 && chunk[pos] > 1) return Status::error("chunk: first_t varint overflows 64 bits");
    uint8_t b = chunk[pos++];
    z |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) break;
  }
  ChunkDecoder dec(static_cast<Encoding>(enc), count, unzigzag(z), chunk.subspan(pos));
  if (dec.encoding_ == Encoding::kPacked) {
    if (Status st = dec.open_packed(chunk.subspan(pos)); !st) return st;
  }
  return dec;
}

bool ChunkDecoder::fail(std::string what) {
  err_ = Status::error("chunk: " + (group_ ? "part " + std::to_string(part_ + 1) + ": " : std::string()) + "sample " +
                       std::to_string(idx_) + " of " + std::to_string(count_) + ": " + what);
  idx_ = count_;
  group_left_ = 0;
  at_end_ = true;
  return false;
}

bool ChunkDecoder::next() {
  if (idx_ >= count_) {
    if (group_left_ > 0) return next_part();
    at_end_ = true;
    return false;
  }
  if (encoding_ == Encoding::kPacked) return next_packed();
  if (idx_ == 0) {
    v_prev_bits_ = reader_.read_bits(64);
    if (reader_.failed()) return fail("bit stream ends in the first value");
    cur_ = {first_t_, std::bit_cast<double>(v_prev_bits_)};
    if (encoding_ == Encoding::kXorInt) detail::update_after_other(int_, cur_.v);
    ++idx_;
    return true;
  }
  // XOR-INT sample codes: 0 | 100 + run | 1 + t code + v code.
  bool trivial = false, value_first_one = false;
  size_t run = 0;
  if (encoding_ == Encoding::kXor) {
    delta_prev_ += read_dod(reader_, kTimeBuckets);
  } else if (run_left_ > 0) {
    --run_left_;
    trivial = true;
  } else if (!reader_.read_bit()) {
    trivial = true;
  } else if (reader_.read_bit()) {  // timestamp code other than 0
    delta_prev_ += read_dod(reader_, kTimeBuckets, true);
  } else if (reader_.read_bit()) {  // timestamp code 0, value code starting with 1
    value_first_one = true;
  } else {  // 100: a run
    int width = !reader_.read_bit() ? 4 : !reader_.read_bit() ? 8 : 16;
    run = static_cast<size_t>(reader_.read_bits(width)) + 2;
    trivial = true;
  }
  auto t = static_cast<int64_t>(static_cast<uint64_t>(cur_.t_ms) + delta_prev_);
  if (reader_.failed()) return fail("bit stream ends in the timestamp");
  if (t <= cur_.t_ms) return fail("timestamp " + std::to_string(t) + " not after " + std::to_string(cur_.t_ms));
  if (run > 0) {
    if (run > count_ - idx_) return fail("run of " + std::to_string(run) + " samples overruns num_samples");
    run_left_ = run - 1;
  }
  if (trivial) {
    trivial_value();
  } else if (!read_value(value_first_one)) {
    return false;
  }
  cur_ = {t, std::bit_cast<double>(v_prev_bits_)};
  ++idx_;
  return true;
}

void ChunkDecoder::trivial_value() {
  if (!int_.valid) return;  // the previous value, unchanged
  int_.n += int_.d;
  v_prev_bits_ = std::bit_cast<uint64_t>(from_int(int_.n, int_.scale));
}

bool ChunkDecoder::read_value(bool first_bit_was_one) {
  if (encoding_ == Encoding::kXorInt && int_.valid) {
    int ones = first_bit_was_one ? 1 : 0;
    while (ones < 3 && reader_.read_bit()) ++ones;
    if (reader_.failed()) return fail("bit stream ends in the value");
    if (ones < 2) {  // 0: integer dod 0; 10: integer dod bucket
      uint64_t dod = ones == 1 ? read_dod(reader_, kValueBuckets) : 0;
      if (reader_.failed()) return fail("bit stream ends in the value");
      int_.d += dod;
      int_.n += int_.d;
      v_prev_bits_ = std::bit_cast<uint64_t>(from_int(int_.n, int_.scale));
      return true;
    }
    if (ones == 3) {  // 111: XOR tail; 110: unchanged
      uint64_t x = 0;
      if (!read_xor_tail(&x)) return false;
      v_prev_bits_ ^= x;
    }
    detail::update_after_other(int_, std::bit_cast<double>(v_prev_bits_));
    return true;
  }
  bool changed = first_bit_was_one || reader_.read_bit();
  if (reader_.failed()) return fail("bit stream ends in the value");
  if (changed) {
    uint64_t x = 0;
    if (!read_xor_tail(&x)) return false;
    v_prev_bits_ ^= x;
  }
  if (encoding_ == Encoding::kXorInt) detail::update_after_other(int_, std::bit_cast<double>(v_prev_bits_));
  return true;
}

bool ChunkDecoder::read_xor_tail(uint64_t* x) {
  bool fresh = reader_.read_bit();
  if (fresh) {
    int lead = static_cast<int>(reader_.read_bits(5));
    int sig = static_cast<int>(reader_.read_bits(6));
    if (sig == 0) sig = 64;
    if (reader_.failed()) return fail("bit stream ends in the XOR window");
    if (lead + sig > 64)
      return fail("XOR window lead " + std::to_string(lead) + " + sig " + std::to_string(sig) + " > 64");
    window_ = {true, lead, sig};
  } else if (!window_.set) {
    if (reader_.failed()) return fail("bit stream ends in the value");
    return fail("XOR window reused before being set");
  }
  uint64_t bits = reader_.read_bits(window_.sig);
  if (reader_.failed()) return fail("bit stream ends in the XOR bits");
  *x = bits << (64 - window_.lead - window_.sig);
  if (*x == 0) return fail("XOR of zero coded as a change");
  return true;
}

size_t ChunkDecoder::next_many(model::Sample* out, size_t n) {
  size_t k = 0;
  while (k < n) {
    if (encoding_ == Encoding::kPacked && idx_ > 0 && idx_ < count_) {
      k += next_packed_many(out + k, std::min(n - k, count_ - idx_));
      if (at_end_) break;  // failed
      continue;
    }
    if (!next()) break;
    out[k++] = cur_;
  }
  return k;
}

bool ChunkDecoder::seek(int64_t t_ms) {
  if (at_end_) return false;
  if (idx_ > 0 && cur_.t_ms >= t_ms) return true;
  // Skip the group's parts that end before t_ms (the next part starts at or
  // before it) by their headers alone: their samples count as produced,
  // their bits are neither decoded nor checked.
  if (group_left_ > 0) {
    int64_t floor_t = idx_ > 0 ? cur_.t_ms : first_t_;
    std::span<const uint8_t> rest = group_rest_;
    size_t left = group_left_, before = done_before_ + count_, skipped = 0;
    PartPeek peek;
    struct {
      std::span<const uint8_t> rest;
      size_t left = 0, before = 0, skipped = 0;
    } target;
    while (left > 0 && peek_part(rest, left, &peek) && peek.first_t <= t_ms) {
      if (peek.first_t <= floor_t)
        return fail("part " + std::to_string(part_ + skipped + 2) + " starts at " + std::to_string(peek.first_t) +
                    ", not after " + std::to_string(floor_t));
      floor_t = peek.first_t;
      target = {rest, left, before, skipped};
      before += peek.count;
      rest = peek.after;
      --left;
      ++skipped;
    }
    if (target.left > 0) {  // enter the last part that starts at or before t_ms
      group_rest_ = target.rest;
      group_left_ = target.left;
      done_before_ = target.before - count_;
      part_ += target.skipped;
      if (!enter_next_part()) return false;
    }
  }
  for (;;) {
    if (encoding_ == Encoding::kPacked && idx_ > 0 && idx_ < count_) {
      if (seek_in_packed_part(t_ms)) return true;
      if (at_end_) return false;  // failed
      continue;                   // the part ended: next() goes on with the next one
    }
    if (!next()) return false;
    if (cur_.t_ms >= t_ms) return true;
  }
}

}  // namespace llmon::tsdb
