// Record codecs of the WAL and the series log: docs/format/wal.md, "Records".
#include "tsdb/wal/records.h"

#include <bit>
#include <cmath>
#include <limits>

namespace llmon::tsdb::wal {
namespace {

// Value kinds of the samples record (docs/format/wal.md, table "Values, by kind").
enum Kind : uint8_t {
  kZero = 0,
  kOne = 1,
  kStale = 2,
  kUint = 3,
  kNegInt = 4,
  kKibi = 5,
  kDecimal1 = 6,  // ... kDecimal1 + kMaxDecimals - 1 = 11
  kFloat32 = 12,
  kFloat64 = 13,
};
constexpr int kMaxDecimals = 6;
constexpr double kPow10[kMaxDecimals + 1] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
constexpr double kTwo53 = 9007199254740992.0;
constexpr double kTwo64 = 18446744073709551616.0;

// ---------------------------------------------------------------- writing

void put_uvarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t u) {
  return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
}
void put_svarint(std::string& out, int64_t v) {
  put_uvarint(out, zigzag(v));
}
size_t uvarint_size(uint64_t v) {
  return v == 0 ? 1 : (std::bit_width(v) + 6) / 7;
}
void put_be(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
}
// Wrapping ref - expected, as a signed delta.
int64_t ref_delta(storage::SeriesRef ref, storage::SeriesRef expected) {
  return static_cast<int64_t>(ref - expected);
}

// Ref runs (docs/format/wal.md, "Samples record"): consecutive refs form one run.
template <typename RefAt>
void put_ref_runs(std::string& out, size_t n, RefAt ref_at) {
  storage::SeriesRef expected = 0;
  size_t i = 0;
  while (i < n) {
    storage::SeriesRef first = ref_at(i);
    size_t len = 1;
    while (i + len < n && ref_at(i + len) == first + len) ++len;
    put_svarint(out, ref_delta(first, expected));
    put_uvarint(out, len - 1);
    expected = first + len;
    i += len;
  }
}

// Picks the kind of `v` and appends its payload to `values`.
uint8_t put_value(std::string& values, double v) {
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  if (bits == 0) return kZero;
  if (v == 1.0) return kOne;
  if (bits == model::kStaleNaNBits) return kStale;
  if (std::isfinite(v) && !std::signbit(v) && v < kTwo64 && v == std::trunc(v)) {
    const auto u = static_cast<uint64_t>(v);
    const size_t plain = uvarint_size(u);
    if (u % 1024 == 0 && uvarint_size(u / 1024) < plain) {
      put_uvarint(values, u / 1024);
      return kKibi;
    }
    if (plain <= 8) {
      put_uvarint(values, u);
      return kUint;
    }
  } else if (std::isfinite(v) && v < 0 && v > -kTwo64 && v == std::trunc(v)) {
    const auto u = static_cast<uint64_t>(-v);
    if (uvarint_size(u) <= 8) {
      put_uvarint(values, u);
      return kNegInt;
    }
  } else if (std::isfinite(v) && std::fabs(v) < kTwo53) {
    for (int d = 1; d <= kMaxDecimals; ++d) {
      const double scaled = std::nearbyint(v * kPow10[d]);
      if (std::fabs(scaled) >= kTwo53) break;
      const auto m = static_cast<int64_t>(scaled);
      if (std::bit_cast<uint64_t>(static_cast<double>(m) / kPow10[d]) != bits) continue;
      put_svarint(values, m);
      return static_cast<uint8_t>(kDecimal1 + d - 1);
    }
  }
  // (Converting a double outside float's range is undefined: check first.)
  if (std::isfinite(v) && std::fabs(v) <= std::numeric_limits<float>::max() && !(v == 0 && std::signbit(v))) {
    const auto f = static_cast<float>(v);
    if (static_cast<double>(f) == v) {
      put_be(values, std::bit_cast<uint32_t>(f), 4);
      return kFloat32;
    }
  }
  put_be(values, bits, 8);
  return kFloat64;
}

// ---------------------------------------------------------------- reading

// Bounds-checked reader over one record; every error names the byte offset.
class Reader {
 public:
  Reader(std::string_view data, const char* what) : data_(data), what_(what) {}
  size_t pos() const { return pos_; }
  size_t left() const { return data_.size() - pos_; }

  Status error(const std::string& msg, size_t at) const {
    return Status::error(std::string(what_) + " record: " + msg + " at byte " + std::to_string(at));
  }
  Status uvarint(uint64_t& v) {
    const size_t start = pos_;
    v = 0;
    for (int shift = 0;; shift += 7) {
      if (pos_ >= data_.size()) return error("truncated varint", start);
      const auto b = static_cast<uint8_t>(data_[pos_++]);
      // The 10th byte holds bit 63 only (and so cannot continue).
      if (shift == 63 && b > 1) return error("varint overflows 64 bits", start);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return Status::ok();
    }
  }
  Status svarint(int64_t& v) {
    uint64_t u = 0;
    Status s = uvarint(u);
    v = unzigzag(u);
    return s;
  }
  // A count of items that each take at least `min_bits` bits of what is left.
  Status count(uint64_t& n, uint64_t min_bits, const char* name) {
    const size_t start = pos_;
    if (Status s = uvarint(n); !s) return s;
    if (n > left() * 8 / min_bits) {
      return error(std::string(name) + " " + std::to_string(n) + " does not fit in the " + std::to_string(left()) +
                       " bytes left",
                   start);
    }
    return Status::ok();
  }
  Status bytes(size_t n, std::string_view& out) {
    if (n > left())
      return error("truncated: " + std::to_string(n) + " bytes needed, " + std::to_string(left()) + " left", pos_);
    out = data_.substr(pos_, n);
    pos_ += n;
    return Status::ok();
  }
  Status be(int n, uint64_t& v) {
    std::string_view b;
    if (Status s = bytes(static_cast<size_t>(n), b); !s) return s;
    v = 0;
    for (char c : b) v = v << 8 | static_cast<uint8_t>(c);
    return Status::ok();
  }
  Status type(RecordType t) {
    if (data_.empty()) return error("empty", 0);
    if (static_cast<uint8_t>(data_[0]) != static_cast<uint8_t>(t)) {
      return error("type " + std::to_string(static_cast<uint8_t>(data_[0])) + " is not " +
                       std::to_string(static_cast<uint8_t>(t)),
                   0);
    }
    pos_ = 1;
    return Status::ok();
  }
  Status end() const { return left() == 0 ? Status::ok() : error(std::to_string(left()) + " trailing bytes", pos_); }

 private:
  std::string_view data_;
  const char* what_;
  size_t pos_ = 0;
};

// Reads ref runs covering exactly n refs.
template <typename Emit>
Status get_ref_runs(Reader& r, uint64_t n, Emit emit) {
  storage::SeriesRef expected = 0;
  uint64_t covered = 0;
  while (covered < n) {
    const size_t at = r.pos();
    int64_t delta = 0;
    uint64_t len_minus_1 = 0;
    if (Status s = r.svarint(delta); !s) return s;
    if (Status s = r.uvarint(len_minus_1); !s) return s;
    if (len_minus_1 >= n - covered) {
      return r.error(
          "ref run of " + std::to_string(len_minus_1) + "+1 refs past the " + std::to_string(n) + " declared", at);
    }
    const storage::SeriesRef first = expected + static_cast<uint64_t>(delta);
    for (uint64_t k = 0; k <= len_minus_1; ++k) emit(covered + k, first + k);
    covered += len_minus_1 + 1;
    expected = first + len_minus_1 + 1;
  }
  return Status::ok();
}

Status get_value(Reader& r, uint8_t kind, double& v) {
  const size_t at = r.pos();
  uint64_t u = 0;
  switch (kind) {
    case kZero:
      v = 0.0;
      return Status::ok();
    case kOne:
      v = 1.0;
      return Status::ok();
    case kStale:
      v = std::bit_cast<double>(model::kStaleNaNBits);
      return Status::ok();
    case kUint:
    case kNegInt:
    case kKibi:
      if (Status s = r.uvarint(u); !s) return s;
      v = static_cast<double>(u);
      if (kind == kNegInt) v = -v;
      if (kind == kKibi) v *= 1024.0;
      return Status::ok();
    case kFloat32:
      if (Status s = r.be(4, u); !s) return s;
      v = static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(u)));
      return Status::ok();
    case kFloat64:
      if (Status s = r.be(8, u); !s) return s;
      v = std::bit_cast<double>(u);
      return Status::ok();
    default:
      if (kind >= kDecimal1 && kind < kDecimal1 + kMaxDecimals) {
        int64_t m = 0;
        if (Status s = r.svarint(m); !s) return s;
        v = static_cast<double>(m) / kPow10[kind - kDecimal1 + 1];
        return Status::ok();
      }
      return r.error("unknown value kind " + std::to_string(kind), at);
  }
}

// Boyer-Moore majority vote: the timestamp most samples of a cycle share.
int64_t base_timestamp(const std::vector<SampleEntry>& samples) {
  int64_t cand = 0;
  size_t votes = 0;
  for (const auto& s : samples) {
    if (votes == 0) cand = s.t_ms;
    votes += s.t_ms == cand ? 1 : size_t(-1);
  }
  return cand;
}

}  // namespace

// ---------------------------------------------------------------- encoders

void encode_series(const std::vector<SeriesEntry>& series, std::string& out) {
  out.clear();
  out.push_back(static_cast<char>(RecordType::kSeries));
  put_uvarint(out, series.size());
  storage::SeriesRef expected = 0;
  for (const auto& e : series) {
    put_svarint(out, ref_delta(e.ref, expected));
    expected = e.ref + 1;
    put_uvarint(out, e.labels.size());
    for (const auto& l : e.labels.pairs()) {
      put_uvarint(out, l.name.size());
      out += l.name;
      put_uvarint(out, l.value.size());
      out += l.value;
    }
  }
}

void encode_samples(const std::vector<SampleEntry>& samples, std::string& out) {
  out.clear();
  const size_t n = samples.size();
  out.push_back(static_cast<char>(RecordType::kSamples));
  put_uvarint(out, n);
  const int64_t base = base_timestamp(samples);
  put_svarint(out, base);
  put_ref_runs(out, n, [&](size_t i) { return samples[i].ref; });

  size_t exceptions = 0;
  for (const auto& s : samples) exceptions += s.t_ms != base;
  put_uvarint(out, exceptions);
  size_t next_index = 0;
  int64_t prev_t = base;
  for (size_t i = 0; i < n && exceptions > 0; ++i) {
    if (samples[i].t_ms == base) continue;
    put_uvarint(out, i - next_index);
    put_svarint(out, static_cast<int64_t>(static_cast<uint64_t>(samples[i].t_ms) - static_cast<uint64_t>(prev_t)));
    next_index = i + 1;
    prev_t = samples[i].t_ms;
  }

  // Kinds column, then the values column: values are encoded into the tail of
  // `out` first (the kinds are known only then) and moved behind the kinds.
  const size_t kinds_at = out.size();
  out.append((n + 1) / 2, '\0');
  for (size_t i = 0; i < n; ++i) {
    const uint8_t kind = put_value(out, samples[i].v);
    out[kinds_at + i / 2] = static_cast<char>(static_cast<uint8_t>(out[kinds_at + i / 2]) | (i % 2 ? kind : kind << 4));
  }
}

void encode_tombstones(const std::vector<storage::SeriesRef>& refs, std::string& out) {
  out.clear();
  out.push_back(static_cast<char>(RecordType::kTombstones));
  put_uvarint(out, refs.size());
  storage::SeriesRef expected = 0;
  for (storage::SeriesRef ref : refs) {
    put_svarint(out, ref_delta(ref, expected));
    expected = ref + 1;
  }
}

// ---------------------------------------------------------------- decoders

Expected<RecordType> record_type(std::string_view record) {
  if (record.empty()) return Status::error("wal record: empty");
  const auto t = static_cast<uint8_t>(record[0]);
  if (t < 1 || t > 3) return Status::error("wal record: unknown type " + std::to_string(t) + " at byte 0");
  return static_cast<RecordType>(t);
}

Status decode_series(std::string_view record, std::vector<SeriesEntry>& out) {
  out.clear();
  Reader r(record, "series");
  uint64_t n = 0;
  Status s = r.type(RecordType::kSeries);
  if (s) s = r.count(n, 16, "series count");  // ref delta + label count: 2 bytes at least
  if (s) out.reserve(n);
  storage::SeriesRef expected = 0;
  for (uint64_t i = 0; s && i < n; ++i) {
    SeriesEntry e;
    int64_t delta = 0;
    uint64_t k = 0;
    if (s = r.svarint(delta); !s) break;
    e.ref = expected + static_cast<uint64_t>(delta);
    expected = e.ref + 1;
    if (s = r.count(k, 32, "label count"); !s) break;  // 2 lengths + 2 bytes at least
    std::vector<model::Label> pairs(k);
    for (uint64_t j = 0; s && j < k; ++j) {
      uint64_t len = 0;
      std::string_view name, value;
      const size_t at = r.pos();
      if (s = r.uvarint(len); !s) break;
      if (s = r.bytes(len, name); !s) break;
      if (s = r.uvarint(len); !s) break;
      if (s = r.bytes(len, value); !s) break;
      if (name.empty() || value.empty()) {
        s = r.error("empty label name or value", at);
      } else if (j > 0 && !(pairs[j - 1].name < name)) {
        s = r.error("label names not strictly increasing", at);
      } else {
        pairs[j] = {std::string(name), std::string(value)};
      }
    }
    if (!s) break;
    auto labels = model::Labels::make(std::move(pairs));
    if (!labels) {
      s = r.error(labels.error(), r.pos());
      break;
    }
    e.labels = std::move(*labels);
    out.push_back(std::move(e));
  }
  if (s) s = r.end();
  if (!s) out.clear();
  return s;
}

Status decode_samples(std::string_view record, std::vector<SampleEntry>& out) {
  out.clear();
  Reader r(record, "samples");
  uint64_t n = 0;
  int64_t base = 0;
  Status s = r.type(RecordType::kSamples);
  if (s) s = r.count(n, 4, "sample count");  // a kind nibble at least
  if (s) s = r.svarint(base);
  if (s) {
    out.resize(n, SampleEntry{0, base, 0});
    s = get_ref_runs(r, n, [&](uint64_t i, storage::SeriesRef ref) { out[i].ref = ref; });
  }
  uint64_t exceptions = 0;
  if (s) s = r.count(exceptions, 16, "timestamp exception count");
  if (s && exceptions > n) s = r.error("more timestamp exceptions than samples", r.pos());
  uint64_t next_index = 0;
  int64_t prev_t = base;
  for (uint64_t e = 0; s && e < exceptions; ++e) {
    const size_t at = r.pos();
    uint64_t skip = 0;
    int64_t dt = 0;
    if (s = r.uvarint(skip); !s) break;
    if (skip >= n - next_index) {
      s = r.error("timestamp exception index past the last sample", at);
      break;
    }
    if (s = r.svarint(dt); !s) break;
    const uint64_t i = next_index + skip;
    prev_t = static_cast<int64_t>(static_cast<uint64_t>(prev_t) + static_cast<uint64_t>(dt));
    out[i].t_ms = prev_t;
    next_index = i + 1;
  }
  std::string_view kinds;
  if (s) s = r.bytes((n + 1) / 2, kinds);
  for (uint64_t i = 0; s && i < n; ++i) {
    const auto byte = static_cast<uint8_t>(kinds[i / 2]);
    s = get_value(r, i % 2 ? byte & 0x0f : byte >> 4, out[i].v);
  }
  if (s && n % 2 && (static_cast<uint8_t>(kinds.back()) & 0x0f)) {
    s = r.error("unused kind nibble not zero", r.pos());
  }
  if (s) s = r.end();
  if (!s) out.clear();
  return s;
}

Status decode_tombstones(std::string_view record, std::vector<storage::SeriesRef>& out) {
  out.clear();
  Reader r(record, "tombstones");
  uint64_t n = 0;
  Status s = r.type(RecordType::kTombstones);
  if (s) s = r.count(n, 8, "tombstone count");  // a ref delta byte at least
  if (s) out.reserve(n);
  storage::SeriesRef expected = 0;
  for (uint64_t i = 0; s && i < n; ++i) {
    int64_t delta = 0;
    if (s = r.svarint(delta); !s) break;
    out.push_back(expected + static_cast<uint64_t>(delta));
    expected = out.back() + 1;
  }
  if (s) s = r.end();
  if (!s) out.clear();
  return s;
}

}  // namespace llmon::tsdb::wal
