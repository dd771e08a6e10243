// remote_write's CPU per sample (docs/remote_write.md "Performance"):
//   BM_EncodeCompress   one request body of 2000 samples (200 series x 10):
//                       WriteRequest encoding + snappy, per sample
//   BM_EncodeCompressV2 the same as io.prometheus.write.v2.Request
//   BM_QueueCatchUp     the whole send path of a catch-up over a real store:
//                       WAL read and decode, labels from the series log,
//                       grouping, encoding, snappy, position saves (the
//                       receiver answers 200 at once), per sample
// Run: build/bench/remote_write_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <atomic>
#include <filesystem>

#include "base/clock.h"
#include "base/log.h"
#include "remote/queue.h"
#include "remote/write_request.h"
#include "remote/write_request_v2.h"
#include "tsdb/db.h"

namespace llmon::remote {
namespace {

std::vector<model::Label> series_labels(int i) {
  return {{"__name__", "DCGM_FI_DEV_GPU_UTIL"},
          {"Hostname", "gpu-node-017"},
          {"UUID", "GPU-" + std::to_string(100000 + i)},
          {"gpu", std::to_string(i % 8)},
          {"instance", "10.0.3.17:9400"},
          {"job", "llmon"}};
}

void BM_EncodeCompress(benchmark::State& state) {
  std::vector<WriteSeries> batch;
  for (int i = 0; i < 200; ++i) {
    WriteSeries s{series_labels(i), {}};
    for (int j = 0; j < 10; ++j)
      s.samples.push_back({1733230000000 + j * 1000, static_cast<double>((i * 7 + j) % 100)});
    batch.push_back(std::move(s));
  }
  std::string raw;
  size_t bytes = 0;
  for (auto _ : state) {
    encode_write_request(batch, {}, raw);
    std::string body = snappy_compress(raw);
    bytes = body.size();
    benchmark::DoNotOptimize(body.data());
  }
  state.SetItemsProcessed(state.iterations() * 2000);
  state.counters["body_bytes_per_sample"] = static_cast<double>(bytes) / 2000;
  state.counters["raw_bytes_per_sample"] = static_cast<double>(raw.size()) / 2000;
}
BENCHMARK(BM_EncodeCompress);

// The same batch as protocol 2.0 (symbol table, metadata per series).
void BM_EncodeCompressV2(benchmark::State& state) {
  const WriteMetadata meta{2, "DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", ""};
  std::vector<WriteSeries> batch;
  for (int i = 0; i < 200; ++i) {
    WriteSeries s{series_labels(i), {}, &meta};
    for (int j = 0; j < 10; ++j)
      s.samples.push_back({1733230000000 + j * 1000, static_cast<double>((i * 7 + j) % 100)});
    batch.push_back(std::move(s));
  }
  std::string raw;
  size_t bytes = 0;
  for (auto _ : state) {
    encode_write_request_v2(batch, raw);
    std::string body = snappy_compress(raw);
    bytes = body.size();
    benchmark::DoNotOptimize(body.data());
  }
  state.SetItemsProcessed(state.iterations() * 2000);
  state.counters["body_bytes_per_sample"] = static_cast<double>(bytes) / 2000;
  state.counters["raw_bytes_per_sample"] = static_cast<double>(raw.size()) / 2000;
}
BENCHMARK(BM_EncodeCompressV2);

void BM_QueueCatchUp(benchmark::State& state) {
  const int series = 500, cycles = 400;  // 200 000 samples of backlog
  const std::string dir = std::filesystem::temp_directory_path() / "llmon-remote-bench";
  base::Logger log(base::LogLevel::kError);
  base::ManualClock clock(1733230000000);
  for (auto _ : state) {
    state.PauseTiming();
    std::filesystem::remove_all(dir);
    tsdb::DbOptions o;
    o.path = dir;
    o.background = false;
    o.min_free_bytes = 0;
    auto db = tsdb::Db::open(o, log, clock);
    if (!db) {
      state.SkipWithError(db.error().c_str());
      return;
    }
    std::vector<model::Labels> ls;
    for (int i = 0; i < series; ++i) ls.push_back(*model::Labels::make(series_labels(i)));
    for (int c = 0; c < cycles; ++c) {
      auto app = (*db)->appender();
      for (int i = 0; i < series; ++i) (void)app->append(0, ls[i], 1733230000000 + c * 1000, (i + c) % 100);
      (void)app->commit();
    }
    QueueOptions qo;
    qo.config.url = "http://127.0.0.1:1/";
    qo.storage_path = dir;
    qo.position_path = dir + "/remote_write/q.pos";
    qo.config.queue.batch_send_deadline_ms = 0;
    std::atomic<uint64_t> body_bytes = 0;
    auto q = Queue::create(
        std::move(qo),
        [&](std::string_view body, Protocol) -> Expected<net::http::Response> {
          body_bytes += body.size();
          net::http::Response r;
          r.status = 200;
          return r;
        },
        clock, log);
    state.ResumeTiming();
    while ((*q)->step()) {
    }
    state.PauseTiming();
    if ((*q)->stats().samples_sent != static_cast<uint64_t>(series) * cycles) state.SkipWithError("not all sent");
    state.counters["body_bytes_per_sample"] = static_cast<double>(body_bytes.load()) / (series * cycles);
    q->reset();
    db->reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * series * cycles);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_QueueCatchUp)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace llmon::remote

BENCHMARK_MAIN();
