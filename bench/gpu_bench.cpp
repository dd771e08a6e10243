// NVIDIA GPU collection benchmarks: llmon's NVML cycle measured against the
// fake libnvidia-ml.so.1 (tests/fake_nvml), so what is measured is llmon's
// overhead plus the fake's, never a driver's (docs/performance.md, "GPU
// collection"). Hosts of N H100-like GPUs x P processes, with a /proc tree
// of P*N processes for attribution, come from bench/gpu_scenario.py, run by
// this binary into a temporary directory that it removes at exit.
//
//  BM_NvmlFloor/<N>x<P>      the NVML calls of one steady-state cycle made
//                            directly in a loop, without llmon's logic
//  BM_Sampler/<N>x<P>        NvmlSampler::sample alone (one thread)
//  BM_CollectorCycle/<N>x<P>[/no_events|/no_processes]
//                            Scheduler::run_cycle with only the gpu
//                            collector: worker-thread hand-off, sampling,
//                            event watcher, process attribution, snapshot
//                            (variants: --collector.gpu.events=false, or
//                            --collector.gpu.processes=false)
// Counters: us_per_cycle and us_per_gpu (process CPU time measured around the
// loop), nvml_calls_per_gpu (per GPU per cycle, from NvmlLibrary's counters
// or, for the collector, from llmon_gpu_nvml_calls_total).
// Every cycle gets now_ms 1000 later than the previous one; every 10th is a
// "slow" cycle (power limits, MIG layout) as in the agent.
//
// `gpu_bench --calls` prints instead, for the shipped h100x8.json scenario,
// the NVML calls per GPU per cycle by function, from NvmlLibrary's counters
// and from the fake's own call log (LLMON_FAKE_NVML_CALL_LOG).
//
// Environment: LLMON_BENCH_FAKE_NVML (default <build>/fake_nvml/libnvidia-ml.so.1
// next to this binary's directory), LLMON_BENCH_SOURCE_DIR (default: from __FILE__).
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/setup.h"
#include "base/clock.h"
#include "base/log.h"
#include "collector/scheduler.h"
#include "config/settings.h"
#include "gpu/nvml/nvml_library.h"
#include "gpu/nvml/nvml_sampler.h"

namespace {

using namespace llmon;
namespace nv = llmon::gpu::nvml;
namespace fs = std::filesystem;

constexpr int64_t kStartMs = 1'700'000'000'000;
constexpr int kWarmupCycles = 3;  // enumeration, then the scenario's values settle at tick 2

double process_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string source_dir() {
  return env_or("LLMON_BENCH_SOURCE_DIR", fs::path(__FILE__).parent_path().parent_path().string());
}

std::string fake_library() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::string dflt = ec ? "fake_nvml/libnvidia-ml.so.1"
                        : (exe.parent_path().parent_path() / "fake_nvml" / "libnvidia-ml.so.1").string();
  return env_or("LLMON_BENCH_FAKE_NVML", dflt);
}

// Generated hosts, one per (GPUs, processes per GPU), under one temp dir.
class Hosts {
 public:
  struct Host {
    std::string scenario, proc, rootfs;
  };
  Hosts() {
    char tmpl[] = "/tmp/llmon-gpu-bench-XXXXXX";
    if (::mkdtemp(tmpl)) dir_ = tmpl;
  }
  ~Hosts() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  Hosts(const Hosts&) = delete;
  Hosts& operator=(const Hosts&) = delete;

  // The host, generated on first use; empty scenario and `why` on failure.
  Host get(int gpus, int per_gpu, std::string& why) {
    auto key = std::make_pair(gpus, per_gpu);
    if (auto it = hosts_.find(key); it != hosts_.end()) return it->second;
    if (dir_.empty()) {
      why = "mkdtemp failed";
      return {};
    }
    std::string out = dir_ + "/" + std::to_string(gpus) + "x" + std::to_string(per_gpu);
    std::string cmd = "python3 '" + source_dir() + "/bench/gpu_scenario.py' --gpus " + std::to_string(gpus) +
                      " --procs-per-gpu " + std::to_string(per_gpu) + " --out '" + out + "' > /dev/null";
    if (std::system(cmd.c_str()) != 0) {
      why = "failed: " + cmd;
      return {};
    }
    Host h{out + "/scenario.json", out + "/proc", out + "/rootfs"};
    hosts_[key] = h;
    return h;
  }

 private:
  std::string dir_;
  std::map<std::pair<int, int>, Host> hosts_;
};

// The fake library loaded and initialised on `scenario`; shut down at scope exit.
struct Nvml {
  std::unique_ptr<nv::NvmlLibrary> lib;
  std::string error;
  explicit Nvml(const std::string& scenario) {
    ::setenv("LLMON_FAKE_NVML_SCENARIO", scenario.c_str(), 1);
    auto l = nv::NvmlLibrary::load(fake_library());
    if (!l) {
      error = l.error();
      return;
    }
    lib = std::move(*l);
    nv::Return r = lib->call<nv::FnVoid>(nv::Fn::kInit);
    if (r != nv::kSuccess) {
      error = "nvmlInit: " + lib->error_string(r);
      lib.reset();
    }
  }
  ~Nvml() {
    if (lib) lib->call<nv::FnVoid>(nv::Fn::kShutdown);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
};

size_t process_count(const nv::Sample& s) {
  size_t n = 0;
  for (const auto& d : s.devices) n += d.processes.size();
  return n;
}

void set_time_counters(benchmark::State& st, double cpu_ns, int gpus) {
  const double cycles = static_cast<double>(st.iterations());
  if (cycles == 0) return;
  st.counters["us_per_cycle"] = cpu_ns / cycles / 1e3;
  st.counters["us_per_gpu"] = cpu_ns / cycles / 1e3 / gpus;
  st.counters["gpus"] = gpus;
}

// ---------------------------------------------------------------------------
// NvmlSampler::sample alone.

void bm_sampler(benchmark::State& st, Hosts* hosts, int gpus, int per_gpu) {
  std::string why;
  Hosts::Host host = hosts->get(gpus, per_gpu, why);
  if (host.scenario.empty()) return st.SkipWithError(why.c_str());
  Nvml nvml(host.scenario);
  if (!nvml.lib) return st.SkipWithError(nvml.error.c_str());
  base::Logger log(base::LogLevel::kError);
  nv::NvmlSampler sampler(*nvml.lib, log);
  nv::Sample s;
  int64_t now = kStartMs;
  for (int i = 0; i < kWarmupCycles; ++i) sampler.sample(now += 1000, s);
  if (!s.up || s.devices.size() != static_cast<size_t>(gpus) ||
      process_count(s) != static_cast<size_t>(gpus * per_gpu)) {
    std::string msg = "unexpected sample: up=" + std::to_string(s.up) + " devices=" + std::to_string(s.devices.size()) +
                      " processes=" + std::to_string(process_count(s)) + " " + s.reason;
    return st.SkipWithError(msg.c_str());
  }
  const uint64_t calls0 = nvml.lib->total_calls();
  const double t0 = process_cpu_ns();
  for (auto _ : st) {
    sampler.sample(now += 1000, s);
    benchmark::DoNotOptimize(s.devices.data());
  }
  set_time_counters(st, process_cpu_ns() - t0, gpus);
  st.counters["nvml_calls_per_gpu"] =
      static_cast<double>(nvml.lib->total_calls() - calls0) / static_cast<double>(st.iterations()) / gpus;
}

// ---------------------------------------------------------------------------
// The floor: the NVML calls a steady-state cycle makes (same functions, same
// arguments, same 1-in-10 slow calls), straight in a loop: no capability
// bookkeeping, no value conversion, no sample to fill.

// The field ids llmon's sampler asks for (nvml_sampler.cpp, kFields).
constexpr unsigned kFieldIds[][2] = {
    {nv::kFiMemoryTemp, 0},
    {nv::kFiTotalEnergyConsumption, 0},
    {nv::kFiPcieReplayCounter, 0},
    {nv::kFiNvlinkLinkCount, 0},
    {nv::kFiEccSbeVolTotal, 0},
    {nv::kFiEccDbeVolTotal, 0},
    {nv::kFiEccSbeAggTotal, 0},
    {nv::kFiEccDbeAggTotal, 0},
    {nv::kFiRetiredSbe, 0},
    {nv::kFiRetiredDbe, 0},
    {nv::kFiRetiredPending, 0},
    {nv::kFiRemappedCor, 0},
    {nv::kFiRemappedUnc, 0},
    {nv::kFiRemappedPending, 0},
    {nv::kFiRemappedFailure, 0},
    {nv::kFiNvlinkCrcFlitErrorTotal, 0},
    {nv::kFiNvlinkCrcDataErrorTotal, 0},
    {nv::kFiNvlinkReplayErrorTotal, 0},
    {nv::kFiNvlinkRecoveryErrorTotal, 0},
    {nv::kFiNvlinkThroughputDataTx, nv::kAllLinks},
    {nv::kFiNvlinkThroughputDataRx, nv::kAllLinks},
    {nv::kFiPcieCountTxBytes, 0},
    {nv::kFiPcieCountRxBytes, 0},
    {nv::kFiPerfPolicyPower, 0},
    {nv::kFiPerfPolicyThermal, 0},
    {nv::kFiPerfPolicySyncBoost, 0},
    {nv::kFiPerfPolicyBoardLimit, 0},
    {nv::kFiPerfPolicyLowUtilization, 0},
    {nv::kFiPerfPolicyReliability, 0},
    {nv::kFiClocksEventSwThermal, 0},
    {nv::kFiClocksEventHwThermal, 0},
    {nv::kFiClocksEventHwPowerBrake, 0},
};

class FloorCycle {
 public:
  explicit FloorCycle(const nv::NvmlLibrary& lib) : lib_(lib), proc_buf_(64 * sizeof(nv::ProcessInfoCc)) {
    unsigned count = 0;
    lib_.call<nv::FnUint>(nv::Fn::kDeviceCount, &count);
    for (unsigned i = 0; i < count; ++i) {
      nv::Device h = nullptr;
      if (lib_.call<nv::FnHandleByIndex>(nv::Fn::kHandleByIndex, i, &h) != nv::kSuccess) continue;
      Gpu g;
      g.h = h;
      gpus_.push_back(std::move(g));
    }
    // Setup, not measured: which optional calls and fields this GPU answers
    // (the sampler learns the same in its first cycle).
    for (auto& g : gpus_) {
      unsigned u = 0;
      g.fan = lib_.call<nv::FnDevUint>(nv::Fn::kFanSpeed, g.h, &u) == nv::kSuccess;
      std::vector<nv::FieldValue> all(std::size(kFieldIds));
      for (size_t i = 0; i < all.size(); ++i) {
        all[i] = nv::FieldValue{};
        all[i].fieldId = kFieldIds[i][0];
        all[i].scopeId = kFieldIds[i][1];
      }
      lib_.call<nv::FnDevFields>(nv::Fn::kFieldValues, g.h, static_cast<int>(all.size()), all.data());
      for (const auto& f : all)
        if (f.nvmlReturn == nv::kSuccess) g.fields.push_back(f);
    }
    util_buf_.resize(64);
  }
  size_t gpus() const { return gpus_.size(); }
  size_t fields(size_t gpu) const { return gpus_[gpu].fields.size(); }

  void cycle(bool slow) {
    unsigned count = 0, u = 0, period = 0, a = 0, b = 0;
    unsigned long long ull = 0;
    int ps = 0;
    lib_.call<nv::FnUint>(nv::Fn::kDeviceCount, &count);
    for (auto& g : gpus_) {
      nv::Device h = g.h;
      nv::Utilization ut{};
      lib_.call<nv::FnDevUtil>(nv::Fn::kUtilizationRates, h, &ut);
      lib_.call<nv::FnDevCodecUtil>(nv::Fn::kEncoderUtilization, h, &u, &period);
      lib_.call<nv::FnDevCodecUtil>(nv::Fn::kDecoderUtilization, h, &u, &period);
      nv::MemoryV2 m{};
      m.version = nv::kMemoryV2Version;
      lib_.call<nv::FnDevMemoryV2>(nv::Fn::kMemoryInfoV2, h, &m);
      lib_.call<nv::FnDevEnumUint>(nv::Fn::kTemperature, h, nv::kTemperatureGpu, &u);
      lib_.call<nv::FnDevUint>(nv::Fn::kPowerUsage, h, &u);
      lib_.call<nv::FnDevEnumUint>(nv::Fn::kClockInfo, h, nv::kClockSm, &u);
      lib_.call<nv::FnDevEnumUint>(nv::Fn::kClockInfo, h, nv::kClockMem, &u);
      lib_.call<nv::FnDevU64>(nv::Fn::kClockEventReasons, h, &ull);
      lib_.call<nv::FnDevInt>(nv::Fn::kPerformanceState, h, &ps);
      if (g.fan) lib_.call<nv::FnDevUint>(nv::Fn::kFanSpeed, h, &u);
      lib_.call<nv::FnDevUint>(nv::Fn::kPcieLinkGen, h, &u);
      lib_.call<nv::FnDevUint>(nv::Fn::kPcieLinkWidth, h, &u);
      if (slow) {
        lib_.call<nv::FnDevUint>(nv::Fn::kEnforcedPowerLimit, h, &u);
        lib_.call<nv::FnDevUint>(nv::Fn::kPowerManagementLimit, h, &u);
      }
      lib_.call<nv::FnDevFields>(nv::Fn::kFieldValues, h, static_cast<int>(g.fields.size()), g.fields.data());
      if (slow) lib_.call<nv::FnDevUintUint>(nv::Fn::kMigMode, h, &a, &b);
      unsigned n = 64;
      lib_.call<nv::FnDevProcesses>(nv::Fn::kComputeProcesses, h, &n, static_cast<void*>(proc_buf_.data()));
      unsigned procs = n;
      n = 64;
      lib_.call<nv::FnDevProcesses>(nv::Fn::kGraphicsProcesses, h, &n, static_cast<void*>(proc_buf_.data()));
      if (procs + n > 0) {
        n = static_cast<unsigned>(util_buf_.size());
        lib_.call<nv::FnDevProcessUtil>(nv::Fn::kProcessUtilization, h, util_buf_.data(), &n, g.last_util_ts);
        for (unsigned i = 0; i < n && i < util_buf_.size(); ++i)
          g.last_util_ts = std::max(g.last_util_ts, util_buf_[i].timeStamp);
      }
    }
  }

 private:
  struct Gpu {
    nv::Device h = nullptr;
    bool fan = false;
    std::vector<nv::FieldValue> fields;
    unsigned long long last_util_ts = 0;
  };
  const nv::NvmlLibrary& lib_;
  std::vector<Gpu> gpus_;
  std::vector<unsigned char> proc_buf_;
  std::vector<nv::ProcessUtilizationSample> util_buf_;
};

void bm_floor(benchmark::State& st, Hosts* hosts, int gpus, int per_gpu) {
  std::string why;
  Hosts::Host host = hosts->get(gpus, per_gpu, why);
  if (host.scenario.empty()) return st.SkipWithError(why.c_str());
  Nvml nvml(host.scenario);
  if (!nvml.lib) return st.SkipWithError(nvml.error.c_str());
  FloorCycle floor(*nvml.lib);
  if (floor.gpus() != static_cast<size_t>(gpus)) return st.SkipWithError("GPU count differs from the scenario");
  uint64_t cycle = 0;
  for (int i = 0; i < kWarmupCycles; ++i) floor.cycle(cycle++ % 10 == 0);
  const uint64_t calls0 = nvml.lib->total_calls();
  const double t0 = process_cpu_ns();
  for (auto _ : st) floor.cycle(cycle++ % 10 == 0);
  set_time_counters(st, process_cpu_ns() - t0, gpus);
  st.counters["nvml_calls_per_gpu"] =
      static_cast<double>(nvml.lib->total_calls() - calls0) / static_cast<double>(st.iterations()) / gpus;
}

// ---------------------------------------------------------------------------
// The whole collector: Scheduler::run_cycle with only `gpu` enabled, built
// from flags as the agent builds it.

double family_value(const model::Snapshot& s, std::string_view name) {
  const model::Family* f = s.find(name);
  return f && !f->series.empty() ? f->series[0].value : -1;
}
size_t family_series(const model::Snapshot& s, std::string_view name) {
  const model::Family* f = s.find(name);
  return f ? f->series.size() : 0;
}

struct CollectorVariant {
  bool events = true;
  bool processes = true;
};

void bm_collector(benchmark::State& st, Hosts* hosts, int gpus, int per_gpu, CollectorVariant v) {
  std::string why;
  Hosts::Host host = hosts->get(gpus, per_gpu, why);
  if (host.scenario.empty()) return st.SkipWithError(why.c_str());
  ::setenv("LLMON_FAKE_NVML_SCENARIO", host.scenario.c_str(), 1);
  std::vector<std::string> args = {"agent",
                                   "--collector.disable-defaults",
                                   "--collector.gpu",
                                   "--nvml.library=" + fake_library(),
                                   "--path.procfs=" + host.proc,
                                   "--path.rootfs=" + host.rootfs,
                                   "--collector.gpu.hostname=bench",
                                   std::string("--collector.gpu.events=") + (v.events ? "true" : "false"),
                                   std::string("--collector.gpu.processes=") + (v.processes ? "true" : "false")};
  auto settings = config::load(args, {});
  if (!settings) return st.SkipWithError(settings.error().c_str());
  base::SystemClock clock;
  base::Logger log(base::LogLevel::kError);
  auto cs = app::enabled_collectors(*settings, clock, log);
  if (cs.size() != 1) return st.SkipWithError("expected exactly the gpu collector");
  collector::Scheduler sched(std::move(cs), clock, log, 1000);
  int64_t ts = kStartMs;
  model::SnapshotPtr snap;
  for (int i = 0; i < kWarmupCycles; ++i) snap = sched.run_cycle(ts += 1000);
  const size_t procs = v.processes ? static_cast<size_t>(gpus * per_gpu) : 0;
  // Attribution must have done its work: every process alive, with a pod or container.
  if (family_series(*snap, "llmon_gpu_up") != static_cast<size_t>(gpus) ||
      family_series(*snap, "llmon_gpu_process_cpu_seconds_total") != procs ||
      family_series(*snap, "llmon_gpu_process_memory_bytes") != procs) {
    std::string msg = "unexpected snapshot: llmon_gpu_up " + std::to_string(family_series(*snap, "llmon_gpu_up")) +
                      " series, process cpu " +
                      std::to_string(family_series(*snap, "llmon_gpu_process_cpu_seconds_total")) + " (want " +
                      std::to_string(procs) + ")";
    return st.SkipWithError(msg.c_str());
  }
  const double calls0 = family_value(*snap, "llmon_gpu_nvml_calls_total");
  const double t0 = process_cpu_ns();
  for (auto _ : st) {
    snap = sched.run_cycle(ts += 1000);
    benchmark::DoNotOptimize(snap.get());
  }
  set_time_counters(st, process_cpu_ns() - t0, gpus);
  // llmon_gpu_nvml_calls_total is read at the start of each cycle's collect(): it lags one cycle, which
  // does not change the per-cycle mean over many cycles. It includes the event watcher's calls.
  st.counters["nvml_calls_per_gpu"] =
      (family_value(*snap, "llmon_gpu_nvml_calls_total") - calls0) / static_cast<double>(st.iterations()) / gpus;
  st.counters["series"] = static_cast<double>(snap->series_count());
}

// ---------------------------------------------------------------------------
// --calls: NVML calls per GPU per cycle, by function, on the shipped h100x8.json.

std::map<std::string, uint64_t> read_call_log(const std::string& path) {
  std::map<std::string, uint64_t> m;
  std::ifstream in(path);
  std::string name;
  uint64_t n = 0;
  while (in >> name >> n) m[name] = n;
  return m;
}

int print_calls() {
  const std::string scenario = source_dir() + "/tests/fake_nvml/scenarios/h100x8.json";
  char tmpl[] = "/tmp/llmon-gpu-calls-XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  const std::string log_path = std::string(tmpl) + "/calls.log";
  ::setenv("LLMON_FAKE_NVML_CALL_LOG", log_path.c_str(), 1);
  int rc = 0;
  {
    Nvml nvml(scenario);
    if (!nvml.lib) {
      std::fprintf(stderr, "%s\n", nvml.error.c_str());
      return 1;
    }
    const nv::NvmlLibrary& lib = *nvml.lib;
    base::Logger log(base::LogLevel::kError);
    nv::NvmlSampler sampler(lib, log);
    nv::Sample s;
    int64_t now = kStartMs;
    auto counts = [&] {
      std::vector<uint64_t> c(nv::kFnCount);
      for (size_t f = 0; f < nv::kFnCount; ++f) c[f] = lib.calls(static_cast<nv::Fn>(f));
      return c;
    };
    // Cycles 0-9 (0 enumerates and is slow); then 10 (slow) .. 19, measured.
    for (int i = 0; i < 10; ++i) sampler.sample(now += 1000, s);
    const double gpus = static_cast<double>(s.devices.size());
    auto c10 = counts();
    sampler.sample(now += 1000, s);  // cycle 10: slow
    auto c11 = counts();
    auto log10 = read_call_log(log_path);  // as of cycle 10's GetCount
    sampler.sample(now += 1000, s);        // cycle 11: fast
    auto c12 = counts();
    auto log11 = read_call_log(log_path);  // as of cycle 11's GetCount: the log's diff is cycle 10
    for (int i = 12; i < 20; ++i) sampler.sample(now += 1000, s);
    auto c20 = counts();
    sampler.sample(now += 1000, s);  // cycle 20: its GetCount writes the log as of the end of cycle 19
    auto log20 = read_call_log(log_path);

    std::printf("NVML calls per GPU per cycle, NvmlSampler on %s (%.0f GPUs, %zu processes)\n", scenario.c_str(), gpus,
                process_count(s));
    std::printf(
        "| Function (symbol resolved) | fast cycle | slow cycle (1 in 10) | mean of cycles 10-19 | fake's call log, "
        "cycles 10-19 |\n");
    std::printf("|---|---:|---:|---:|---:|\n");
    double t_fast = 0, t_slow = 0, t_mean = 0, t_log = 0;
    for (size_t f = 0; f < nv::kFnCount; ++f) {
      const double fast = static_cast<double>(c12[f] - c11[f]) / gpus;
      const double slow = static_cast<double>(c11[f] - c10[f]) / gpus;
      const double mean = static_cast<double>(c20[f] - c10[f]) / 10 / gpus;
      const std::string sym(lib.symbol(static_cast<nv::Fn>(f)));
      const double logged = sym.empty() ? 0 : static_cast<double>(log20[sym] - log10[sym]) / 10 / gpus;
      if (fast == 0 && slow == 0 && mean == 0 && logged == 0) continue;
      std::printf("| `%s` | %.3g | %.3g | %.3g | %.3g |\n", sym.c_str(), fast, slow, mean, logged);
      t_fast += fast;
      t_slow += slow;
      t_mean += mean;
      t_log += logged;
      if (mean != logged) rc = 2;  // the two counts must agree
    }
    std::printf("| **total** | **%.3g** | **%.3g** | **%.3g** | **%.3g** |\n", t_fast, t_slow, t_mean, t_log);
    std::printf("fake's log: ticks %llu -> %llu; cycle 10 (slow) alone from the log: %.3g per GPU\n",
                static_cast<unsigned long long>(log10["ticks"]), static_cast<unsigned long long>(log20["ticks"]), [&] {
                  double t = 0;
                  for (const auto& [k, v] : log11)
                    if (k != "ticks") t += static_cast<double>(v - log10[k]);
                  return t / gpus;
                }());
    FloorCycle floor(lib);
    if (floor.gpus() > 0)
      std::printf("nvmlDeviceGetFieldValues asks for %zu field ids per call on GPU 0 (those this scenario answers)\n",
                  floor.fields(0));
    if (rc != 0) std::printf("MISMATCH between NvmlLibrary counters and the fake's call log\n");
  }
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  return rc;
}

void register_all(Hosts* hosts) {
  struct Shape {
    int gpus, per_gpu;
  };
  const Shape shapes[] = {{1, 8}, {8, 8}, {64, 8}};
  auto reg = [](const std::string& name, auto&&... fn_and_args) {
    return benchmark::RegisterBenchmark(name.c_str(), fn_and_args...)
        ->Unit(benchmark::kMicrosecond)
        ->MeasureProcessCPUTime();
  };
  for (const auto& s : shapes) {
    std::string shape = std::to_string(s.gpus) + "x" + std::to_string(s.per_gpu);
    reg("BM_NvmlFloor/" + shape, bm_floor, hosts, s.gpus, s.per_gpu);
    reg("BM_Sampler/" + shape, bm_sampler, hosts, s.gpus, s.per_gpu);
    reg("BM_CollectorCycle/" + shape, bm_collector, hosts, s.gpus, s.per_gpu, CollectorVariant{});
    reg("BM_CollectorCycle/" + shape + "/no_events", bm_collector, hosts, s.gpus, s.per_gpu,
        CollectorVariant{.events = false});
    reg("BM_CollectorCycle/" + shape + "/no_processes", bm_collector, hosts, s.gpus, s.per_gpu,
        CollectorVariant{.processes = false});
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--calls") return print_calls();
  Hosts hosts;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all(&hosts);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
