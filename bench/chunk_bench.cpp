// Chunk codec measurements (docs/format/chunk.md, docs/performance.md):
//   chunk_bench [benchmark flags]      encode/decode throughput (samples/s) per encoding
//   chunk_bench --sizes FILE...        bytes/sample per codec variant on recorded data
// FILE is Prometheus text with millisecond timestamps, one sample a line
// (`name{labels} value t_ms`), as written by gen_synth.py (OUT.prom) or by
// bench/chunk_data.py from a recording of llmon's /metrics. Chunk bytes only:
// no series index, no per-chunk references.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tsdb/chunk.h"

using llmon::model::Sample;
using llmon::tsdb::ChunkDecoder;
using llmon::tsdb::ChunkEncoder;
using llmon::tsdb::Encoding;

namespace {

// One hour of 1 s samples of a node_cpu_seconds_total-like counter (ticks/100).
std::vector<Sample> cpu_counter() {
  std::mt19937_64 rng(1);
  std::vector<Sample> out;
  int64_t ticks = 12'345'678;
  for (int i = 0; i < 3600; ++i) {
    ticks += 95 + static_cast<int64_t>(rng() % 6);
    out.push_back({1'700'000'000'000 + int64_t{1000} * i, static_cast<double>(ticks) / 100});
  }
  return out;
}

std::vector<Sample> random_gauge() {
  std::mt19937_64 rng(2);
  std::normal_distribution<double> n(0, 1);
  std::vector<Sample> out;
  double x = 100;
  for (int i = 0; i < 3600; ++i) out.push_back({1'700'000'000'000 + int64_t{1000} * i, x += n(rng)});
  return out;
}

const std::vector<Sample>& data(int which) {
  static const std::vector<Sample> kCpu = cpu_counter(), kGauge = random_gauge();
  return which == 0 ? kCpu : kGauge;
}

std::vector<uint8_t> encode_all(Encoding e, const std::vector<Sample>& samples) {
  if (e == Encoding::kPacked) return *llmon::tsdb::encode_packed(samples);
  ChunkEncoder enc(e);
  for (const auto& s : samples) (void)enc.append(s.t_ms, s.v);
  return enc.bytes();
}

// Encoding 3 is the seal: encode_packed() of the whole chunk (seal_chunk also
// decodes it once more to check it).
void BM_Encode(benchmark::State& state) {
  auto enc_kind = static_cast<Encoding>(state.range(0));
  const auto& samples = data(static_cast<int>(state.range(1)));
  for (auto _ : state) {
    if (enc_kind == Encoding::kPacked) {
      benchmark::DoNotOptimize(llmon::tsdb::encode_packed(samples));
      continue;
    }
    ChunkEncoder enc(enc_kind);
    for (const auto& s : samples) benchmark::DoNotOptimize(enc.append(s.t_ms, s.v));
    benchmark::DoNotOptimize(enc.bytes().data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(samples.size()));
}

void BM_Decode(benchmark::State& state) {
  auto enc_kind = static_cast<Encoding>(state.range(0));
  const auto& samples = data(static_cast<int>(state.range(1)));
  auto bytes = encode_all(enc_kind, samples);
  for (auto _ : state) {
    auto dec = ChunkDecoder::open(bytes);
    double sum = 0;
    while (dec->next()) sum += dec->at().v;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(samples.size()));
  state.counters["bytes_per_sample"] = static_cast<double>(bytes.size()) / static_cast<double>(samples.size());
}

// Args: encoding (1 xor, 2 xor-int, 3 packed), data (0 cpu counter, 1 random-walk gauge).
BENCHMARK(BM_Encode)->ArgNames({"enc", "data"})->ArgsProduct({{1, 2, 3}, {0, 1}});
BENCHMARK(BM_Decode)->ArgNames({"enc", "data"})->ArgsProduct({{1, 2, 3}, {0, 1}});

// ---- --sizes ----

struct Loaded {
  std::vector<std::vector<Sample>> series;
  size_t samples = 0, dropped = 0;
};

bool load(const char* path, Loaded& out) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", path);
    return false;
  }
  std::unordered_map<std::string, size_t> index;
  std::string line, last_key;
  size_t last_idx = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp2 = line.rfind(' ');
    size_t sp1 = sp2 == std::string::npos || sp2 == 0 ? std::string::npos : line.rfind(' ', sp2 - 1);
    if (sp1 == std::string::npos) continue;
    std::string key = line.substr(0, sp1);
    char* end = nullptr;
    double v = std::strtod(line.c_str() + sp1 + 1, &end);
    long long t = std::strtoll(line.c_str() + sp2 + 1, nullptr, 10);
    if (key != last_key) {
      auto [it, fresh] = index.emplace(key, out.series.size());
      if (fresh) out.series.emplace_back();
      last_key = key;
      last_idx = it->second;
    }
    auto& s = out.series[last_idx];
    if (!s.empty() && t <= s.back().t_ms) {
      ++out.dropped;  // out of order or duplicate: a store would reject it too
      continue;
    }
    s.push_back({t, v});
    ++out.samples;
  }
  return true;
}

// A chunk of samples as the store persists it: `e` kPacked means encoded as
// the head does (xor-int) and then sealed (seal_chunk).
std::vector<uint8_t> chunk_of(std::span<const Sample> s, Encoding e, bool timestamps_only) {
  ChunkEncoder enc(e == Encoding::kPacked ? Encoding::kXorInt : e);
  for (const auto& x : s) (void)enc.append(x.t_ms, timestamps_only ? 0 : x.v);
  if (e != Encoding::kPacked) return enc.bytes();
  auto sealed = llmon::tsdb::seal_chunk(enc.bytes());
  return sealed ? *sealed : enc.bytes();
}

// Chunks of chunk_len samples; chunk_len 0: cut at aligned 2 h boundaries as the head does.
size_t encoded_bytes(const Loaded& d, Encoding e, size_t chunk_len, bool timestamps_only, size_t* chunks = nullptr) {
  constexpr int64_t kRange = 2 * 3600 * 1000;
  size_t total = 0;
  for (const auto& s : d.series) {
    for (size_t i = 0; i < s.size();) {
      size_t j = i + 1;
      if (chunk_len == 0) {
        int64_t end = (s[i].t_ms / kRange + 1) * kRange;
        while (j < s.size() && s[j].t_ms < end && j - i < llmon::tsdb::kMaxChunkSamples) ++j;
      } else {
        j = std::min(s.size(), i + chunk_len);
      }
      total += chunk_of(std::span<const Sample>(s).subspan(i, j - i), e, timestamps_only).size();
      if (chunks != nullptr) ++*chunks;
      i = j;
    }
  }
  return total;
}

const char* value_class(const std::vector<Sample>& s) {
  bool constant = true, integer = true, decimal = true;
  for (const auto& x : s) {
    constant = constant && std::memcmp(&x.v, &s[0].v, sizeof(double)) == 0;
    int64_t n = 0;
    integer = integer && llmon::tsdb::detail::representable(x.v, 0, &n);
    decimal =
        decimal && (llmon::tsdb::detail::representable(x.v, 2, &n) || llmon::tsdb::detail::representable(x.v, 6, &n));
  }
  return constant ? "constant" : integer ? "integer" : decimal ? "decimal" : "float";
}

// Per value class: series, samples, bytes/sample per encoding at 3600 samples/chunk.
void class_table(const Loaded& d) {
  struct Row {
    size_t series = 0, samples = 0, xor_b = 0, int_b = 0, packed_b = 0;
  };
  std::map<std::string, Row> rows;
  for (const auto& s : d.series) {
    Loaded one;
    one.series.push_back(s);
    auto& r = rows[value_class(s)];
    ++r.series;
    r.samples += s.size();
    r.xor_b += encoded_bytes(one, Encoding::kXor, 3600, false);
    r.int_b += encoded_bytes(one, Encoding::kXorInt, 3600, false);
    r.packed_b += encoded_bytes(one, Encoding::kPacked, 3600, false);
  }
  std::printf(
      "\n| value class (3600 samples/chunk) | series | samples | xor B/sample | xor-int B/sample | "
      "xor-int sealed B/sample |\n|---|---:|---:|---:|---:|---:|\n");
  for (const auto& [name, r] : rows)
    std::printf("| %s | %zu | %zu | %.3f | %.3f | %.3f |\n", name.c_str(), r.series, r.samples,
                static_cast<double>(r.xor_b) / static_cast<double>(r.samples),
                static_cast<double>(r.int_b) / static_cast<double>(r.samples),
                static_cast<double>(r.packed_b) / static_cast<double>(r.samples));
}

int sizes(int argc, char** argv) {
  for (int f = 2; f < argc; ++f) {
    Loaded d;
    if (!load(argv[f], d)) return 1;
    std::printf("%s: %zu series, %zu samples (%zu out-of-order/duplicate dropped)\n", argv[f], d.series.size(),
                d.samples, d.dropped);
    std::printf(
        "| encoding | samples/chunk | chunks | chunk bytes | bytes/sample | timestamps + constant value "
        "|\n|---|---|---:|---:|---:|---:|\n");
    for (Encoding e : {Encoding::kXor, Encoding::kXorInt, Encoding::kPacked}) {
      for (size_t len : {size_t{120}, size_t{3600}, size_t{7200}, size_t{0}}) {
        size_t chunks = 0;
        size_t b = encoded_bytes(d, e, len, false, &chunks), bt = encoded_bytes(d, e, len, true);
        std::printf("| %s | %s | %zu | %zu | %.3f | %.3f |\n",
                    e == Encoding::kPacked ? "xor-int, sealed" : std::string(llmon::tsdb::encoding_name(e)).c_str(),
                    len == 0 ? "aligned 2 h" : std::to_string(len).c_str(), chunks, b,
                    static_cast<double>(b) / static_cast<double>(d.samples),
                    static_cast<double>(bt) / static_cast<double>(d.samples));
      }
    }
    class_table(d);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--sizes") == 0) return sizes(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
