// Chunk codec: up to 65 535 samples of one series compressed into bytes, as
// specified in docs/format/chunk.md (keep the two in sync). Timestamps by
// delta-of-delta; values by XOR (Gorilla, the baseline) or XOR-INT (integer-
// aware, with runs of unchanged samples: llmon's default, chosen by measurement
// in docs/performance.md). Pure: no I/O. An encoder or decoder is used by one
// thread at a time.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/storage.h"
#include "tsdb/bitstream.h"

namespace llmon::tsdb {

enum class Encoding : uint8_t { kXor = 1, kXorInt = 2 };

inline constexpr size_t kMaxChunkSamples = 65535;

std::string_view encoding_name(Encoding e);

namespace detail {

// Value-coding state shared by encoder and decoder (docs/format/chunk.md).
struct XorWindow {
  bool set = false;
  int lead = 0;
  int sig = 0;
};
struct IntState {
  bool valid = false;
  int scale = 0;
  uint64_t n = 0;  // two's complement of the int64 integer
  uint64_t d = 0;
};
// True if `v` is representable at `scale` (0..6); then *n holds v * 10^scale.
bool representable(double v, int scale, int64_t* n);
// State update after a value that was not integer-coded.
void update_after_other(IntState& st, double v);

}  // namespace detail

class ChunkEncoder {
 public:
  explicit ChunkEncoder(Encoding encoding = Encoding::kXorInt);

  // Appends a sample; errors if t_ms is not greater than the previous
  // timestamp or the chunk is full. A refused sample leaves the chunk unchanged.
  Status append(int64_t t_ms, double v);

  size_t num_samples() const { return count_; }
  Encoding encoding() const { return encoding_; }
  // The complete chunk so far (empty before the first sample); decodable at
  // any point, so a head chunk can be read while it is being appended to.
  const std::vector<uint8_t>& bytes() const { return writer_.bytes(); }

 private:
  void write_value(double v);
  void write_xor_tail(uint64_t x);
  int xor_tail_bits(uint64_t x) const;
  // XOR-INT: true (and the integer state advanced) if v is what the 1-bit
  // value code 0 would give.
  bool take_trivial_value(double v);
  // XOR-INT: (re)writes the current run of "nothing new" samples.
  void write_run();

  Encoding encoding_;
  BitWriter writer_;
  size_t count_ = 0;
  int64_t t_prev_ = 0;
  uint64_t delta_prev_ = 0;
  uint64_t v_prev_bits_ = 0;
  detail::XorWindow window_;
  detail::IntState int_;
  size_t run_len_ = 0;         // trailing "nothing new" samples
  size_t run_start_bits_ = 0;  // where their code starts
};

// Iterates a chunk's samples; the bytes must outlive the decoder.
class ChunkDecoder final : public storage::SeriesIterator {
 public:
  // Checks the header; the bit stream is checked while iterating (err()).
  static Expected<ChunkDecoder> open(std::span<const uint8_t> chunk);

  size_t num_samples() const { return count_; }
  Encoding encoding() const { return encoding_; }

  bool next() override;
  bool seek(int64_t t_ms) override;
  storage::Sample at() const override { return cur_; }
  Status err() const override { return err_; }

 private:
  ChunkDecoder(Encoding e, size_t count, int64_t first_t, std::span<const uint8_t> stream)
      : encoding_(e), count_(count), first_t_(first_t), reader_(stream) {}
  bool fail(std::string what);
  bool read_value(bool first_bit_was_one);
  void trivial_value();
  bool read_xor_tail(uint64_t* x);

  Encoding encoding_;
  size_t count_;
  int64_t first_t_;
  BitReader reader_;
  size_t idx_ = 0;  // samples consumed
  bool at_end_ = false;
  size_t run_left_ = 0;  // "nothing new" samples still to produce
  storage::Sample cur_;
  uint64_t delta_prev_ = 0;
  uint64_t v_prev_bits_ = 0;
  detail::XorWindow window_;
  detail::IntState int_;
  Status err_;
};

// Decodes every sample; the first error names the sample index.
Expected<std::vector<storage::Sample>> decode_chunk(std::span<const uint8_t> chunk);

}  // namespace llmon::tsdb
