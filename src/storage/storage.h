// The storage interfaces: what PromQL, rules and the HTTP API use to write and
// read samples. They depend only on this header, never on tsdb internals
// (src/tsdb/ implements it). Semantics follow Prometheus's storage package.
//
// Thread-safety: a Storage is safe to use from several threads; each
// Appender, Querier, SeriesSet and SeriesIterator is used by one thread at a
// time. Errors are values (Status / Expected), never exceptions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/labels.h"
#include "model/matcher.h"
#include "model/sample.h"

namespace llmon::storage {

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
  virtual Expected<SeriesRef> append(SeriesRef ref, const model::Labels& labels, int64_t t_ms, double v) = 0;
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
  virtual model::Sample at() const = 0;
  // Why iteration stopped early (corrupt chunk...); ok at a normal end.
  virtual Status err() const = 0;
  // Bulk read, after next()/seek() returned true: appends the current sample
  // and every following one with t <= maxt_ms to `out`, in order. Afterwards
  // only err() may be called (the position is unspecified). Stores override
  // it to decode without a call per sample.
  virtual void append_until(int64_t maxt_ms, std::vector<model::Sample>& out);
};

class Series {
 public:
  virtual ~Series() = default;
  virtual const model::Labels& labels() const = 0;
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
  virtual std::unique_ptr<SeriesSet> select(int64_t mint_ms, int64_t maxt_ms,
                                            const std::vector<model::Matcher>& matchers) = 0;
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
