// Bit stream writer and reader for the chunk codec (docs/format/chunk.md):
// bits are packed most significant bit of each byte first; the last byte is
// zero-padded. The reader never reads outside its span: a read past the end
// sets a sticky failure flag and returns 0. Neither class is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace llmon::tsdb {

class BitWriter {
 public:
  // Bytes written so far; header bytes may be appended with write_bits
  // while byte-aligned, or patched in place through mutable_bytes().
  const std::vector<uint8_t>& bytes() const { return out_; }
  std::vector<uint8_t>& mutable_bytes() { return out_; }

  void write_bit(bool bit);
  // Writes the low `nbits` (0..64) of `value`, most significant first.
  void write_bits(uint64_t value, int nbits);
  // Total bits written (header bytes count as 8 each).
  size_t bit_size() const { return out_.size() * 8 - (free_ == 8 ? 0 : static_cast<size_t>(free_)); }
  // Drops every bit from position `bits` on (bits <= bit_size()), so a tail
  // code can be rewritten; the dropped bits read as zero padding again.
  void truncate(size_t bits);
  // Bits written so far into the current last byte (0 = byte-aligned).
  int bit_offset() const { return free_ == 8 ? 0 : 8 - free_; }

 private:
  std::vector<uint8_t> out_;
  int free_ = 8;  // unused bits left in out_.back(); 8 = need a new byte
};

class BitReader {
 public:
  explicit BitReader(std::span<const uint8_t> data) : data_(data) {}

  bool read_bit();
  // Reads `nbits` (0..64) bits, most significant first.
  uint64_t read_bits(int nbits);
  // True once any read went past the end; the values read are then 0.
  bool failed() const { return failed_; }

 private:
  std::span<const uint8_t> data_;
  size_t pos_bits_ = 0;
  bool failed_ = false;
};

}  // namespace llmon::tsdb
