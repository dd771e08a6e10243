#include "tsdb/bitstream.h"

namespace llmon::tsdb {

void BitWriter::write_bit(bool bit) {
  if (free_ == 8) {
    out_.push_back(0);
  }
  --free_;
  if (bit) out_.back() |= static_cast<uint8_t>(1u << free_);
  if (free_ == 0) free_ = 8;
}

void BitWriter::write_bits(uint64_t value, int nbits) {
  while (nbits > 0) {
    if (free_ == 8) out_.push_back(0);
    int take = nbits < free_ ? nbits : free_;
    uint64_t chunk = (value >> (nbits - take)) & ((uint64_t{1} << take) - 1);
    out_.back() |= static_cast<uint8_t>(chunk << (free_ - take));
    free_ -= take;
    nbits -= take;
    if (free_ == 0) free_ = 8;
  }
}

void BitWriter::truncate(size_t bits) {
  out_.resize((bits + 7) / 8);
  int used = static_cast<int>(bits & 7);
  if (used == 0) {
    free_ = 8;
    return;
  }
  out_.back() &= static_cast<uint8_t>(0xff00u >> used);
  free_ = 8 - used;
}

bool BitReader::read_bit() {
  if (pos_bits_ >= data_.size() * 8) {
    failed_ = true;
    return false;
  }
  bool bit = (data_[pos_bits_ >> 3] >> (7 - (pos_bits_ & 7))) & 1;
  ++pos_bits_;
  return bit;
}

uint64_t BitReader::read_bits(int nbits) {
  if (static_cast<size_t>(nbits) > data_.size() * 8 - pos_bits_) {
    failed_ = true;
    pos_bits_ = data_.size() * 8;
    return 0;
  }
  uint64_t v = 0;
  while (nbits > 0) {
    size_t byte = pos_bits_ >> 3;
    int avail = 8 - static_cast<int>(pos_bits_ & 7);
    int take = nbits < avail ? nbits : avail;
    uint64_t bits = (data_[byte] >> (avail - take)) & ((1u << take) - 1);
    v = (v << take) | bits;
    pos_bits_ += static_cast<size_t>(take);
    nbits -= take;
  }
  return v;
}

}  // namespace llmon::tsdb
