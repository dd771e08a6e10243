// The records of the WAL and the series log (docs/format/wal.md). Pure
// encode/decode, no I/O. Every record is self-contained (no state carried from
// earlier records), so a dropped page never corrupts the records after it.
//
//   series record:  type 1, then per series: ref, labels (name/value pairs)
//   samples record: type 2, one collection cycle (or import batch), column by
//                   column: a base timestamp and the samples whose timestamp
//                   differs from it; refs as runs of consecutive refs (need not
//                   be sorted); a 4-bit kind per value, then the values
//                   (0, 1 and stale NaN in the kind alone; integers, KiB
//                   multiples and short decimals as varints; other doubles as
//                   4 or 8 bytes)
//   tombstone:      type 3, series refs removed by retention (series log only)
//
// Decoding checks every length and varint and returns an error naming the
// byte offset; it never reads past the record, and never allocates more than
// a small multiple of the record's size.
//
// encode_* replace `out`'s contents (reusing its capacity). decode_* replace
// `out` with the record's entries; on error `out` is left empty.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/storage.h"

namespace llmon::tsdb::wal {

enum class RecordType : uint8_t { kSeries = 1, kSamples = 2, kTombstones = 3 };

struct SeriesEntry {
  storage::SeriesRef ref = 0;
  model::Labels labels;
};

struct SampleEntry {
  storage::SeriesRef ref = 0;
  int64_t t_ms = 0;
  double v = 0;  // kept bit-exactly (NaN payloads included)
};

void encode_series(const std::vector<SeriesEntry>& series, std::string& out);
void encode_samples(const std::vector<SampleEntry>& samples, std::string& out);
void encode_tombstones(const std::vector<storage::SeriesRef>& refs, std::string& out);

// Type of a record, or an error for an empty/unknown one.
Expected<RecordType> record_type(std::string_view record);
Status decode_series(std::string_view record, std::vector<SeriesEntry>& out);
Status decode_samples(std::string_view record, std::vector<SampleEntry>& out);
Status decode_tombstones(std::string_view record, std::vector<storage::SeriesRef>& out);

}  // namespace llmon::tsdb::wal
