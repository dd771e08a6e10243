// Chunk codec: up to 65 535 samples of one series compressed into bytes, as
// specified in docs/format/chunk.md (keep the two in sync). Two streaming
// encodings, appended to sample by sample (head chunks): timestamps by
// delta-of-delta, values by XOR (Gorilla, the baseline) or XOR-INT (integer-
// aware, with runs of unchanged samples: the head's default). One sealed
// encoding, PACKED, written whole by seal_chunk()/encode_packed() when a
// closed chunk is persisted: parameters chosen per chunk from all its samples
// (timestamps as a step plus exceptions; values as a constant, decimal
// integers or IEEE bits, delta/delta-of-delta coded). Choices measured in
// docs/performance.md. Pure: no I/O. An encoder or decoder is used by one
// thread at a time; the free functions are thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/storage.h"
#include "tsdb/bitstream.h"
#include "tsdb/chunk_packed.h"

namespace llmon::tsdb {

enum class Encoding : uint8_t { kXor = 1, kXorInt = 2, kPacked = 3, kGroup = 4 };

inline constexpr size_t kMaxChunkSamples = 65535;
inline constexpr size_t kMaxGroupParts = 255;

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

// Streaming encoder of encodings 1 and 2 (kPacked is refused: see seal_chunk).
class ChunkEncoder {
 public:
  explicit ChunkEncoder(Encoding encoding = Encoding::kXorInt);

  // Appends a sample; errors if t_ms is not greater than the previous
  // timestamp, the chunk is full, or the encoding is kPacked. A refused
  // sample leaves the chunk unchanged.
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

// Iterates a chunk's samples (a group's: its parts' one after the other);
// the bytes must outlive the decoder.
class ChunkDecoder final : public storage::SeriesIterator {
 public:
  // Checks the header (a group's: every part's header); the bit stream is
  // checked while iterating (err()).
  static Expected<ChunkDecoder> open(std::span<const uint8_t> chunk);

  size_t num_samples() const { return total_; }
  // Samples produced so far, over the whole chunk (a group: every part's,
  // those seek() skipped without decoding included).
  size_t position() const { return done_before_ + idx_; }
  // A group's is kGroup.
  Encoding encoding() const { return group_ ? Encoding::kGroup : encoding_; }

  // The current part's codes, for tests and tools, e.g. "packed: time step
  // 15000, values decimal op 0 scale 2, for-delta" (encodings 1, 2: the name).
  std::string describe() const;

  bool next() override;
  // Decodes up to n next samples into out (as n calls of next() and at()
  // would); returns how many. Fewer than n: the end, or an error (err()).
  size_t next_many(model::Sample* out, size_t n);
  // The first sample at or after t_ms. In a group, parts that end before
  // t_ms (the next part starts at or before it) are skipped without being
  // decoded, so a seek into a long group costs about one part's decoding.
  bool seek(int64_t t_ms) override;
  model::Sample at() const override { return cur_; }
  Status err() const override { return err_; }

 private:
  ChunkDecoder(Encoding e, size_t count, int64_t first_t, std::span<const uint8_t> stream)
      : encoding_(e), count_(count), total_(count), first_t_(first_t), reader_(stream) {}
  static Expected<ChunkDecoder> open_part(std::span<const uint8_t> chunk);
  static Expected<ChunkDecoder> open_group(std::span<const uint8_t> chunk);
  // Moves on to the group's next part and reads its first sample (false: failed).
  bool next_part();
  // Switches to the group's next part without reading a sample (false: failed).
  bool enter_next_part();
  // The header of the part at the start of `rest` (`left` parts remain; the
  // last has no length prefix): its sample count, first timestamp, and the
  // bytes after it (false: unreadable).
  struct PartPeek {
    size_t count = 0;
    int64_t first_t = 0;
    std::span<const uint8_t> after;
  };
  static bool peek_part(std::span<const uint8_t> rest, size_t left, PartPeek* out);
  bool fail(std::string what);
  // Packed (chunk_packed.cpp): reads the parameters (and the first value).
  Status open_packed(std::span<const uint8_t> stream);
  bool next_packed();
  // next_packed() for samples 2.. of a packed part, n <= count_ - idx_ at a time.
  size_t next_packed_many(model::Sample* out, size_t n);
  bool packed_step(int64_t prev_t, int64_t* t_out);
  // Inside a packed part past its first sample: decodes up to the first
  // sample at or after t_ms without a call per sample (true: found, at()).
  // False at the part's end (at() its last sample) or on failure (err()).
  bool seek_in_packed_part(int64_t t_ms);
  uint64_t packed_seq_value();
  bool read_value(bool first_bit_was_one);
  void trivial_value();
  bool read_xor_tail(uint64_t* x);

  Encoding encoding_;
  size_t count_;  // of this part
  size_t total_;  // of the chunk
  int64_t first_t_;
  BitReader reader_;
  size_t idx_ = 0;  // samples consumed (of this part)
  // A group: the parts not started yet, their number, and where we are.
  bool group_ = false;
  std::span<const uint8_t> group_rest_;
  size_t group_left_ = 0;
  size_t part_ = 0;
  size_t done_before_ = 0;  // samples of the parts before this one
  bool at_end_ = false;
  size_t run_left_ = 0;  // "nothing new" samples still to produce
  model::Sample cur_;
  uint64_t delta_prev_ = 0;
  uint64_t v_prev_bits_ = 0;
  detail::XorWindow window_;
  detail::IntState int_;
  packed::DecodeState packed_;
  Status err_;
};

// Decodes every sample; the first error names the sample index.
Expected<std::vector<model::Sample>> decode_chunk(std::span<const uint8_t> chunk);

// The packed encoding (3) of 1..65 535 samples with strictly increasing
// timestamps (error otherwise); every value's bits are kept.
Expected<std::vector<uint8_t>> encode_packed(std::span<const model::Sample> samples);

// A group (encoding 4) of 2..kMaxGroupParts chunks (encodings 1-3) of one
// series, in time order and at most kMaxChunkSamples samples in all (not
// checked here: decoding checks them). offsets[i] is where part i's bytes
// start in the group, so each part can still be read alone.
Expected<std::vector<uint8_t>> group_chunks(std::span<const std::span<const uint8_t>> parts,
                                            std::vector<size_t>* offsets);

// A closed chunk re-encoded for persistence: its packed encoding when that
// is smaller and decodes to exactly the same samples (checked here), else
// the chunk's own bytes. Errors only if `chunk` does not decode.
Expected<std::vector<uint8_t>> seal_chunk(std::span<const uint8_t> chunk);

}  // namespace llmon::tsdb
