// Tests of the WAL record codecs (src/tsdb/wal/records.h) against
// docs/format/wal.md "Records": golden bytes worked out from the spec by hand,
// bit-exact round trips of special values, and malformed, truncated and
// random input (errors, never crashes).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tsdb/hex.h"
#include "tsdb/wal/records.h"

namespace llmon::tsdb::wal {
namespace {

using llmon::testing::hex;
using storage::SeriesRef;

std::string hex_of(const std::string& s) {
  return hex(std::vector<uint8_t>(s.begin(), s.end()));
}

std::string unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

model::Labels labels(std::vector<model::Label> pairs) {
  auto l = model::Labels::make(std::move(pairs));
  EXPECT_TRUE(l.has_value()) << l.error();
  return l ? *l : model::Labels();
}

uint64_t bits(double v) {
  return std::bit_cast<uint64_t>(v);
}
double from_bits(uint64_t b) {
  return std::bit_cast<double>(b);
}

void expect_same(const std::vector<SampleEntry>& got, const std::vector<SampleEntry>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].ref, want[i].ref) << "sample " << i;
    EXPECT_EQ(got[i].t_ms, want[i].t_ms) << "sample " << i;
    EXPECT_EQ(bits(got[i].v), bits(want[i].v)) << "sample " << i << " value " << want[i].v;
  }
}

std::vector<SampleEntry> samples_round_trip(const std::vector<SampleEntry>& in) {
  std::string rec;
  encode_samples(in, rec);
  auto type = record_type(rec);
  EXPECT_TRUE(type.has_value() && *type == RecordType::kSamples);
  std::vector<SampleEntry> out;
  Status s = decode_samples(rec, out);
  EXPECT_TRUE(s.is_ok()) << s.message() << " in " << hex_of(rec);
  return out;
}

TEST(WalRecords, RecordType) {
  EXPECT_FALSE(record_type("").has_value());
  EXPECT_EQ(record_type(std::string("\x00", 1)).error(), "wal record: unknown type 0 at byte 0");
  EXPECT_FALSE(record_type("\x04").has_value());
  EXPECT_EQ(*record_type("\x01"), RecordType::kSeries);
  EXPECT_EQ(*record_type("\x02"), RecordType::kSamples);
  EXPECT_EQ(*record_type("\x03"), RecordType::kTombstones);
}

TEST(WalRecords, SeriesGoldenBytes) {
  const std::vector<SeriesEntry> in = {{1, labels({{"job", "a"}, {"__name__", "up"}})}, {2, labels({{"a", "b"}})}};
  std::string rec = "stale contents are replaced";
  encode_series(in, rec);
  // type 01, n 02; ref delta +1 -> 02, 2 labels, "__name__" "up" "job" "a";
  // ref delta 0 -> 00, 1 label, "a" "b".
  EXPECT_EQ(hex_of(rec),
            "01020202085f5f6e616d655f5f027570036a6f6201610001016101"
            "62");
  std::vector<SeriesEntry> out = {{99, {}}};
  ASSERT_TRUE(decode_series(rec, out).is_ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].ref, 1u);
  EXPECT_EQ(out[0].labels, in[0].labels);
  EXPECT_EQ(out[1].ref, 2u);
  EXPECT_EQ(out[1].labels, in[1].labels);
}

TEST(WalRecords, SeriesRoundTripOddRefsAndBytes) {
  std::vector<SeriesEntry> in;
  in.push_back({std::numeric_limits<SeriesRef>::max(), labels({{"x", std::string("\0\xff\n\"", 4)}})});
  in.push_back({0, labels({{"__name__", "m"}, {"é", "ü"}})});
  in.push_back({12345678901234ull, labels({})});
  in.push_back({5, labels({{"l", std::string(300, 'v')}, {std::string(200, 'n'), "1"}})});
  std::string rec;
  encode_series(in, rec);
  std::vector<SeriesEntry> out;
  ASSERT_TRUE(decode_series(rec, out).is_ok());
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].ref, in[i].ref);
    EXPECT_EQ(out[i].labels, in[i].labels);
  }
}

TEST(WalRecords, SamplesGoldenBytes) {
  const std::vector<SampleEntry> in = {{1, 1000, 0.0}, {2, 1000, 1.0}, {3, 1000, model::stale_nan()}, {7, 2000, 5.0}};
  std::string rec;
  encode_samples(in, rec);
  // 02 type, 04 n, d00f base 1000; runs: (+1 -> 02, len 3 -> 02), (7 vs
  // expected 4: +3 -> 06, len 1 -> 00); 01 exception: index 3 -> 03, t +1000
  // -> d00f; kinds 0,1 | 2,3 -> 01 23; value 5 -> 05.
  EXPECT_EQ(hex_of(rec),
            "0204d00f02020600"
            "0103d00f"
            "0123"
            "05");
  expect_same(samples_round_trip(in), in);
}

TEST(WalRecords, ValueKindGoldenBytes) {
  // One sample, ref 1, t 0: 02 01 00 | 02 00 | 00 | kind nibble, payload.
  const std::string head = "020100020000";
  struct Case {
    double v;
    const char* tail;
  } cases[] = {
      {0.0, "00"},
      {1.0, "10"},
      {model::stale_nan(), "20"},
      {5.0, "3005"},
      {300.0, "30ac02"},
      {-3.0, "4003"},
      {4096.0, "5004"},
      {2048000.0, "50d00f"},                             // 2000 KiB: 2 bytes instead of 3
      {1e13, "50a8b9ceb024"},                            // a counter: 5 bytes via KiB, 7 plain
      {0.5, "600a"},                                     // 5 / 10
      {-1.5, "601d"},                                    // -15 / 10
      {0.25, "7032"},                                    // 25 / 100
      {123.456, "8080890f"},                             // 123456 / 1000
      {static_cast<double>(1.0f / 3.0f), "c03eaaaaab"},  // float32-exact
      {18446744073709551616.0, "c05f800000"},            // 2^64: too big for an integer kind
      {from_bits(0x7ff8000000000001ull), "d07ff8000000000001"},
      {-0.0, "d08000000000000000"},
      {std::numeric_limits<double>::infinity(), "d07ff0000000000000"},
      {0.1 + 0.2, "d03fd3333333333334"},
  };
  for (const auto& c : cases) {
    std::string rec;
    encode_samples({{1, 0, c.v}}, rec);
    EXPECT_EQ(hex_of(rec), head + c.tail) << "value " << c.v;
    auto out = samples_round_trip({{1, 0, c.v}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(bits(out[0].v), bits(c.v)) << c.v;
  }
}

TEST(WalRecords, SpecialValuesRoundTripBitExactly) {
  std::vector<double> values = {
      0.0,
      -0.0,
      1.0,
      -1.0,
      model::stale_nan(),
      from_bits(0x7ff8000000000000ull),  // the usual quiet NaN
      from_bits(0xfff8000000000000ull),  // negative NaN
      from_bits(0x7ff0000000000001ull),  // signalling NaN
      from_bits(0x7ff0000000000003ull),
      from_bits(0x7fffffffffffffffull),
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::max(),
      std::numeric_limits<double>::lowest(),
      std::numeric_limits<double>::min(),
      std::numeric_limits<double>::denorm_min(),
      9007199254740992.0,  // 2^53
      9007199254740994.0,
      18446744073709549568.0,  // largest double below 2^64
      18446744073709551616.0,  // 2^64
      -9223372036854775808.0,
      -18446744073709549568.0,
      1e13,
      1e13 + 1,
      4.3924907804e+10,
      1.8446744073709552e+19,
      0.1,
      0.01,
      823.479,
      7486.51,
      121.71600000000001,
      6.79990007483866e-05,
      1e-7,
      -2.5,
      0.999999,
      1e-6,
      123456789.123456,
  };
  std::vector<SampleEntry> in;
  for (size_t i = 0; i < values.size(); ++i) in.push_back({i + 1, 1700000000000, values[i]});
  expect_same(samples_round_trip(in), in);

  std::mt19937_64 rng(42);
  in.clear();
  for (int i = 0; i < 20000; ++i) {
    const uint64_t r = rng();
    double v;
    switch (r % 5) {
      case 0:
        v = from_bits(rng());
        break;  // any bits
      case 1:
        v = static_cast<double>(rng() >> (r % 64));
        break;  // integers
      case 2:
        v = static_cast<double>(static_cast<int64_t>(rng()) >> 20) / 1000;
        break;  // decimals
      case 3:
        v = static_cast<double>(static_cast<float>(from_bits(rng())));
        break;
      default:
        v = -static_cast<double>(rng() >> (r % 64)) * 1024;
        break;
    }
    in.push_back({rng() % 5000, 1700000000000 + static_cast<int64_t>(rng() % 3) * 1000, v});
  }
  expect_same(samples_round_trip(in), in);
}

TEST(WalRecords, TimestampsAndRefs) {
  const int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  const SeriesRef kTop = std::numeric_limits<SeriesRef>::max();
  const std::vector<SampleEntry> in = {
      {kTop, 5, 1}, {0, 5, 1}, {1, kMin, 2}, {2, kMax, 3}, {2, 5, 4},         {1, -1, 5},
      {9, 5, 6},    {8, 5, 7}, {7, kMin, 8}, {0, 0, 9},    {kTop - 1, 5, 10},
  };
  expect_same(samples_round_trip(in), in);
  expect_same(samples_round_trip({}), {});
  expect_same(samples_round_trip({{3, kMin, 0}}), {{3, kMin, 0}});
}

TEST(WalRecords, CycleSizeFollowsTheSpec) {
  // A cycle of 0/1 gauges over refs created in order: header, one ref run, one
  // byte of timestamps, and half a byte per sample.
  const int64_t t = 1795987798295;
  std::vector<SampleEntry> in;
  for (SeriesRef r = 1; r <= 1001; ++r) in.push_back({r, t, static_cast<double>(r % 2)});
  std::string rec;
  encode_samples(in, rec);
  const size_t expected = 1 + 2 /* n */ + 6 /* zigzag(t) */ + 1 + 2 /* run */ + 1 /* no exceptions */ + 501;
  EXPECT_EQ(rec.size(), expected);
  expect_same(samples_round_trip(in), in);
}

TEST(WalRecords, TombstonesGoldenBytes) {
  std::string rec;
  encode_tombstones({5, 6, 3}, rec);
  EXPECT_EQ(hex_of(rec), "03030a0007");  // +5 -> 0a, +0 -> 00, -4 -> 07
  std::vector<SeriesRef> out = {1, 2};
  ASSERT_TRUE(decode_tombstones(rec, out).is_ok());
  EXPECT_EQ(out, (std::vector<SeriesRef>{5, 6, 3}));
  encode_tombstones({}, rec);
  EXPECT_EQ(hex_of(rec), "0300");
  ASSERT_TRUE(decode_tombstones(rec, out).is_ok());
  EXPECT_TRUE(out.empty());
}

// Valid records of every type, for the malformed-input tests.
std::vector<std::string> valid_records() {
  std::vector<std::string> recs;
  std::string rec;
  encode_series({{1, labels({{"__name__", "up"}, {"job", "node"}})}, {9, labels({{"a", "b"}})}}, rec);
  recs.push_back(rec);
  encode_series({}, rec);
  recs.push_back(rec);
  std::vector<SampleEntry> cycle;
  for (SeriesRef r = 1; r < 40; ++r) {
    double v = r % 7 == 0 ? 0.1 * r : r % 5 == 0 ? from_bits(0x7ff8000000000000ull + r) : r * 1024.0 * r;
    cycle.push_back({r * (r % 3 ? 1 : 5), 1700000000000 + (r % 11 == 0 ? 15 : 0), v});
  }
  encode_samples(cycle, rec);
  recs.push_back(rec);
  encode_samples({{4, 0, 0.0}}, rec);
  recs.push_back(rec);
  encode_samples({}, rec);
  recs.push_back(rec);
  encode_tombstones({7, 8, 9, 2}, rec);
  recs.push_back(rec);
  return recs;
}

// Decodes `rec` with the decoder of its type (all three if the type is bad);
// true if it decoded. A successful decode must re-encode to something that
// decodes to the same entries.
bool decode_any(const std::string& rec) {
  std::vector<SeriesEntry> series;
  std::vector<SampleEntry> samples;
  std::vector<SeriesRef> refs;
  bool ok = false;
  if (decode_series(rec, series).is_ok()) {
    ok = true;
    std::string again;
    encode_series(series, again);
    std::vector<SeriesEntry> back;
    EXPECT_TRUE(decode_series(again, back).is_ok());
    EXPECT_EQ(back.size(), series.size());
    for (size_t i = 0; i < std::min(back.size(), series.size()); ++i) {
      EXPECT_EQ(back[i].ref, series[i].ref);
      EXPECT_EQ(back[i].labels, series[i].labels);
    }
  } else {
    EXPECT_TRUE(series.empty());
  }
  if (decode_samples(rec, samples).is_ok()) {
    ok = true;
    expect_same(samples_round_trip(samples), samples);
  } else {
    EXPECT_TRUE(samples.empty());
  }
  if (decode_tombstones(rec, refs).is_ok()) {
    ok = true;
    std::string again;
    encode_tombstones(refs, again);
    std::vector<SeriesRef> back;
    EXPECT_TRUE(decode_tombstones(again, back).is_ok());
    EXPECT_EQ(back, refs);
  } else {
    EXPECT_TRUE(refs.empty());
  }
  return ok;
}

TEST(WalRecords, TruncatedAtEveryLengthIsAnError) {
  for (const auto& rec : valid_records()) {
    ASSERT_TRUE(decode_any(rec)) << hex_of(rec);
    for (size_t len = 0; len < rec.size(); ++len) {
      EXPECT_FALSE(decode_any(rec.substr(0, len))) << "prefix " << len << " of " << hex_of(rec);
    }
    EXPECT_FALSE(decode_any(rec + '\0')) << "trailing byte after " << hex_of(rec);
  }
}

TEST(WalRecords, MalformedInputsNameTheByte) {
  struct Case {
    const char* hex;
    const char* error;
  } cases[] = {
      {"02", "samples record: truncated varint at byte 1"},
      {"02ffffffffffffffffff02", "samples record: varint overflows 64 bits at byte 1"},
      {"02ffffffff0f00", "samples record: sample count 4294967295 does not fit in the 1 bytes left at byte 1"},
      {"020100020000e0", "samples record: unknown value kind 14 at byte 7"},
      {"020100020000f0", "samples record: unknown value kind 15 at byte 7"},
      {"02010002000001", "samples record: unused kind nibble not zero at byte 7"},
      {"0201000201", "samples record: ref run of 1+1 refs past the 1 declared at byte 3"},
      {"020100020001010200", "samples record: timestamp exception index past the last sample at byte 6"},
      {"02010002000200000000", "samples record: more timestamp exceptions than samples at byte 6"},
      {"020100020000c03f80", "samples record: truncated: 4 bytes needed, 2 left at byte 7"},
      {"0201000200000000", "samples record: 1 trailing bytes at byte 7"},
      {"0101020201620131016101"
       "31",
       "series record: label names not strictly increasing at byte 8"},
      {"01010202016101310161013"
       "1",
       "series record: label names not strictly increasing at byte 8"},
      {"0101020102616200", "series record: empty label name or value at byte 4"},
      {"0101020100023132", "series record: empty label name or value at byte 4"},
      {"0101020105616263", "series record: truncated: 5 bytes needed, 3 left at byte 5"},
      {"0101020fff", "series record: label count 15 does not fit in the 1 bytes left at byte 3"},
      {"03050002", "tombstones record: tombstone count 5 does not fit in the 2 bytes left at byte 1"},
  };
  for (const auto& c : cases) {
    const std::string rec = unhex(c.hex);
    Status s;
    std::vector<SeriesEntry> series;
    std::vector<SampleEntry> samples;
    std::vector<SeriesRef> refs;
    switch (rec[0]) {
      case 1:
        s = decode_series(rec, series);
        break;
      case 2:
        s = decode_samples(rec, samples);
        break;
      default:
        s = decode_tombstones(rec, refs);
        break;
    }
    EXPECT_EQ(s.message(), c.error) << c.hex;
  }
  std::vector<SampleEntry> samples;
  EXPECT_EQ(decode_samples(unhex("01020000"), samples).message(), "samples record: type 1 is not 2 at byte 0");
  EXPECT_EQ(decode_samples("", samples).message(), "samples record: empty at byte 0");
}

TEST(WalRecords, RandomAndMutatedInputsNeverCrash) {
  std::mt19937 rng(7);
  size_t decoded = 0;
  for (int i = 0; i < 100000; ++i) {
    std::string rec(rng() % 48, '\0');
    for (auto& c : rec) c = static_cast<char>(rng() % 4 == 0 ? rng() % 4 : rng());
    if (!rec.empty()) rec[0] = static_cast<char>(1 + rng() % 3);
    decoded += decode_any(rec);
  }
  const auto valid = valid_records();
  for (int i = 0; i < 50000; ++i) {
    std::string rec = valid[rng() % valid.size()];
    for (int k = 1 + rng() % 3; k > 0; --k) {
      switch (rng() % 4) {
        case 0:
          if (!rec.empty()) rec[rng() % rec.size()] ^= static_cast<char>(1 << (rng() % 8));
          break;
        case 1:
          if (!rec.empty()) rec[rng() % rec.size()] = static_cast<char>(rng());
          break;
        case 2:
          rec.insert(rec.begin() + static_cast<long>(rng() % (rec.size() + 1)), static_cast<char>(rng()));
          break;
        default:
          if (!rec.empty()) rec.erase(rec.begin() + static_cast<long>(rng() % rec.size()));
          break;
      }
    }
    decoded += decode_any(rec);
  }
  EXPECT_GT(decoded, 1000u) << "the random inputs should reach the decoders' success paths too";
}

}  // namespace
}  // namespace llmon::tsdb::wal
