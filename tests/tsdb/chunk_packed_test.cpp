// The packed (3) and group (4) chunk encodings: docs/format/chunk.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "tsdb/bitstream.h"
#include "tsdb/chunk.h"
#include "tsdb/hex.h"

namespace llmon::tsdb {
namespace {

using llmon::testing::hex;
using model::Sample;

std::vector<Sample> regular(size_t n, int64_t t0, int64_t step, const std::function<double(size_t)>& value) {
  std::vector<Sample> out;
  for (size_t i = 0; i < n; ++i) out.push_back({t0 + static_cast<int64_t>(i) * step, value(i)});
  return out;
}

std::vector<uint8_t> xor_int(const std::vector<Sample>& s) {
  ChunkEncoder enc(Encoding::kXorInt);
  for (const auto& x : s) EXPECT_TRUE(enc.append(x.t_ms, x.v).is_ok());
  return enc.bytes();
}

std::vector<uint8_t> packed(const std::vector<Sample>& s) {
  auto b = encode_packed(s);
  EXPECT_TRUE(b.has_value()) << b.error();
  return b ? *b : std::vector<uint8_t>{};
}

void expect_samples(std::span<const uint8_t> bytes, const std::vector<Sample>& want) {
  auto got = decode_chunk(bytes);
  ASSERT_TRUE(got.has_value()) << got.error();
  ASSERT_EQ(got->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ((*got)[i].t_ms, want[i].t_ms) << "sample " << i;
    ASSERT_EQ(std::bit_cast<uint64_t>((*got)[i].v), std::bit_cast<uint64_t>(want[i].v))
        << "sample " << i << " want " << want[i].v << " got " << (*got)[i].v;
  }
}

// Packed, and sealed from xor-int: both bit-exact; the seal never grows a chunk.
void expect_round_trip(const std::vector<Sample>& s) {
  auto p = packed(s);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0], 3);
  expect_samples(p, s);
  auto x = xor_int(s);
  auto sealed = seal_chunk(x);
  ASSERT_TRUE(sealed.has_value()) << sealed.error();
  EXPECT_LE(sealed->size(), x.size());
  expect_samples(*sealed, s);
}

std::string describe(std::span<const uint8_t> bytes) {
  auto d = ChunkDecoder::open(bytes);
  return d ? d->describe() : "ERR " + d.error();
}

// Jittered 15 s timestamps, as scraped: ~1 % off by 1-3 ms.
std::vector<Sample> jittered(size_t n, std::mt19937_64& rng, const std::function<double(size_t)>& value) {
  std::vector<Sample> out;
  for (size_t i = 0; i < n; ++i) {
    int64_t j = rng() % 100 == 0 ? static_cast<int64_t>(rng() % 7) - 3 : 0;
    out.push_back({1'700'000'000'000 + static_cast<int64_t>(i) * 15000 + j, value(i)});
  }
  return out;
}

TEST(ChunkPacked, Golden) {
  // Worked out by hand from docs/format/chunk.md, the encoder's choices included:
  // t = 1000..4000 step 1000, v = 1, 2, 3, 4.
  // header 03 | 0004 | d00f (zigzag 1000 = 2000)
  // time: step vb(2000) 0001011 11111010000; gap p 000010 (the one gap, 3, has bit length 2;
  //   p 1 and 2 both cost 3 bits, the estimate picks 2); residual p 000000;
  //   first gap rice(3, p 2): 0 11
  // values: mode 01 decimal, op 00, scale 00000, m0 vb(zigzag 1 = 2) 0000010 10,
  //   multiplier vb(1) 0000001 1; every delta equal: for-delta 000, base vb(zigzag 1 = 2)
  //   0000010 10, width 0000000
  // samples: no exceptions, width 0: nothing. 78 bits, 2 padding.
  auto s = regular(4, 1000, 1000, [](size_t i) { return double(i + 1); });
  EXPECT_EQ(hex(packed(s)), "030004d00f17f40201a00140601400");
  expect_samples(packed(s), s);
}

TEST(ChunkPacked, SpecialValuesRoundTripBitExactly) {
  const double nan_payload = std::bit_cast<double>(uint64_t{0x7ff8dead00000001});
  const double neg_nan = std::bit_cast<double>(uint64_t{0xfff0000000000123});
  const double inf = std::numeric_limits<double>::infinity();
  for (double v : {0.0, -0.0, 1.0, 42.5, inf, -inf, nan_payload, neg_nan, model::stale_nan(),
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::lowest()}) {
    SCOPED_TRACE(v);
    expect_round_trip(regular(300, 0, 1000, [&](size_t) { return v; }));                             // constant chunks
    expect_round_trip(regular(300, 0, 1000, [&](size_t i) { return i % 7 == 3 ? v : double(i); }));  // mixed
  }
  // A counter ending in a staleness marker; -0.0 and 0 alternating; infinities among decimals.
  expect_round_trip(regular(500, 0, 1000, [](size_t i) { return i < 499 ? double(i) / 100 : model::stale_nan(); }));
  expect_round_trip(regular(200, 0, 1000, [](size_t i) { return i % 2 ? -0.0 : 0.0; }));
  expect_round_trip(regular(200, 0, 1000, [&](size_t i) { return i == 100 ? inf : double(i) * 0.25; }));
  auto p = packed(regular(200, 0, 1000, [](size_t i) { return i % 2 ? -0.0 : 0.0; }));
  EXPECT_EQ(describe(p).find("decimal"), std::string::npos) << describe(p);  // -0.0 is never decimal
}

TEST(ChunkPacked, DecimalsAtEveryScaleAndAtTheLimits) {
  for (int k = 0; k <= 22; ++k) {
    SCOPED_TRACE(k);
    double p10 = std::pow(10.0, k);
    auto s = regular(100, 0, 1000, [&](size_t i) { return static_cast<double>(1234567 + 37 * i) / p10; });
    expect_round_trip(s);
    std::string d = describe(packed(s));
    EXPECT_NE(d.find("decimal op 0 scale " + std::to_string(k) + ","), std::string::npos) << d;
  }
  // |m| up to 2^53, negative, and across zero.
  const double two53 = 9007199254740992.0;
  expect_round_trip(regular(50, 0, 1000, [&](size_t i) { return two53 - double(i); }));
  expect_round_trip(regular(50, 0, 1000, [&](size_t i) { return -two53 + double(i); }));
  expect_round_trip(regular(50, 0, 1000, [&](size_t i) { return (double(i) - 25) / 1000; }));
  // 2^53 + 2 is an integer but beyond |m| <= 2^53: not decimal, still exact.
  auto big = regular(50, 0, 1000, [&](size_t i) { return two53 + 2.0 * double(i); });
  expect_round_trip(big);
  EXPECT_EQ(describe(packed(big)).find("decimal"), std::string::npos);
  // 0.1 + 0.2 is not 0.3: no small scale holds it, so the chunk stays exact as floats.
  auto sums = regular(50, 0, 1000, [](size_t i) { return i % 2 ? 0.1 + 0.2 : 0.3; });
  expect_round_trip(sums);
  EXPECT_EQ(describe(packed(sums)).find("decimal"), std::string::npos) << describe(packed(sums));
}

TEST(ChunkPacked, EachValueCodeIsChosenWhereItBelongs) {
  std::mt19937_64 rng(3);
  int64_t ticks = 100000;
  // ticks / 100, as node_exporter computes CPU seconds.
  auto cpu = jittered(480, rng, [&](size_t) { return static_cast<double>(ticks += 90 + rng() % 20) / 100; });
  EXPECT_NE(describe(packed(cpu)).find("decimal op 0 scale 2"), std::string::npos) << describe(packed(cpu));
  // Milliseconds * 0.001 (node_exporter's disk times) and microseconds / 1000 / 1000 (pressure).
  // (The first values are ones where the other ops give other bits.)
  int64_t ms = 84472;
  auto disk = jittered(480, rng, [&](size_t i) { return static_cast<double>(ms += i ? rng() % 200 : 0) * 0.001; });
  EXPECT_NE(describe(packed(disk)).find("decimal op 1 scale 3"), std::string::npos) << describe(packed(disk));
  int64_t us = 6905037082;
  auto psi = jittered(480, rng,
                      [&](size_t i) { return static_cast<double>(us += i ? rng() % 2000000 : 0) / 1000.0 / 1000.0; });
  EXPECT_NE(describe(packed(psi)).find("decimal op 2 scale 2"), std::string::npos) << describe(packed(psi));
  // A float counter adding whole numbers to a fractional start.
  double acc = 1505.97;
  auto sum = jittered(480, rng, [&](size_t) { return acc += static_cast<double>(500 + rng() % 1000); });
  EXPECT_NE(describe(packed(sum)).find("values sum scale 0"), std::string::npos) << describe(packed(sum));
  // Memory in 4 KiB pages: a multiplier of 4096.
  int64_t pages = 250000;
  auto mem = jittered(
      480, rng, [&](size_t) { return static_cast<double>((pages += static_cast<int64_t>(rng() % 201) - 100) * 4096); });
  EXPECT_NE(describe(packed(mem)).find("x4096"), std::string::npos) << describe(packed(mem));
  // An idle counter: mostly unchanged, a jump now and then.
  int64_t errs = 0;
  auto idle = regular(7200, 0, 1000, [&](size_t i) { return static_cast<double>(errs += i % 997 == 5 ? 3 : 0); });
  EXPECT_NE(describe(packed(idle)).find("sparse"), std::string::npos) << describe(packed(idle));
  // Noise in every bit.
  double g = 0.001;
  auto noisy =
      jittered(480, rng, [&](size_t) { return g += std::ldexp(static_cast<double>(rng() % 1000000) - 5e5, -40); });
  EXPECT_NE(describe(packed(noisy)).find("values float"), std::string::npos) << describe(packed(noisy));
  for (const auto* s : {&cpu, &disk, &psi, &sum, &mem, &idle, &noisy}) {
    expect_round_trip(*s);
    // Sealing shrinks each of these below its xor-int chunk.
    EXPECT_LT(packed(*s).size(), xor_int(*s).size());
  }
  // The decimal ops save most where xor-int sees noise.
  EXPECT_LT(packed(disk).size() * 2, xor_int(disk).size());
  EXPECT_LT(packed(psi).size() * 5, xor_int(psi).size() * 3);
}

TEST(ChunkPacked, TimestampsWithJitterGapsAndExtremes) {
  std::mt19937_64 rng(8);
  auto jit = jittered(2000, rng, [](size_t i) { return double(i); });
  expect_round_trip(jit);
  // A missed scrape moves the grid; drift; irregular; extremes.
  std::vector<Sample> gaps;
  int64_t t = 0;
  for (int i = 0; i < 500; ++i) gaps.push_back({t += (i % 50 == 7 ? 2000 : 1000) + (i % 70 == 3 ? 1 : 0), 1.0});
  expect_round_trip(gaps);
  std::vector<Sample> irregular;
  t = -5'000'000;
  for (int i = 0; i < 500; ++i) irregular.push_back({t += 1 + static_cast<int64_t>(rng() % 100000), double(i % 3)});
  expect_round_trip(irregular);
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  expect_round_trip({{kMin, 1.0}, {kMin + 1, 2.0}, {0, 3.0}, {kMax - 1, 4.0}, {kMax, 5.0}});
  expect_round_trip({{kMin, 1.5}, {kMax, 2.5}});
  expect_round_trip({{42, 0.5}});
  // Regular timestamps cost nothing per sample: 7 200 samples of a constant in a few bytes.
  EXPECT_LT(packed(regular(7200, 1'700'000'000'000, 1000, [](size_t) { return 1.0; })).size(), 20u);
}

TEST(ChunkPacked, RandomSeriesRoundTrip) {
  std::mt19937_64 rng(21);
  for (int iter = 0; iter < 300; ++iter) {
    size_t n = 1 + rng() % 600;
    int kind = static_cast<int>(rng() % 6);
    double x = static_cast<double>(rng() % 1000);
    std::vector<Sample> s;
    int64_t t = static_cast<int64_t>(rng() % 1000000) - 500000;
    for (size_t i = 0; i < n; ++i) {
      t += 1 + static_cast<int64_t>(rng() % (kind == 5 ? 3 : 20000));
      switch (kind) {
        case 0:
          x = std::bit_cast<double>(rng());
          break;
        case 1:
          x += static_cast<double>(rng() % 7);
          break;
        case 2:
          x = std::round(x * 100 + static_cast<double>(rng() % 300) - 150) / 100;
          break;
        case 3:
          x += static_cast<double>(rng() % 5) * 0.1;
          break;
        case 4:
          x = rng() % 10 == 0 ? model::stale_nan() : static_cast<double>(rng() % 3);
          break;
        default:
          x = static_cast<double>(static_cast<int64_t>(rng()) >> (rng() % 64));
          break;
      }
      s.push_back({t, x});
    }
    SCOPED_TRACE("iteration " + std::to_string(iter) + " kind " + std::to_string(kind));
    expect_round_trip(s);
    if (HasFatalFailure()) return;
  }
}

TEST(ChunkPacked, RefusesWhatNoChunkHolds) {
  EXPECT_FALSE(encode_packed({}).has_value());
  EXPECT_FALSE(encode_packed(std::vector<Sample>{{5, 1.0}, {5, 2.0}}).has_value());
  EXPECT_FALSE(encode_packed(std::vector<Sample>{{5, 1.0}, {4, 2.0}}).has_value());
  EXPECT_FALSE(encode_packed(regular(kMaxChunkSamples + 1, 0, 1, [](size_t) { return 0.0; })).has_value());
  EXPECT_TRUE(encode_packed(regular(kMaxChunkSamples, 0, 1, [](size_t) { return 0.0; })).has_value());
  ChunkEncoder enc(Encoding::kPacked);
  Status st = enc.append(1, 1.0);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("seal_chunk"), std::string::npos) << st.message();
  EXPECT_EQ(enc.num_samples(), 0u);
}

TEST(ChunkPacked, SealLeavesChunksWithinSixteenBytesOfTheirHeader) {
  // A steady counter at 30 s: 240 samples in 24 bytes (9 of header), all "nothing new" runs.
  auto steady = xor_int(regular(240, 1'700'000'000'000, 30000, [](size_t i) { return 123456789.0 + 1000.0 * i; }));
  ASSERT_LE(steady.size(), 9u + 16u);
  EXPECT_EQ(*seal_chunk(steady), steady);
  // A jittered constant is longer than that, and is sealed.
  std::mt19937_64 rng(2);
  auto jit = xor_int(jittered(480, rng, [](size_t) { return 1.0; }));
  ASSERT_GT(jit.size(), 9u + 16u);
  auto sealed = seal_chunk(jit);
  ASSERT_TRUE(sealed.has_value());
  EXPECT_EQ((*sealed)[0], 3);
  EXPECT_LT(sealed->size(), jit.size());
}

TEST(ChunkPacked, SealKeepsTheOriginalWhenPackedIsNotSmaller) {
  // Three noisy floats 1 s apart: 64 raw bits and XORs that packing cannot beat.
  auto three = xor_int({{1'700'000'000'000, 0.1 + 0.2}, {1'700'000'001'000, 1e300 / 7}, {1'700'000'002'000, -3e-200}});
  ASSERT_GT(three.size(), 9u + 16u);
  ASSERT_GE(packed(std::vector<Sample>{
                       {1'700'000'000'000, 0.1 + 0.2}, {1'700'000'001'000, 1e300 / 7}, {1'700'000'002'000, -3e-200}})
                .size(),
            three.size());
  auto sealed = seal_chunk(three);
  ASSERT_TRUE(sealed.has_value());
  EXPECT_EQ(*sealed, three);
  // A packed chunk is sealed already; garbage does not seal.
  auto p = packed(regular(10, 0, 1000, [](size_t i) { return double(i); }));
  EXPECT_EQ(*seal_chunk(p), p);
  EXPECT_FALSE(seal_chunk(std::vector<uint8_t>{3, 0, 5, 0}).has_value());
}

TEST(ChunkPacked, EveryTruncationIsAnError) {
  std::mt19937_64 rng(5);
  int64_t c = 0;
  std::vector<std::vector<Sample>> series = {
      jittered(300, rng, [&](size_t) { return static_cast<double>(c += rng() % 40) / 100; }),
      jittered(300, rng, [&](size_t) { return std::bit_cast<double>(rng()); }),
      jittered(300, rng, [&](size_t i) { return i % 100 == 5 ? 7.0 : 3.0; }),
      regular(300, 0, 1000, [](size_t) { return 2.0; }),
  };
  for (const auto& s : series) {
    auto bytes = packed(s);
    for (size_t len = 0; len < bytes.size(); ++len) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(len));
      ASSERT_FALSE(decode_chunk(cut).has_value()) << "prefix of " << len << " of " << bytes.size() << " bytes decoded";
    }
  }
}

// A packed chunk's header and parameters, written bit by bit for the decoder's checks.
std::vector<uint8_t> hand_packed(const std::function<void(BitWriter&)>& values) {
  BitWriter w;
  for (uint8_t b : {3, 0, 2, 0}) w.write_bits(b, 8);  // 2 samples, first_t 0
  w.write_bits(4, 7);                                 // step: vb, 4 bits: zigzag 8 = 4 ms
  w.write_bits(8, 4);
  w.write_bits(0, 6);     // gap p
  w.write_bits(0, 6);     // residual p
  w.write_bits(0b10, 2);  // first gap 1 (Rice, p 0): no exception
  values(w);
  w.write_bits(0, 64);  // room for a sample
  w.write_bits(0, 16);
  return w.bytes();
}

TEST(ChunkPacked, DecoderRejectsBadParameters) {
  auto err = [](const std::vector<uint8_t>& b) {
    auto d = decode_chunk(b);
    return d.has_value() ? std::string("ok") : d.error();
  };
  auto decimal = [](int op, int k, uint64_t mult, int seq, int width) {
    return hand_packed([=](BitWriter& w) {
      w.write_bits(1, 2);  // decimal
      w.write_bits(static_cast<uint64_t>(op), 2);
      w.write_bits(static_cast<uint64_t>(k), 5);
      w.write_bits(0, 7);  // m0 = 0
      w.write_bits(mult == 0 ? 0 : 1, 7);
      if (mult != 0) w.write_bits(1, 1);
      w.write_bits(static_cast<uint64_t>(seq), 3);
      w.write_bits(0, 7);  // base 0
      w.write_bits(static_cast<uint64_t>(width), 7);
    });
  };
  EXPECT_EQ(err(decimal(0, 2, 1, 0, 3)), "ok");
  EXPECT_NE(err(decimal(3, 2, 1, 0, 3)).find("decimal op 3"), std::string::npos);
  EXPECT_NE(err(decimal(0, 23, 1, 0, 3)).find("scale 23"), std::string::npos);
  EXPECT_NE(err(decimal(2, 0, 1, 0, 3)).find("scale 0"), std::string::npos);
  EXPECT_NE(err(decimal(2, 8, 1, 0, 3)).find("scale 8"), std::string::npos);
  EXPECT_EQ(err(decimal(2, 7, 1, 0, 3)), "ok");
  EXPECT_NE(err(decimal(0, 2, 0, 0, 3)).find("multiplier 0"), std::string::npos);
  EXPECT_NE(err(decimal(0, 2, 1, 6, 3)).find("sequence code 6"), std::string::npos);
  EXPECT_NE(err(decimal(0, 2, 1, 7, 3)).find("sequence code 7"), std::string::npos);
  EXPECT_NE(err(decimal(0, 2, 1, 0, 65)).find("width 65"), std::string::npos);
  EXPECT_EQ(err(decimal(0, 2, 1, 0, 64)), "ok");
  auto sum_scale = hand_packed([](BitWriter& w) {
    w.write_bits(3, 2);  // sum
    w.write_bits(0, 64);
    w.write_bits(23, 5);
  });
  EXPECT_NE(err(sum_scale).find("scale 23"), std::string::npos);
  // A vb length above 64.
  auto long_vb = hand_packed([](BitWriter& w) {
    w.write_bits(1, 2);
    w.write_bits(0, 7);
    w.write_bits(65, 7);
  });
  EXPECT_NE(err(long_vb), "ok");
}

TEST(ChunkPacked, GarbageNeverCrashesAndDecodedSamplesReencode) {
  std::mt19937_64 rng(13);
  std::vector<std::vector<uint8_t>> valid;
  int64_t c = 0;
  valid.push_back(packed(jittered(200, rng, [&](size_t) { return static_cast<double>(c += rng() % 9) / 10; })));
  valid.push_back(packed(jittered(200, rng, [&](size_t) { return std::bit_cast<double>(rng() | 1); })));
  valid.push_back(packed(regular(200, 0, 1000, [](size_t i) { return i % 50 == 1 ? 5.0 : 1.0; })));
  size_t decoded = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> b;
    if (iter % 2 == 0) {
      b.resize(4 + rng() % 48);
      for (auto& x : b) x = static_cast<uint8_t>(rng());
      b[0] = 3;
      b[1] = 0;
      b[2] = static_cast<uint8_t>(1 + rng() % 8);
    } else {
      b = valid[rng() % valid.size()];
      for (int f = 0; f < 1 + static_cast<int>(rng() % 3); ++f)
        b[3 + rng() % (b.size() - 3)] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    auto got = decode_chunk(b);
    if (!got.has_value()) continue;
    ++decoded;
    expect_round_trip(*got);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(decoded, 200u);
}

// ---- groups ----

TEST(ChunkGroup, PartsOfEveryEncodingDecodeAsOneChunk) {
  auto a = regular(100, 0, 1000, [](size_t i) { return double(i) / 100; });
  auto b = regular(50, 100000, 1000, [](size_t i) { return std::sin(double(i)); });
  auto c = regular(30, 200000, 15000, [](size_t) { return model::stale_nan(); });
  ChunkEncoder xa(Encoding::kXor);
  for (const auto& s : a) ASSERT_TRUE(xa.append(s.t_ms, s.v).is_ok());
  auto pb = xor_int(b), pc = packed(c);
  std::vector<std::span<const uint8_t>> parts = {xa.bytes(), pb, pc};
  std::vector<size_t> offsets;
  auto g = group_chunks(parts, &offsets);
  ASSERT_TRUE(g.has_value()) << g.error();
  EXPECT_EQ((*g)[0], 4);
  EXPECT_EQ((*g)[1], 3);
  ASSERT_EQ(offsets.size(), 3u);
  // Each part is still a chunk of its own inside the group.
  for (size_t i = 0; i < 3; ++i) {
    std::span<const uint8_t> part(g->data() + offsets[i], parts[i].size());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), parts[i].begin()));
  }
  std::vector<Sample> all = a;
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  expect_samples(*g, all);
  auto dec = ChunkDecoder::open(*g);
  ASSERT_TRUE(dec.has_value());
  EXPECT_EQ(dec->num_samples(), all.size());
  EXPECT_EQ(dec->encoding(), Encoding::kGroup);
  // Seek across parts; sealing a group keeps it.
  ASSERT_TRUE(dec->seek(100000 + 10 * 1000));
  EXPECT_EQ(dec->at().t_ms, 110000);
  ASSERT_TRUE(dec->seek(215000));
  EXPECT_EQ(dec->at().t_ms, 215000);
  EXPECT_NE(dec->describe().find("group part 3: packed"), std::string::npos) << dec->describe();
  auto sealed = seal_chunk(*g);  // a group seals into one chunk
  ASSERT_TRUE(sealed.has_value());
  expect_samples(*sealed, all);
}

// seek() skips whole parts that end before the target (the next part starts at
// or before it) without decoding them, and lands where a linear scan does.
TEST(ChunkGroup, SeekSkipsPartsAndMatchesALinearScan) {
  std::vector<std::vector<Sample>> chunks;
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<Sample> all;
  for (int p = 0; p < 6; ++p) {
    auto s = regular(40 + 7 * p, int64_t{p} * 2000000, 15000, [p](size_t i) { return double(i * (p + 1)) / 4; });
    bytes.push_back(p % 2 ? packed(s) : xor_int(s));
    all.insert(all.end(), s.begin(), s.end());
  }
  std::vector<std::span<const uint8_t>> parts(bytes.begin(), bytes.end());
  auto g = group_chunks(parts, nullptr);
  ASSERT_TRUE(g.has_value()) << g.error();
  std::vector<int64_t> targets = {-5, 0, 1, 14999, 15000, all.back().t_ms, all.back().t_ms + 1};
  for (size_t i = 0; i < all.size(); i += 13) {
    targets.push_back(all[i].t_ms);
    targets.push_back(all[i].t_ms + 1);
  }
  for (int64_t t : targets) {
    auto dec = ChunkDecoder::open(*g);
    ASSERT_TRUE(dec.has_value());
    auto want = std::lower_bound(all.begin(), all.end(), t, [](const Sample& s, int64_t x) { return s.t_ms < x; });
    bool found = dec->seek(t);
    ASSERT_EQ(found, want != all.end()) << t;
    ASSERT_TRUE(dec->err().is_ok()) << t << ": " << dec->err().message();
    if (!found) continue;
    EXPECT_EQ(dec->at().t_ms, want->t_ms) << t;
    EXPECT_EQ(dec->at().v, want->v) << t;
    EXPECT_EQ(dec->position(), static_cast<size_t>(want - all.begin()) + 1) << t;
    // next() goes on from there, across the remaining parts.
    size_t n = 1;
    while (dec->next()) {
      ASSERT_EQ(dec->at().t_ms, (want + static_cast<ptrdiff_t>(n))->t_ms) << t;
      ++n;
    }
    EXPECT_TRUE(dec->err().is_ok());
    EXPECT_EQ(n, static_cast<size_t>(all.end() - want)) << t;
  }
  // A skipped part is not decoded: damage in part 2's bits does not reach a
  // seek into part 4, while reading through part 2 reports it.
  size_t off2 = 0;
  {
    std::vector<size_t> offsets;
    ASSERT_TRUE(group_chunks(parts, &offsets).has_value());
    off2 = offsets[1];
  }
  auto damaged = *g;
  for (size_t k = bytes[1].size() / 2; k < bytes[1].size(); ++k) damaged[off2 + k] = 0xff;
  auto skip = ChunkDecoder::open(damaged);
  ASSERT_TRUE(skip.has_value());
  ASSERT_TRUE(skip->seek(6000000)) << skip->err().message() << " size " << bytes[1].size();
  EXPECT_EQ(skip->at().t_ms, 6000000);
  EXPECT_FALSE(decode_chunk(damaged).has_value());
  // Parts out of time order are still an error for seek.
  auto late_first = *group_chunks(std::vector<std::span<const uint8_t>>{bytes[3], bytes[0]}, nullptr);
  auto late = ChunkDecoder::open(late_first);
  ASSERT_TRUE(late.has_value());
  EXPECT_FALSE(late->seek(all.back().t_ms));
  EXPECT_NE(late->err().message().find("not after"), std::string::npos) << late->err().message();
}

TEST(ChunkGroup, MalformedGroupsAreErrors) {
  auto a = packed(regular(10, 0, 1000, [](size_t i) { return double(i); }));
  auto b = packed(regular(10, 100000, 1000, [](size_t i) { return double(i); }));
  std::vector<std::span<const uint8_t>> one = {a}, nested;
  EXPECT_FALSE(group_chunks(one, nullptr).has_value());
  auto g = *group_chunks(std::vector<std::span<const uint8_t>>{a, b}, nullptr);
  nested = {g, a};
  EXPECT_FALSE(group_chunks(nested, nullptr).has_value());
  auto err = [](std::vector<uint8_t> bytes) {
    auto d = decode_chunk(bytes);
    return d.has_value() ? std::string("ok") : d.error();
  };
  EXPECT_EQ(err(g), "ok");
  EXPECT_NE(err({4}).find("truncated"), std::string::npos);
  auto bad = g;
  bad[1] = 1;  // one part
  EXPECT_NE(err(bad).find("group of 1 parts"), std::string::npos);
  bad = g;
  bad[2] = 0x7f;  // first part's length past the end
  EXPECT_NE(err(bad).find("past the end"), std::string::npos);
  // Parts out of time order.
  auto late_first = *group_chunks(std::vector<std::span<const uint8_t>>{b, a}, nullptr);
  EXPECT_NE(err(late_first).find("not after"), std::string::npos) << err(late_first);
  // Every truncation fails.
  for (size_t len = 0; len < g.size(); ++len) {
    EXPECT_FALSE(decode_chunk(std::span<const uint8_t>(g.data(), len)).has_value()) << len;
  }
  // More than 65 535 samples in all.
  auto big = packed(regular(40000, 0, 1, [](size_t) { return 1.0; }));
  auto big2 = packed(regular(40000, 100000, 1, [](size_t) { return 1.0; }));
  auto too_many = *group_chunks(std::vector<std::span<const uint8_t>>{big, big2}, nullptr);
  EXPECT_NE(err(too_many).find("samples (at most 65535)"), std::string::npos) << err(too_many);
}

}  // namespace
}  // namespace llmon::tsdb
