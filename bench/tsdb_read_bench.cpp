// Read side of the time-series store (docs/performance.md "Time-series store: side by side").
// Measurement code, not the product.
//
//   tsdb_read_bench [--week-days 7] [--series 300] [--hours 24] [--db DIR] [benchmark flags]
//       Google Benchmarks on a Db directory. Without --db, one is built in a temp dir (removed at
//       the end) by appending 1 s cycles through tsdb::Db (WAL on, chunks persisted to segments,
//       then reopened read-only so every chunk is read back from its segment file):
//         bench_week{job="bench"}     --week-days of 1 s samples of a CPU-seconds-like counter
//         bench_metric_N{job="bench"} --series series over the last --hours, a mix like a host
//                                     page: 60 % constant, 20 % integer counters, 10 % gauges
//                                     with 2 decimals, 10 % noisy floats
//       With --db DIR (opened read-only: works beside a running agent) "all" is every series over
//       the directory's time range. The "one series" is, in both cases, the series that takes the
//       longest to read whole (least of two timed passes): the costliest to decode (its labels
//       are the benchmark's label).
//     BM_OneSeries/warm|cold    the whole range of the one series (a week): latency per read
//                               (time column) and decode throughput (items_per_second = samples/s)
//     BM_OneSeriesLastHour      the last hour of that series (seek past the older chunks)
//     BM_AllSeries/warm|cold    every sample of every series ({__name__=~".+"})
//     BM_IndexSelect/...        matcher evaluation on an in-memory index of 10 000 series
//     "cold" evicts the chunk segment files from the page cache before each read with
//     posix_fadvise(POSIX_FADV_DONTNEED) (no root needed; /proc/sys/vm/drop_caches is not
//     writable here) and reports how many of their pages were still resident (mincore) as
//     resident_pages_after_drop; on a VM the host may still cache the disk.
//
//   tsdb_read_bench --read-all DIR
//       One pass over every sample of every series of DIR (opened read-only), for the RSS
//       comparison in bench/tsdb_compare.sh: one JSON line with series, samples, open and read
//       seconds, samples/s, and this process's VmRSS/VmHWM after open and after the read.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "tsdb/db.h"
#include "tsdb/index.h"

using llmon::model::Label;
using llmon::model::Labels;
using llmon::model::Matcher;
using llmon::storage::SeriesRef;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kHourMs = 3600 * 1000;

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "tsdb_read_bench: %s\n", msg.c_str());
  std::exit(1);
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

long status_kb(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  size_t n = std::strlen(field);
  while (std::getline(f, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') return std::atol(line.c_str() + n + 1);
  }
  return -1;
}

Labels make_labels(std::vector<Label> pairs) {
  auto l = Labels::make(std::move(pairs));
  if (!l) die(l.error());
  return std::move(*l);
}

struct Config {
  int week_days = 7, series = 300, hours = 24;
  std::string db_dir;  // given: read-only, never removed
};

// The Db under test, opened read-only, and what the benchmarks select.
struct Fixture {
  std::string dir;
  bool temp = false;
  llmon::base::Logger log{llmon::base::LogLevel::kWarn, stderr};
  llmon::base::SystemClock clock;
  std::unique_ptr<llmon::tsdb::Db> db;
  int64_t min_t = 0, max_t = 0;
  std::vector<Matcher> one;  // selects the one (week) series
  std::string one_labels;
  std::vector<double> read_s;  // per series, for picking the one series
  std::vector<Labels> labels;
  uint64_t one_samples = 0, one_last_hour = 0, all_samples = 0;
  size_t all_series = 0;
  ~Fixture() {
    db.reset();
    if (temp) {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  }
};

std::unique_ptr<llmon::tsdb::Db> open_db(Fixture& f, bool read_only) {
  llmon::tsdb::DbOptions o;
  o.path = f.dir;
  o.read_only = read_only;
  o.background = false;
  o.retention_ms = 0;
  o.min_free_bytes = 0;
  o.fsync_interval_ms = 60'000;
  auto db = llmon::tsdb::Db::open(o, f.log, f.clock);
  if (!db) die(db.error());
  return std::move(*db);
}

// Appends the synthetic data cycle by cycle (one commit per second), persisting at every 2 h.
void build(Fixture& f, const Config& c) {
  auto db = open_db(f, false);
  const int64_t end = f.clock.now_ms() / 1000 * 1000 - 60'000;
  const int64_t week_start = end - int64_t{c.week_days} * 24 * kHourMs + 1000;
  const int64_t all_start = end - int64_t{c.hours} * kHourMs + 1000;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> nd(0, 1);
  Labels week = make_labels({{"__name__", "bench_week"}, {"job", "bench"}});
  std::vector<Labels> lbls;
  std::vector<double> x(static_cast<size_t>(c.series));
  for (int i = 0; i < c.series; ++i) {
    lbls.push_back(make_labels({{"__name__", "bench_metric_" + std::to_string(i)}, {"job", "bench"}}));
    x[static_cast<size_t>(i)] = 1000 + i;
  }
  std::vector<SeriesRef> refs(lbls.size(), 0);
  SeriesRef week_ref = 0;
  int64_t ticks = 12'345'678;
  int64_t next_flush = (week_start / (2 * kHourMs) + 1) * 2 * kHourMs;
  for (int64_t t = week_start; t <= end; t += 1000) {
    auto app = db->appender();
    ticks += 95 + static_cast<int64_t>(rng() % 11);
    auto r = app->append(week_ref, week, t, static_cast<double>(ticks) / 100);
    if (!r) die(r.error());
    week_ref = *r;
    if (t >= all_start) {
      for (size_t i = 0; i < lbls.size(); ++i) {
        int cls = static_cast<int>(i % 10);
        double& v = x[i];
        if (cls >= 6 && cls < 8) {
          v += static_cast<double>(rng() % 50);  // integer counter
        } else if (cls == 8) {
          v = std::round((v + nd(rng)) * 100) / 100;  // gauge, 2 decimals
        } else if (cls == 9) {
          v += nd(rng) * 3.7;  // noisy float
        }
        auto ri = app->append(refs[i], lbls[i], t, v);
        if (!ri) die(ri.error());
        refs[i] = *ri;
      }
    }
    if (auto st = app->commit(); !st.is_ok()) die(st.message());
    if (t >= next_flush) {
      if (auto st = db->flush(); !st.is_ok()) die(st.message());
      next_flush += 2 * kHourMs;
    }
  }
  if (auto st = db->flush(true); !st.is_ok()) die(st.message());
  if (auto st = db->close(); !st.is_ok()) die(st.message());
}

uint64_t count(llmon::tsdb::Db& db, int64_t mint, int64_t maxt, const std::vector<Matcher>& m, size_t* series) {
  auto q = db.querier(mint, maxt);
  if (!q) die(q.error());
  auto set = (*q)->select(mint, maxt, m);
  uint64_t n = 0;
  size_t s = 0;
  while (set->next()) {
    auto it = set->at().iterator();
    while (it->next()) ++n;
    if (!it->err().is_ok()) die(it->err().message());
    ++s;
  }
  if (!set->err().is_ok()) die(set->err().message());
  if (series != nullptr) *series = s;
  return n;
}

const std::vector<Matcher> kAll = {{Matcher::Type::kRe, "__name__", ".+"}};

Fixture& fixture(const Config* init = nullptr) {
  static std::unique_ptr<Fixture> f;
  if (init != nullptr) {
    f = std::make_unique<Fixture>();
    if (init->db_dir.empty()) {
      char tmpl[] = "/tmp/tsdb_read_bench.XXXXXX";
      if (::mkdtemp(tmpl) == nullptr) die(std::string("mkdtemp: ") + std::strerror(errno));
      f->dir = tmpl;
      f->temp = true;
      double t0 = now_s();
      build(*f, *init);
      std::fprintf(stderr, "built %s in %.1f s\n", f->dir.c_str(), now_s() - t0);
    } else {
      f->dir = init->db_dir;
    }
    f->db = open_db(*f, true);
    auto st = f->db->stats();
    f->min_t = st.min_t;
    f->max_t = st.max_t;
    // The one series: the slowest to read whole (the least of two passes, so the page cache
    // does not decide), i.e. the costliest to decode; in the synthetic store the week counter.
    for (int pass = 0; pass < 2; ++pass) {
      auto q = f->db->querier(f->min_t, f->max_t);
      if (!q) die(q.error());
      auto set = (*q)->select(f->min_t, f->max_t, kAll);
      size_t i = 0;
      while (set->next()) {
        uint64_t n = 0;
        double t0 = now_s();
        auto it = set->at().iterator();
        while (it->next()) ++n;
        double dt = now_s() - t0;
        if (pass == 0) {
          f->all_samples += n;
          ++f->all_series;
          f->read_s.push_back(dt);
          f->labels.push_back(set->at().labels());
        } else if (i < f->read_s.size()) {
          f->read_s[i] = std::min(f->read_s[i], dt);
        }
        ++i;
      }
    }
    size_t best = 0;
    for (size_t i = 1; i < f->read_s.size(); ++i) {
      if (f->read_s[i] > f->read_s[best]) best = i;
    }
    if (!f->labels.empty()) {
      f->one_labels = f->labels[best].to_string();
      for (const auto& p : f->labels[best].pairs()) f->one.push_back({Matcher::Type::kEq, p.name, p.value});
      f->one_samples = count(*f->db, f->min_t, f->max_t, f->one, nullptr);
    }
    if (f->one.empty()) die(f->dir + ": no series");
    f->one_last_hour = count(*f->db, f->max_t - kHourMs + 1, f->max_t, f->one, nullptr);
    std::fprintf(stderr, "%s: %zu series, %llu samples, %.1f h; one series: %s, %llu samples\n", f->dir.c_str(),
                 f->all_series, static_cast<unsigned long long>(f->all_samples),
                 static_cast<double>(f->max_t - f->min_t) / 3.6e6, f->one_labels.c_str(),
                 static_cast<unsigned long long>(f->one_samples));
  }
  return *f;
}

// Evicts the chunk segment files from the page cache; returns pages still resident.
uint64_t drop_segments(const std::string& dir) {
  uint64_t resident = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir + "/chunks", ec)) {
    int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
      if (p != MAP_FAILED) {
        long page = ::sysconf(_SC_PAGESIZE);
        std::vector<unsigned char> vec((static_cast<size_t>(st.st_size) + static_cast<size_t>(page) - 1) /
                                       static_cast<size_t>(page));
        if (::mincore(p, static_cast<size_t>(st.st_size), vec.data()) == 0) {
          for (unsigned char b : vec) resident += b & 1;
        }
        ::munmap(p, static_cast<size_t>(st.st_size));
      }
    }
    ::close(fd);
  }
  return resident;
}

void read_loop(benchmark::State& state, int64_t mint, int64_t maxt, const std::vector<Matcher>& m, uint64_t expect) {
  Fixture& f = fixture();
  bool cold = state.range(0) == 1;
  uint64_t resident = 0;
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      resident += drop_segments(f.dir);
      state.ResumeTiming();
    }
    uint64_t n = count(*f.db, mint, maxt, m, nullptr);
    if (n != expect) {
      state.SkipWithError("sample count changed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(expect));
  state.counters["samples"] = static_cast<double>(expect);
  if (cold)
    state.counters["resident_pages_after_drop"] =
        static_cast<double>(resident) / static_cast<double>(state.iterations());
}

void BM_OneSeries(benchmark::State& state) {
  Fixture& f = fixture();
  read_loop(state, f.min_t, f.max_t, f.one, f.one_samples);
  state.SetLabel(f.one_labels);
}
void BM_OneSeriesLastHour(benchmark::State& state) {
  Fixture& f = fixture();
  read_loop(state, f.max_t - kHourMs + 1, f.max_t, f.one, f.one_last_hour);
  state.SetLabel(f.one_labels);
}
void BM_AllSeries(benchmark::State& state) {
  Fixture& f = fixture();
  read_loop(state, f.min_t, f.max_t, kAll, f.all_samples);
  state.counters["series"] = static_cast<double>(f.all_series);
}

// Index: 10 000 series, 200 metric names x 50 devices.
const llmon::tsdb::Index& index10k() {
  static const llmon::tsdb::Index idx = [] {
    llmon::tsdb::Index i;
    for (int s = 0; s < 10000; ++s) {
      i.add(static_cast<SeriesRef>(s + 1), make_labels({{"__name__", "node_metric_" + std::to_string(s % 200)},
                                                        {"device", "dev" + std::to_string(s / 200)},
                                                        {"instance", "host0"},
                                                        {"job", "node"}}));
    }
    return i;
  }();
  return idx;
}

void BM_IndexSelect(benchmark::State& state) {
  const auto& idx = index10k();
  static const std::vector<std::vector<Matcher>> kCases = {
      {{Matcher::Type::kEq, "__name__", "node_metric_7"}},
      {{Matcher::Type::kEq, "__name__", "node_metric_7"}, {Matcher::Type::kRe, "device", "dev1.*"}},
      {{Matcher::Type::kRe, "__name__", "node_metric_1.*"}},
      {{Matcher::Type::kEq, "job", "node"}, {Matcher::Type::kNeq, "device", "dev3"}},
  };
  const auto& m = kCases[static_cast<size_t>(state.range(0))];
  size_t n = 0;
  for (auto _ : state) {
    auto p = idx.select(m);
    if (!p) {
      state.SkipWithError(p.error().c_str());
      break;
    }
    n = p->size();
    benchmark::DoNotOptimize(p->data());
  }
  state.counters["series_matched"] = static_cast<double>(n);
}

void BM_IndexFind(benchmark::State& state) {
  const auto& idx = index10k();
  Labels l = make_labels({{"__name__", "node_metric_77"}, {"device", "dev17"}, {"instance", "host0"}, {"job", "node"}});
  for (auto _ : state) benchmark::DoNotOptimize(idx.find(l));
}

int read_all(const std::string& dir) {
  Fixture f;
  f.dir = dir;
  double t0 = now_s();
  f.db = open_db(f, true);
  double open_s = now_s() - t0;
  long rss_open = status_kb("VmRSS"), hwm_open = status_kb("VmHWM");
  auto st = f.db->stats();
  size_t series = 0;
  t0 = now_s();
  uint64_t n = count(*f.db, st.min_t, st.max_t, kAll, &series);
  double read_s = now_s() - t0;
  std::printf(
      "{\"dir\": \"%s\", \"series\": %zu, \"samples\": %llu, \"hours\": %.2f, \"open_s\": %.3f, \"read_s\": %.3f, "
      "\"samples_per_s\": %.0f, \"rss_kb_after_open\": %ld, \"hwm_kb_after_open\": %ld, \"rss_kb_after_read\": %ld, "
      "\"hwm_kb_after_read\": %ld}\n",
      dir.c_str(), series, static_cast<unsigned long long>(n), static_cast<double>(st.max_t - st.min_t) / 3.6e6, open_s,
      read_s, static_cast<double>(n) / read_s, rss_open, hwm_open, status_kb("VmRSS"), status_kb("VmHWM"));
  return 0;
}

}  // namespace

BENCHMARK(BM_OneSeries)->ArgName("cold")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneSeriesLastHour)->ArgName("cold")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AllSeries)->ArgName("cold")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IndexSelect)->ArgName("case")->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_IndexFind);

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--read-all") == 0) return read_all(argv[2]);
  Config c;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + k);
      return argv[++i];
    };
    if (k == "--week-days") {
      c.week_days = std::stoi(val());
    } else if (k == "--series") {
      c.series = std::stoi(val());
    } else if (k == "--hours") {
      c.hours = std::stoi(val());
    } else if (k == "--db") {
      c.db_dir = val();
    } else {
      rest.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  fixture(&c);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;  // the fixture's destructor (static) removes a temp directory
}
