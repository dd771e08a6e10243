// Internal to src/tsdb/: the pieces of the packed chunk encoding (encoding 3,
// docs/format/chunk.md "Encoding 3 (packed)") shared by its encoder
// (chunk_packed.cpp) and ChunkDecoder: code constants, a bit reader that
// loads 64-bit windows (never reading outside its span: a read past the end
// sets a sticky failure flag and returns 0), and the decoder's state.
// Not thread-safe; one reader per decoder.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace llmon::tsdb::packed {

inline constexpr int kMaxScale = 22;  // 10^22 is the largest power of ten a double holds exactly
inline constexpr double kPow10[kMaxScale + 1] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
// Nearest doubles to 10^-k (op 1 multiplies by them).
inline constexpr double kPow10Neg[kMaxScale + 1] = {1e0,   1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                                    1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                                                    1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};
inline constexpr int kMaxThousands = 7;  // op 2: at most 7 divisions by 1000
// A Rice code whose quotient reaches this is written as this many 1 bits and a vb code.
inline constexpr int kRiceEscape = 16;
inline constexpr int kLenBits = 7;  // the length field of a vb code (0..64)

enum class Mode : uint8_t { kConstant = 0, kDecimal = 1, kFloat = 2, kSum = 3 };
enum class SeqMode : uint8_t {
  kForDelta = 0,
  kForDod = 1,
  kRiceDelta = 2,
  kRiceDod = 3,
  kSparseDelta = 4,
  kSparseDod = 5,
};
inline bool is_dod(SeqMode m) {
  return static_cast<uint8_t>(m) & 1;
}

// How a decimal integer m becomes the value, with k its scale field: the
// three ways programs compute such values (docs/format/chunk.md).
enum class DecimalOp : uint8_t {
  kDivide = 0,     // m / 10^k
  kMultiply = 1,   // m * 10^-k (the double nearest 10^-k)
  kThousands = 2,  // m / 1000 / 1000 ... (k divisions)
};
inline bool decimal_params_ok(DecimalOp op, int k) {
  if (op == DecimalOp::kThousands) return k >= 1 && k <= kMaxThousands;
  return (op == DecimalOp::kDivide || op == DecimalOp::kMultiply) && k <= kMaxScale;
}
// Assumes decimal_params_ok(op, k).
inline double decimal_value(uint64_t m, DecimalOp op, int k) {
  double x = static_cast<double>(static_cast<int64_t>(m));
  switch (op) {
    case DecimalOp::kDivide:
      return x / kPow10[k];
    case DecimalOp::kMultiply:
      return x * kPow10Neg[k];
    case DecimalOp::kThousands:
      for (int i = 0; i < k; ++i) x /= 1000.0;
      return x;
  }
  return x;
}

inline uint64_t zigzag(uint64_t v) {
  return (v << 1) ^ static_cast<uint64_t>(static_cast<int64_t>(v) >> 63);
}
inline uint64_t unzigzag(uint64_t u) {
  return (u >> 1) ^ (~(u & 1) + 1);
}

class Reader {
 public:
  Reader() = default;
  explicit Reader(std::span<const uint8_t> d) : data_(d.data()), size_(d.size()) {}

  // Reads n (0..64) bits, most significant first.
  uint64_t read(int n) {
    if (n == 0) return 0;
    if (static_cast<size_t>(n) > size_ * 8 - pos_) return fail();
    if (n > 57) {
      uint64_t hi = read(32);
      return hi << (n - 32) | read(n - 32);
    }
    uint64_t v = window() >> (64 - n);
    pos_ += static_cast<size_t>(n);
    return v;
  }
  // Rice code with parameter p (0..63): q 1 bits, a 0 bit, p low bits; or the escape.
  uint64_t rice(int p) {
    int q = std::countl_one(window());
    if (q >= kRiceEscape) {
      pos_ += kRiceEscape;  // the window was inside the data: those bits exist
      return vb();
    }
    if (static_cast<size_t>(q) + 1 > size_ * 8 - pos_) return fail();
    pos_ += static_cast<size_t>(q) + 1;
    return (static_cast<uint64_t>(q) << p) | read(p);
  }
  // 7-bit length L (0..64), then L bits.
  uint64_t vb() {
    uint64_t len = read(kLenBits);
    if (len > 64) return fail();
    return read(static_cast<int>(len));
  }
  bool failed() const { return failed_; }
  size_t pos_bits() const { return pos_; }

 private:
  uint64_t fail() {
    failed_ = true;
    pos_ = size_ * 8;
    return 0;
  }
  // The bits from pos_ on, left-aligned and zero-padded past the end; the
  // top 57 are always the stream's.
  uint64_t window() const {
    size_t b = pos_ >> 3;
    uint64_t w = 0;
    if (b + 8 <= size_) {
      std::memcpy(&w, data_ + b, 8);
      if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
    } else {
      for (size_t i = 0; b + i < size_; ++i) w |= static_cast<uint64_t>(data_[b + i]) << (56 - 8 * i);
    }
    return w << (pos_ & 7);
  }

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  bool failed_ = false;
};

// What ChunkDecoder keeps for a packed chunk.
struct DecodeState {
  Reader r;
  // Timestamps.
  uint64_t step = 0;
  int t_gap_p = 0, t_res_p = 0;
  uint64_t t_left = 0;  // regular samples before the next exception
  uint64_t grid = 0;
  // Values.
  Mode mode = Mode::kConstant;
  SeqMode seq = SeqMode::kForDelta;
  int scale = 0;
  DecimalOp op = DecimalOp::kDivide;
  uint64_t mult = 1;  // g
  uint64_t base = 0;  // FOR
  int width = 0;      // FOR
  int p = 0;          // Rice; sparse: value parameter
  int gap_p = 0;      // sparse
  uint64_t v_left = 0;
  uint64_t acc = 0;  // m (decimal) or the IEEE bits (float); unused for sum
  uint64_t d = 0;    // previous delta (dod forms)
};

}  // namespace llmon::tsdb::packed
