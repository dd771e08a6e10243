// Collection-cycle benchmarks: llmon's collectors against the raw /proc read
// floor, measured in the same binary and the same run (docs/performance.md).
// BM_Floor is the raw floor: the files opened once, pread(fd, buf, 1 MiB, 0)
// each pass and every decimal number summed, plus statvfs("/") (the
// "pread+parse" pass of a stand-alone floor program); after the run a
// summary prints every benchmark's median CPU time as a ratio to it (and
// each collector against the floor of the files it reads).
// BM_PairedSameFiles and BM_PairedNodeSet alternate blocks of floor passes
// and collection cycles over the same files: the original eight collectors,
// and the node_exporter collectors of issue 15 (sockstat, netstat, ...).
// Reads the live /proc and /sys; numbers are only comparable within one run.
//
// Run: collect_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//        (names carry a "/process_time" suffix: CPU time is the whole process's)
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/commands.h"
#include "app/setup.h"
#include "base/clock.h"
#include "base/log.h"
#include "collector/registry.h"
#include "collector/scheduler.h"
#include "config/settings.h"
#include "exposition/text_writer.h"
#include "http/metrics_page.h"

namespace {

using namespace llmon;

// ---------------------------------------------------------------------------
// The floor: exactly floor.cpp's pread+parse pass (fds opened once, pread at
// offset 0 into one 1 MiB buffer, every decimal number summed, statvfs("/")).

constexpr const char* kFloorFiles[] = {
    "/proc/stat",    "/proc/meminfo",      "/proc/net/dev",         "/proc/diskstats",
    "/proc/loadavg", "/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io"};

std::vector<std::string> floor_files() {
  return {std::begin(kFloorFiles), std::end(kFloorFiles)};
}

uint64_t light_parse(const char* p, ssize_t n) {
  uint64_t s = 0;
  const char* e = p + n;
  while (p < e) {
    if (*p >= '0' && *p <= '9') {
      uint64_t v = 0;
      while (p < e && *p >= '0' && *p <= '9') v = v * 10 + static_cast<uint64_t>(*p++ - '0');
      s += v;
    } else {
      ++p;
    }
  }
  return s;
}

// Open descriptors for a set of files (missing ones are left out, as floor.cpp does).
class FloorFiles {
 public:
  // buffer: bytes asked per read (floor.cpp's 1 MiB; the collectors ask 4 KiB, and the kernel
  // allocates and zeroes the requested size for every read of a /proc/sys file). to_eof: read on
  // until a read returns 0, as the collectors do (seq_files answer one page per read).
  explicit FloorFiles(const std::vector<std::string>& paths, size_t buffer = size_t{1} << 20, bool to_eof = false)
      : buf_(buffer), to_eof_(to_eof) {
    for (const auto& p : paths) {
      if (::access(p.c_str(), R_OK) != 0) continue;
      int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) fds_.push_back(fd);
    }
  }
  ~FloorFiles() {
    for (int fd : fds_) ::close(fd);
  }
  FloorFiles(const FloorFiles&) = delete;
  FloorFiles& operator=(const FloorFiles&) = delete;

  // One pass; returns bytes read. with_statvfs adds statvfs("/").
  int64_t pass(bool with_statvfs, uint64_t& sum) {
    int64_t bytes = 0;
    for (int fd : fds_) {
      off_t off = 0;
      for (;;) {
        ssize_t n = ::pread(fd, buf_.data(), buf_.size(), off);
        if (n <= 0) break;
        bytes += n;
        off += n;
        sum += light_parse(buf_.data(), n);
        if (!to_eof_) break;
      }
    }
    if (with_statvfs) {
      struct statvfs sv;
      if (::statvfs("/", &sv) == 0) sum += sv.f_bavail;
    }
    return bytes;
  }
  size_t size() const { return fds_.size(); }

 private:
  std::vector<char> buf_;
  bool to_eof_;
  std::vector<int> fds_;
};

// The collectors' way of reading: 4 KiB reads to the end of each file.
constexpr size_t kCollectorReadSize = 4096;

void run_floor(benchmark::State& state, const std::vector<std::string>& paths, bool with_statvfs,
               size_t buffer = size_t{1} << 20, bool to_eof = false) {
  FloorFiles files(paths, buffer, to_eof);
  if (files.size() == 0 && !with_statvfs) {
    state.SkipWithError("none of the floor files is readable");
    return;
  }
  uint64_t sum = 0;
  int64_t bytes = 0;
  for (auto _ : state) {
    bytes = files.pass(with_statvfs, sum);
    benchmark::DoNotOptimize(sum);
  }
  state.counters["files"] = static_cast<double>(files.size());
  state.counters["bytes_per_pass"] = static_cast<double>(bytes);
}

void bm_floor(benchmark::State& state) {
  run_floor(state, floor_files(), true);
}

// The floor of the whole default cycle: every /proc and /sys file and every
// statfs the agent's cycles made, as bench/cycle_floor.sh records them with
// strace into the file named by $LLMON_CYCLE_FILES ("read PATH" / "statfs
// PATH" lines), read the collectors' way (4 KiB reads to EOF, descriptors
// kept open: no open, close or directory listing counted).
void bm_floor_of_all_defaults(benchmark::State& state) {
  const char* list = std::getenv("LLMON_CYCLE_FILES");
  if (!list || !*list) return state.SkipWithError("set LLMON_CYCLE_FILES (bench/cycle_floor.sh records it)");
  std::FILE* f = std::fopen(list, "r");
  if (!f) return state.SkipWithError("cannot read $LLMON_CYCLE_FILES");
  std::vector<std::string> reads;
  std::vector<std::string> statfs;
  char line[4096];
  while (std::fgets(line, sizeof line, f)) {
    std::string_view l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.remove_suffix(1);
    if (l.substr(0, 5) == "read ") reads.emplace_back(l.substr(5));
    if (l.substr(0, 7) == "statfs ") statfs.emplace_back(l.substr(7));
  }
  std::fclose(f);
  FloorFiles files(reads, kCollectorReadSize, true);
  uint64_t sum = 0;
  int64_t bytes = 0;
  for (auto _ : state) {
    bytes = files.pass(false, sum);
    for (const auto& p : statfs) {
      struct statvfs sv;
      if (::statvfs(p.c_str(), &sv) == 0) sum += sv.f_bavail;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.counters["files"] = static_cast<double>(files.size());
  state.counters["statfs"] = static_cast<double>(statfs.size());
  state.counters["bytes_per_pass"] = static_cast<double>(bytes);
}

// ---------------------------------------------------------------------------
// llmon collectors built the way the agent builds them (settings -> context).

// The collectors covering floor.cpp's files, and the files each one reads
// there (for the per-collector floor). "filesystem" is limited to "/".
struct SameFile {
  const char* collector;
  std::vector<std::string> files;
  bool statvfs;
};
const std::vector<SameFile>& same_files() {
  static const std::vector<SameFile> set = {
      {"loadavg", {"/proc/loadavg"}, false},
      {"stat", {"/proc/stat"}, false},
      {"cpu", {"/proc/stat"}, false},
      {"meminfo", {"/proc/meminfo"}, false},
      {"netdev", {"/proc/net/dev"}, false},
      {"diskstats", {"/proc/diskstats"}, false},
      {"pressure", {"/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io"}, false},
      {"filesystem", {}, true},
  };
  return set;
}

// Everything but "/" excluded, so filesystem does one statvfs like the floor.
std::vector<std::string> same_file_args() {
  return {"agent", "--collector.filesystem.mount-points-exclude=^/.+"};
}

struct Built {
  std::vector<collector::NamedCollector> collectors;
  std::string missing;  // names not (yet) in the registry, comma-separated
  std::string error;    // settings error
};

Built build_named(const std::vector<std::string>& names, const std::vector<std::string>& args, const base::Clock& clock,
                  base::Logger& log) {
  Built b;
  auto s = config::load(args, {});
  if (!s) {
    b.error = s.error();
    return b;
  }
  const collector::CollectorContext ctx = app::collector_context(*s, clock, log);
  for (const auto& n : names) {
    const collector::CollectorInfo* info = collector::find_collector(n);
    if (!info) {
      b.missing += (b.missing.empty() ? "" : ",") + n;
      continue;
    }
    b.collectors.push_back({n, info->make(ctx)});
  }
  return b;
}

struct Env {
  base::SystemClock clock;
  base::Logger log{base::LogLevel::kError};
  int64_t last_ts = 0;
  // A new timestamp for every cycle, as the agent's aligned ticks are: sources
  // shared within one cycle (ProcStatSource) must re-read on each iteration.
  int64_t next_cycle_ts() {
    last_ts = std::max(last_ts + 1000, clock.now_ms());
    return last_ts;
  }
};

void run_cycles(benchmark::State& state, collector::Scheduler& sched, Env& env) {
  size_t series = 0;
  for (auto _ : state) {
    model::SnapshotPtr snap = sched.run_cycle(env.next_cycle_ts());
    series = snap->series_count();
    benchmark::DoNotOptimize(series);
  }
  state.counters["series"] = static_cast<double>(series);
}

// A set's collectors behind a Scheduler; null with a reason when one is missing.
std::unique_ptr<collector::Scheduler> scheduler_for(const std::vector<SameFile>& set, Env& env, std::string& why) {
  std::vector<std::string> names;
  for (const auto& f : set) names.push_back(f.collector);
  Built b = build_named(names, same_file_args(), env.clock, env.log);
  if (!b.error.empty()) {
    why = b.error;
    return nullptr;
  }
  if (!b.missing.empty()) {
    why = "collectors not in the registry yet: " + b.missing;
    return nullptr;
  }
  return std::make_unique<collector::Scheduler>(std::move(b.collectors), env.clock, env.log, 1000);
}

std::unique_ptr<collector::Scheduler> same_file_scheduler(Env& env, std::string& why) {
  return scheduler_for(same_files(), env, why);
}

// The node_exporter collectors of issue 15 that read files (each with the
// files it reads; absent ones, such as /proc/schedstat on some kernels, are
// left out of the floor and make the collector report no data cheaply).
const std::vector<SameFile>& node_set() {
  static const std::vector<SameFile> set = {
      {"sockstat", {"/proc/net/sockstat", "/proc/net/sockstat6"}, false},
      {"softnet", {"/proc/net/softnet_stat"}, false},
      {"netstat", {"/proc/net/netstat", "/proc/net/snmp", "/proc/net/snmp6"}, false},
      {"udp_queues", {"/proc/net/udp", "/proc/net/udp6"}, false},
      {"arp", {"/proc/net/arp"}, false},
      {"conntrack",
       {"/proc/sys/net/netfilter/nf_conntrack_count", "/proc/sys/net/netfilter/nf_conntrack_max",
        "/proc/net/stat/nf_conntrack"},
       false},
      {"entropy", {"/proc/sys/kernel/random/entropy_avail", "/proc/sys/kernel/random/poolsize"}, false},
      {"filefd", {"/proc/sys/fs/file-nr"}, false},
      {"schedstat", {"/proc/schedstat"}, false},
  };
  return set;
}

std::vector<std::string> files_of(const std::vector<SameFile>& set) {
  std::vector<std::string> out;
  for (const auto& f : set)
    for (const auto& p : f.files)
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

void bm_collect_same_files(benchmark::State& state) {
  Env env;
  std::string why;
  auto sched = same_file_scheduler(env, why);
  if (!sched) return state.SkipWithError(why.c_str());
  run_cycles(state, *sched, env);
}

double process_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);  // every thread (filesystem's statvfs worker too)
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Paired: each iteration runs a block of kBlock floor passes, then a block of
// kBlock cycles of the same-file collectors, each block timed with the process
// CPU clock, so both see the same machine state; the ratio of the sums is
// steadier than the ratio of two separately run benchmarks on a busy machine.
void bm_paired(benchmark::State& state, const std::vector<SameFile>* set, std::vector<std::string> floor_paths,
               bool statvfs, size_t buffer, bool to_eof) {
  constexpr int kBlock = 20;
  Env env;
  std::string why;
  auto sched = scheduler_for(*set, env, why);
  if (!sched) return state.SkipWithError(why.c_str());
  FloorFiles files(floor_paths, buffer, to_eof);
  uint64_t sum = 0;
  double floor_ns = 0, cycle_ns = 0;
  int64_t blocks = 0;
  for (auto _ : state) {
    double t0 = process_cpu_ns();
    for (int i = 0; i < kBlock; ++i) files.pass(statvfs, sum);
    double t1 = process_cpu_ns();
    for (int i = 0; i < kBlock; ++i) sched->run_cycle(env.next_cycle_ts());
    double t2 = process_cpu_ns();
    floor_ns += t1 - t0;
    cycle_ns += t2 - t1;
    ++blocks;
    benchmark::DoNotOptimize(sum);
  }
  if (blocks == 0 || floor_ns <= 0) return;
  state.counters["floor_us"] = floor_ns / 1e3 / static_cast<double>(blocks * kBlock);
  state.counters["cycle_us"] = cycle_ns / 1e3 / static_cast<double>(blocks * kBlock);
  state.counters["ratio"] = cycle_ns / floor_ns;
}

// One collector alone (registry name), called directly as the scheduler does.
void bm_collector(benchmark::State& state, const std::string& name) {
  Env env;
  Built b = build_named({name}, same_file_args(), env.clock, env.log);
  if (!b.error.empty()) return state.SkipWithError(b.error.c_str());
  if (b.collectors.empty()) {
    std::string msg = "collector not in the registry yet: " + name;
    return state.SkipWithError(msg.c_str());
  }
  model::Snapshot snap;
  collector::Collector& c = *b.collectors[0].collector;
  bool ok = true;
  for (auto _ : state) {
    model::SnapshotBuilder out(snap, env.next_cycle_ts());
    ok = c.collect(out).is_ok();
    out.finish();
  }
  if (!ok) state.SetLabel("collect() failed");
  state.counters["series"] = static_cast<double>(snap.series_count());
}

Expected<std::vector<collector::NamedCollector>> default_collectors(const base::Clock& clock, base::Logger& log) {
  auto s = config::load({"agent"}, {});
  if (!s) return s.status();
  return app::enabled_collectors(*s, clock, log);
}

void bm_collect_all_defaults(benchmark::State& state) {
  Env env;
  auto cs = default_collectors(env.clock, env.log);
  if (!cs) return state.SkipWithError(cs.error().c_str());
  const double n = static_cast<double>(cs->size());
  collector::Scheduler sched(std::move(*cs), env.clock, env.log, 1000);
  run_cycles(state, sched, env);
  state.counters["collectors"] = n;
}

// A realistic snapshot for rendering: two cycles of every default collector.
Expected<model::SnapshotPtr> default_snapshot() {
  Env env;
  auto cs = default_collectors(env.clock, env.log);
  if (!cs) return cs.status();
  collector::Scheduler sched(std::move(*cs), env.clock, env.log, 1000);
  sched.run_cycle(env.next_cycle_ts());
  return sched.run_cycle(env.next_cycle_ts());
}

void bm_render_page(benchmark::State& state, exposition::Format format) {
  auto snap = default_snapshot();
  if (!snap) return state.SkipWithError(snap.error().c_str());
  std::string page;
  page.reserve(size_t{64} * 1024);
  for (auto _ : state) {
    exposition::write_page(**snap, format, page);
    benchmark::DoNotOptimize(page.data());
  }
  const double series = static_cast<double>((*snap)->series_count());
  state.counters["series"] = series;
  state.counters["bytes"] = static_cast<double>(page.size());
  // Seconds per series per iteration, shown in the time unit of the report.
  state.counters["per_series"] =
      benchmark::Counter(series, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void bm_gzip(benchmark::State& state) {
  auto snap = default_snapshot();
  if (!snap) return state.SkipWithError(snap.error().c_str());
  std::string page;
  exposition::write_page(**snap, exposition::Format::kText004, page);
  const int level = static_cast<int>(state.range(0));  // MetricsPage uses zlib's level 6
  size_t out = 0;
  for (auto _ : state) {
    std::string z = http::gzip_compress(page, level);
    out = z.size();
    benchmark::DoNotOptimize(z.data());
  }
  state.counters["bytes_in"] = static_cast<double>(page.size());
  state.counters["bytes_out"] = static_cast<double>(out);
}

// ---------------------------------------------------------------------------
// Console output plus a closing table of ratios to BM_Floor (median process CPU
// time per iteration; BM_PairedSameFiles reports its own paired ratio).

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // order: benchmark names in registration order (the table follows it).
  RatioReporter(std::vector<std::string> order, bool color)
      : ConsoleReporter(color ? OO_ColorTabular : OO_Tabular), names_(std::move(order)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.iterations <= 0) continue;
      std::string name = r.run_name.str();
      // MeasureProcessCPUTime() appends "/process_time"; the table uses the registered names.
      constexpr std::string_view kSuffix = "/process_time";
      if (name.size() > kSuffix.size() && name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
        name.resize(name.size() - kSuffix.size());
      auto ratio = r.counters.find("ratio");
      auto cycle = r.counters.find("cycle_us");
      const bool is_paired = ratio != r.counters.end() && cycle != r.counters.end();
      if (r.run_type == Run::RT_Aggregate) {
        if (r.aggregate_name == "median") {
          median_[name] = {r.GetAdjustedCPUTime(), r.time_unit};
          if (is_paired) paired_median_[name] = {ratio->second.value, cycle->second.value};
        }
      } else {
        if (is_paired) paired_[name].push_back({ratio->second.value, cycle->second.value});
        samples_[name].push_back(r.GetAdjustedCPUTime());
        unit_[name] = r.time_unit;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    auto ns = [&](const std::string& name) -> double {
      auto m = median_.find(name);
      if (m != median_.end()) return to_ns(m->second.first, m->second.second);
      auto s = samples_.find(name);
      if (s == samples_.end() || s->second.empty()) return -1;
      std::vector<double> v = s->second;
      std::sort(v.begin(), v.end());
      return to_ns(v[v.size() / 2], unit_[name]);
    };
    // (ratio, cycle_us) of a paired benchmark: the median aggregate, else the median run.
    auto paired = [&](const std::string& name) -> std::pair<double, double> {
      auto m = paired_median_.find(name);
      if (m != paired_median_.end()) return m->second;
      auto s = paired_.find(name);
      if (s == paired_.end() || s->second.empty()) return {-1, -1};
      std::vector<std::pair<double, double>> v = s->second;
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double floor = ns("BM_Floor");
    std::printf("\nMedian CPU time per iteration, and ratio to BM_Floor (%s):\n",
                floor > 0 ? "floor.cpp pread+parse pass" : "BM_Floor not run");
    for (const auto& n : names_) {
      double t = ns(n);
      if (t < 0) continue;
      if (auto [ratio, cycle_us] = paired(n); ratio > 0) {
        std::printf("  %-40s %12.2f us   %7.2fx floor (paired blocks, per cycle)\n", n.c_str(), cycle_us, ratio);
        continue;
      }
      std::printf("  %-40s %12.2f us", n.c_str(), t / 1e3);
      if (floor > 0) std::printf("   %7.2fx floor", t / floor);
      // A single collector against the floor of its own files.
      const std::string own = "BM_FloorOf/" + n.substr(n.find('/') + 1);
      if (n.rfind("BM_Collector/", 0) == 0) {
        double f = ns(own);
        if (f > 0) std::printf("   %7.2fx its files' floor", t / f);
      }
      std::printf("\n");
    }
    std::fflush(stdout);
  }

 private:
  static double to_ns(double v, benchmark::TimeUnit u) {
    switch (u) {
      case benchmark::kNanosecond:
        return v;
      case benchmark::kMicrosecond:
        return v * 1e3;
      case benchmark::kMillisecond:
        return v * 1e6;
      case benchmark::kSecond:
        return v * 1e9;
    }
    return v;
  }
  std::vector<std::string> names_;
  std::map<std::string, std::vector<double>> samples_;
  std::map<std::string, benchmark::TimeUnit> unit_;
  std::map<std::string, std::pair<double, benchmark::TimeUnit>> median_;
  std::map<std::string, std::vector<std::pair<double, double>>> paired_;  // (ratio, cycle_us) counters
  std::map<std::string, std::pair<double, double>> paired_median_;
};

// Registers every benchmark; returns their names in order.
std::vector<std::string> register_all() {
  using benchmark::kMicrosecond;
  std::vector<std::string> names;
  auto reg = [&](const std::string& name, auto&&... fn_and_args) {
    names.push_back(name);
    // Process CPU time: the filesystem collector's statvfs runs on a worker thread.
    return benchmark::RegisterBenchmark(name.c_str(), fn_and_args...)->Unit(kMicrosecond)->MeasureProcessCPUTime();
  };
  reg("BM_Floor", bm_floor);
  reg("BM_FloorOfAllDefaults", bm_floor_of_all_defaults);
  reg("BM_CollectSameFiles", bm_collect_same_files);
  reg("BM_PairedSameFiles", bm_paired, &same_files(), floor_files(), true, size_t{1} << 20, false);
  // Issue 15's set against the collectors' own way of reading (4 KiB to EOF): floor.cpp's 1 MiB
  // reads make /proc/sys files cost ~60 us each in the kernel and the floor meaningless there.
  reg("BM_PairedNodeSet", bm_paired, &node_set(), files_of(node_set()), false, kCollectorReadSize, true);
  reg("BM_CollectAllDefaults", bm_collect_all_defaults);
  reg("BM_RenderPage/text", bm_render_page, exposition::Format::kText004);
  reg("BM_RenderPage/openmetrics", bm_render_page, exposition::Format::kOpenMetrics100);
  reg("BM_Gzip", bm_gzip)->Arg(6)->Arg(1);
  names.pop_back();  // reported as BM_Gzip/6 and BM_Gzip/1
  names.push_back("BM_Gzip/6");
  names.push_back("BM_Gzip/1");
  // Per collector of the paired sets: the collector, and the floor of its files.
  for (const auto* set : {&same_files(), &node_set()}) {
    for (const auto& f : *set) {
      std::string name = f.collector;
      reg("BM_Collector/" + name, bm_collector, name);
      if (set == &node_set())
        reg("BM_FloorOf/" + name, run_floor, f.files, f.statvfs, kCollectorReadSize, true);
      else
        reg("BM_FloorOf/" + name, run_floor, f.files, f.statvfs, size_t{1} << 20, false);
    }
  }
  // Every other registered collector, for hot-spot hunting.
  for (const auto& c : collector::builtin_collectors()) {
    std::string name(c.name);
    bool listed = false;
    for (const auto* set : {&same_files(), &node_set()})
      for (const auto& f : *set) listed = listed || name == f.collector;
    if (!listed) reg("BM_Collector/" + name, bm_collector, name);
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  // A custom display reporter does not see --benchmark_color; honour it here.
  bool color = ::isatty(STDOUT_FILENO) != 0;
  for (int i = 1; i < argc; ++i) {
    std::string_view a(argv[i]);
    if (a == "--benchmark_color=false" || a == "--benchmark_color=no" || a == "--benchmark_color=0") color = false;
    if (a == "--benchmark_color=true" || a == "--benchmark_color=yes" || a == "--benchmark_color=1") color = true;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter(register_all(), color);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
