// Differential test: the C++ codec against tests/tsdb/chunk_reference_decoder.py,
// an independent decoder written from docs/format/chunk.md alone. Both must
// decode the same chunks to the same samples and reject the same garbage.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "support/test_paths.h"
#include "tsdb/chunk.h"
#include "tsdb/hex.h"

namespace llmon::tsdb {
namespace {

using llmon::testing::hex;

// What the reference prints for a chunk: "t:bits ..." or "ERR ...".
std::string expected_line(const std::vector<uint8_t>& chunk) {
  auto got = decode_chunk(chunk);
  if (!got) return "ERR";
  std::string out;
  char buf[64];
  for (const auto& s : *got) {
    std::snprintf(buf, sizeof buf, "%s%lld:%016llx", out.empty() ? "" : " ", static_cast<long long>(s.t_ms),
                  static_cast<unsigned long long>(std::bit_cast<uint64_t>(s.v)));
    out += buf;
  }
  return out;
}

std::vector<uint8_t> encode(Encoding e, const std::vector<model::Sample>& samples) {
  ChunkEncoder enc(e);
  for (const auto& s : samples) EXPECT_TRUE(enc.append(s.t_ms, s.v).is_ok());
  return enc.bytes();
}

std::vector<std::vector<uint8_t>> corpus() {
  std::mt19937_64 rng(99);
  std::vector<std::vector<model::Sample>> series;
  auto gen = [&](auto value, int64_t step, int jitter) {
    std::vector<model::Sample> s;
    int64_t t = 1'700'000'000'000;
    for (int i = 0; i < 400; ++i) {
      t += step + (jitter ? static_cast<int64_t>(rng() % jitter) : 0);
      s.push_back({t, value(i)});
    }
    series.push_back(std::move(s));
  };
  int64_t c = 0;
  gen([](int) { return 42.0; }, 1000, 0);
  gen([&](int) { return static_cast<double>(c += static_cast<int64_t>(rng() % 40000)); }, 1000, 0);
  gen([&](int i) { return i % 7 == 3 ? 0.0 : static_cast<double>(c += i % 3 ? 0 : 4096 * (rng() % 100)); }, 1000, 0);
  gen([&](int) { return static_cast<double>(c += 95 + static_cast<int64_t>(rng() % 6)) / 100; }, 1000, 3);
  gen([&](int) { return std::round(std::sin(static_cast<double>(rng() % 1000)) * 1000) / 8; }, 15000, 0);
  gen([&](int) { return std::bit_cast<double>(rng()); }, 1, 100000);
  gen([&](int i) { return i % 50 == 7 ? model::stale_nan() : i % 50 == 8 ? -0.0 : i * 0.001; }, 1000, 2);
  gen([&](int i) { return i % 2 ? INFINITY : std::nan(""); }, 1 << 20, 0);
  // For the packed encoding's codes: ms * 0.001, µs / 1000 / 1000, sums of whole numbers,
  // 4 KiB pages, an idle counter, a constant.
  gen([&](int) { return static_cast<double>(c += 84 + static_cast<int64_t>(rng() % 50)) * 0.001; }, 15000, 4);
  gen([&](int) { return static_cast<double>(c += static_cast<int64_t>(rng() % 2000000)) / 1000.0 / 1000.0; }, 1000, 0);
  double acc = 1505.97;
  gen([&](int) { return acc += static_cast<double>(rng() % 1000); }, 15000, 3);
  gen([&](int) { return static_cast<double>((c += static_cast<int64_t>(rng() % 9) - 4) * 4096); }, 15000, 0);
  gen([&](int i) { return static_cast<double>(c += i % 97 == 5 ? 3 : 0); }, 1000, 0);
  gen([](int) { return 0.25; }, 15000, 2);
  std::vector<std::vector<uint8_t>> out;
  for (const auto& s : series) {
    for (Encoding e : {Encoding::kXor, Encoding::kXorInt}) out.push_back(encode(e, s));
    auto p = encode_packed(s);
    EXPECT_TRUE(p.has_value());
    out.push_back(*p);
    // A group: the series in three parts, of three encodings.
    std::span<const model::Sample> all(s);
    auto a = encode(Encoding::kXor, std::vector<model::Sample>(all.begin(), all.begin() + 100));
    auto b = *encode_packed(all.subspan(100, 150));
    auto c2 = encode(Encoding::kXorInt, std::vector<model::Sample>(all.begin() + 250, all.end()));
    auto g = group_chunks(std::vector<std::span<const uint8_t>>{a, b, c2}, nullptr);
    EXPECT_TRUE(g.has_value());
    out.push_back(*g);
  }
  const size_t valid = out.size();
  // Garbage: random bytes behind a plausible header, and bit flips of valid chunks.
  for (int i = 0; i < 1200; ++i) {
    std::vector<uint8_t> g(4 + rng() % 40);
    for (auto& b : g) b = static_cast<uint8_t>(rng());
    g[0] = static_cast<uint8_t>(1 + rng() % 3);
    g[1] = 0;
    g[2] = static_cast<uint8_t>(rng() % 6);
    out.push_back(g);
    auto flipped = out[rng() % valid];
    flipped[3 + rng() % (flipped.size() - 3)] ^= static_cast<uint8_t>(1u << (rng() % 8));
    out.push_back(flipped);
  }
  return out;
}

TEST(ChunkReference, IndependentDecoderAgrees) {
  if (std::system("python3 -c '' >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 not available";
  auto dir = std::filesystem::temp_directory_path() / ("chunk_ref_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto chunks = corpus();
  {
    std::ofstream in(dir / "in.txt");
    for (const auto& c : chunks) in << hex(c) << "\n";
  }
  std::string cmd = "python3 " + testing::source_dir() + "/tests/tsdb/chunk_reference_decoder.py < " +
                    (dir / "in.txt").string() + " > " + (dir / "out.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream out(dir / "out.txt");
  std::string line;
  size_t i = 0, ok = 0;
  while (std::getline(out, line)) {
    ASSERT_LT(i, chunks.size());
    std::string want = expected_line(chunks[i]);
    if (want == "ERR") {
      EXPECT_EQ(line.rfind("ERR", 0), 0u)
          << "chunk " << i << " " << hex(chunks[i]) << ": C++ rejects, reference: " << line;
    } else {
      EXPECT_EQ(line, want) << "chunk " << i << " " << hex(chunks[i]);
      ++ok;
    }
    ++i;
  }
  EXPECT_EQ(i, chunks.size());
  EXPECT_GT(ok, 100u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace llmon::tsdb
