// The storage interfaces: what PromQL, rules and the HTTP API use to write and
// read samples. They depend only on this header, never on tsdb internals
// (src/tsdb/ implements it). Semantics follow Prometheus's storage package.
//
// Thread-safety: a Storage is safe to use from several threads; each
// Appender, Querier, SeriesSet and SeriesIterator is used by one thread at a
// time. Errors are values (Status / Expected), never exceptions.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::storage {

// One sample. `t_ms`: milliseconds since the Unix epoch; `v`: stored bit-exactly.
struct Sample {
  int64_t t_ms = 0;
  double v = 0;
};

// Prometheus's staleness marker: a NaN with this exact bit pattern, appended
// when a series disappears from a scrape/collection. Other NaNs are ordinary
// values; only this payload means "stale". Stores must keep the bits exactly.
inline constexpr uint64_t kStaleNaNBits = 0x7ff0000000000002ull;
inline double stale_nan() {
  return std::bit_cast<double>(kStaleNaNBits);
}
inline bool is_stale(double v) {
  return std::bit_cast<uint64_t>(v) == kStaleNaNBits;
}

struct Label {
  std::string name;
  std::string value;
  bool operator==(const Label&) const = default;
};

// A series identity: label pairs sorted by name, names unique and non-empty,
// no empty values (an empty value means "label absent", as in Prometheus).
// Immutable once built; hash() is stable across runs (FNV-1a 64 over the
// pairs with separators), usable for sharding and on-disk hashes.
class Labels {
 public:
  Labels() = default;
  // Sorts; drops pairs with empty values; errors on an empty or duplicate name.
  static Expected<Labels> make(std::vector<Label> pairs);

  const std::vector<Label>& pairs() const { return pairs_; }
  size_t size() const { return pairs_.size(); }
  bool empty() const { return pairs_.empty(); }
  // The value of `name`, or "" when absent.
  std::string_view get(std::string_view name) const;
  uint64_t hash() const { return hash_; }
  // `{a="1", b="2"}` in Prometheus text form (values escaped); for messages.
  std::string to_string() const;

  bool operator==(const Labels& o) const { return hash_ == o.hash_ && pairs_ == o.pairs_; }
  // Orders lexicographically by (name, value) pairs, as Prometheus does.
  bool operator<(const Labels& o) const;

 private:
  std::vector<Label> pairs_;
  uint64_t hash_ = 0xcbf29ce484222325ull;  // FNV-1a offset basis: equals make({})
};

// A label matcher of a selector. The regex kinds are only data here: they are
// compiled and matched by the query layer (RE2, fully anchored, as PromQL).
struct Matcher {
  enum class Type { kEq, kNeq, kRe, kNre };
  Type type = Type::kEq;
  std::string name;
  std::string value;
};

// Opaque per-storage handle of a series, returned by Appender::append so the
// next cycle can skip the label lookup. 0 = unknown. Valid until the series is
// removed by retention; a stale ref is reported as an error by append, never
// silently attached to another series.
using SeriesRef = uint64_t;

// Buffers the samples of one collection cycle; commit() makes all of them
// visible atomically (and durable per the storage's WAL policy), rollback()
// drops them. Either ends the appender's life: further calls are errors.
//
// Per series (Prometheus semantics), checked at append time against committed
// data and the samples already buffered in this appender:
//   * t older than the series' newest sample: rejected ("out of order");
//   * t equal to the newest with bit-identical value: ignored, not an error;
//   * t equal to the newest with a different value: rejected ("duplicate
//     sample for timestamp");
//   * t older than the storage's lowest appendable time: rejected ("out of bounds").
// Rejections return an error and are counted by the storage (one counter per
// reason); they do not poison the rest of the cycle.
class Appender {
 public:
  virtual ~Appender() = default;
  // `ref` from a previous append (0 if unknown); `labels` must be given when
  // ref is 0 and are otherwise only used to verify or recreate the series.
  virtual Expected<SeriesRef> append(SeriesRef ref, const Labels& labels, int64_t t_ms, double v) = 0;
  virtual Status commit() = 0;
  virtual Status rollback() = 0;
};

// Iterates one series' samples in increasing time. Typical loop:
//   while (it->next()) use(it->at());  then check it->err().
class SeriesIterator {
 public:
  virtual ~SeriesIterator() = default;
  // Advances to the next sample; false at the end or on error.
  virtual bool next() = 0;
  // Advances to the first sample with t >= t_ms (never backwards: if the
  // current sample already qualifies it stays). False if none or on error.
  virtual bool seek(int64_t t_ms) = 0;
  // The current sample; only valid after next()/seek() returned true.
  virtual Sample at() const = 0;
  // Why iteration stopped early (corrupt chunk...); ok at a normal end.
  virtual Status err() const = 0;
  // Bulk read, after next()/seek() returned true: appends the current sample
  // and every following one with t <= maxt_ms to `out`, in order. Afterwards
  // only err() may be called (the position is unspecified). Stores override
  // it to decode without a call per sample.
  virtual void append_until(int64_t maxt_ms, std::vector<Sample>& out);
};

class Series {
 public:
  virtual ~Series() = default;
  virtual const Labels& labels() const = 0;
  // A fresh iterator over the series' samples within the select's range.
  virtual std::unique_ptr<SeriesIterator> iterator() const = 0;
};

// The series matching a select(), sorted by labels.
class SeriesSet {
 public:
  virtual ~SeriesSet() = default;
  virtual bool next() = 0;
  // The current series; valid until the next call to next().
  virtual const Series& at() const = 0;
  virtual Status err() const = 0;
};

// A read view over [mint_ms, maxt_ms] (inclusive), consistent for its lifetime
// (it sees commits that happened before it was created, not later ones).
class Querier {
 public:
  virtual ~Querier() = default;
  // Series matching all matchers that have samples in [mint_ms, maxt_ms]
  // (clipped to the querier's range, like Prometheus's select hints), with
  // iterators limited to that range. An empty matcher list is an error, as
  // Prometheus refuses selectors that match everything.
  virtual std::unique_ptr<SeriesSet> select(int64_t mint_ms, int64_t maxt_ms, const std::vector<Matcher>& matchers) = 0;
  // Sorted, unique label names / values of `name` among series in range.
  virtual Expected<std::vector<std::string>> label_names() = 0;
  virtual Expected<std::vector<std::string>> label_values(std::string_view name) = 0;
};

class Storage {
 public:
  virtual ~Storage() = default;
  virtual std::unique_ptr<Appender> appender() = 0;
  virtual Expected<std::unique_ptr<Querier>> querier(int64_t mint_ms, int64_t maxt_ms) = 0;
};

}  // namespace llmon::storage
