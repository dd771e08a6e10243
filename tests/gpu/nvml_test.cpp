// The NVML back end against the fake libnvidia-ml.so.1 (tests/fake_nvml),
// loaded through the real dlopen path: symbol resolution with fallbacks,
// call counts per GPU per cycle, the 32-byte process stride, lost GPUs,
// counter wraps, garbage values and Xid events.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "gpu/nvml/event_watcher.h"
#include "gpu/nvml/nvml_library.h"
#include "gpu/nvml/nvml_sampler.h"
#include "support/test_paths.h"

namespace llmon::gpu::nvml {
namespace {

std::string build_dir() {
  std::string bin = testing::llmon_binary();
  return bin.substr(0, bin.rfind('/'));
}
std::string fake() {
  return build_dir() + "/fake_nvml/libnvidia-ml.so.1";
}
std::string legacy() {
  return build_dir() + "/fake_nvml/legacy/libnvidia-ml.so.1";
}
std::string scenario(const char* name) {
  return testing::source_dir() + "/tests/fake_nvml/scenarios/" + name;
}

// Loads a fake library and initialises it on `scenario_file`.
std::unique_ptr<NvmlLibrary> open_fake(const std::string& lib, const std::string& scenario_file) {
  ::setenv("LLMON_FAKE_NVML_SCENARIO", scenario_file.c_str(), 1);
  auto l = NvmlLibrary::load(lib);
  EXPECT_TRUE(l) << l.error();
  if (!l) return nullptr;
  EXPECT_EQ((*l)->call<FnVoid>(Fn::kInit), kSuccess);
  return std::move(*l);
}

const DeviceSample* by_gpu(const Sample& s, const std::string& gpu) {
  for (const auto& d : s.devices)
    if (d.id.gpu == gpu) return &d;
  return nullptr;
}

TEST(NvmlLibrary, MissingLibraryAndNonNvmlLibraryAreClearErrors) {
  auto none = NvmlLibrary::load("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << none.error();
  auto z = NvmlLibrary::load("libz.so.1");
  ASSERT_FALSE(z);
  EXPECT_NE(z.error().find("is not an NVML library"), std::string::npos) << z.error();
}

TEST(NvmlLibrary, ResolvesNewestSymbolsAndFallsBackOnAnOlderDriver) {
  auto cur = NvmlLibrary::load(fake());
  ASSERT_TRUE(cur) << cur.error();
  EXPECT_EQ((*cur)->symbol(Fn::kComputeProcesses), "nvmlDeviceGetComputeRunningProcesses_v3");
  EXPECT_EQ((*cur)->symbol(Fn::kMemoryInfoV2), "nvmlDeviceGetMemoryInfo_v2");
  EXPECT_EQ((*cur)->symbol(Fn::kPciInfo), "nvmlDeviceGetPciInfo_v3");
  EXPECT_EQ((*cur)->symbol(Fn::kClockEventReasons), "nvmlDeviceGetCurrentClocksEventReasons");
  auto old = NvmlLibrary::load(legacy());
  ASSERT_TRUE(old) << old.error();
  EXPECT_EQ((*old)->symbol(Fn::kComputeProcesses), "nvmlDeviceGetComputeRunningProcesses_v2");
  EXPECT_FALSE((*old)->has(Fn::kMemoryInfoV2));
  EXPECT_EQ((*old)->symbol(Fn::kClockEventReasons), "nvmlDeviceGetCurrentClocksThrottleReasons");
  EXPECT_EQ((*old)->symbol(Fn::kEventSetWait), "nvmlEventSetWait");
  EXPECT_EQ((*old)->call<FnDevMemoryV2>(Fn::kMemoryInfoV2, nullptr, nullptr), kErrFunctionNotFound);
}

// A GPU without a video clock (NOT_SUPPORTED for that clock type) keeps its
// SM, memory and graphics clocks: the unsupported type stops being asked,
// nvmlDeviceGetClockInfo stays on.
TEST(NvmlSampler, AnUnsupportedClockTypeDoesNotSwitchTheClockCallOff) {
  std::ifstream in(scenario("h100x8.json"));
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  const std::string video = "\"clock_video_mhz\": [765, 1755, 1755],";
  size_t at = json.find(video);  // the first GPU's
  ASSERT_NE(at, std::string::npos);
  json.erase(at, video.size());
  std::string path = ::testing::TempDir() + "/no_video_clock.json";
  std::ofstream(path) << json;
  auto lib = open_fake(fake(), path);
  ASSERT_TRUE(lib);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  NvmlSampler sampler(*lib, log);
  Sample s;
  for (int tick = 0; tick < 4; ++tick) sampler.sample(1000 * (tick + 1), s);
  const auto* g0 = by_gpu(s, "0");
  const auto* g1 = by_gpu(s, "1");
  ASSERT_NE(g0, nullptr);
  ASSERT_NE(g1, nullptr);
  EXPECT_TRUE(std::isnan(g0->get(V::kVideoClockHz)));
  EXPECT_DOUBLE_EQ(g0->get(V::kSmClockHz), 1980e6);
  EXPECT_DOUBLE_EQ(g0->get(V::kMemClockHz), 2619e6);
  EXPECT_DOUBLE_EQ(g0->get(V::kGraphicsClockHz), 1980e6);
  EXPECT_DOUBLE_EQ(g0->get(V::kGraphicsClockMaxHz), 1980e6);
  EXPECT_DOUBLE_EQ(g1->get(V::kVideoClockHz), 1755e6);
  EXPECT_DOUBLE_EQ(g1->get(V::kVideoClockMaxHz), 1755e6);
  // Per cycle: GPU 0 asks SM, memory and graphics; the others video too.
  uint64_t before = lib->calls(Fn::kClockInfo);
  sampler.sample(5000, s);
  EXPECT_EQ(lib->calls(Fn::kClockInfo) - before, 3u + 7u * 4u);
  EXPECT_DOUBLE_EQ(by_gpu(s, "0")->get(V::kSmClockHz), 1980e6);
  lib->call<FnVoid>(Fn::kShutdown);
}

TEST(NvmlSampler, EightH100sWithFewCallsPerGpuPerCycle) {
  auto lib = open_fake(fake(), scenario("h100x8.json"));
  ASSERT_TRUE(lib);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  NvmlSampler sampler(*lib, log);
  Sample s;
  for (int tick = 0; tick < 3; ++tick) sampler.sample(1000 * (tick + 1), s);  // slow cycle 0, settle by tick 2
  uint64_t before = lib->total_calls();
  sampler.sample(4000, s);
  uint64_t per_cycle = lib->total_calls() - before;
  ASSERT_TRUE(s.up);
  ASSERT_EQ(s.devices.size(), 8u);
  // Steady state: GetCount once, then per GPU the fast calls (see
  // nvml_sampler.h); 12 processes add process lists and utilisation.
  double per_gpu = static_cast<double>(per_cycle - 1) / 8;
  EXPECT_LE(per_gpu, 20.0) << per_cycle << " calls in one cycle";
  EXPECT_GE(per_gpu, 10.0) << per_cycle << " calls in one cycle";
  const auto* g0 = by_gpu(s, "0");
  ASSERT_NE(g0, nullptr);
  EXPECT_EQ(g0->id.uuid, "GPU-4f6c2a1e-9b3d-7e85-0c14-a2d8f61b93e7");
  EXPECT_EQ(g0->id.pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(g0->id.device, "nvidia0");
  EXPECT_DOUBLE_EQ(g0->get(V::kGpuUtil), 0.97);
  EXPECT_DOUBLE_EQ(g0->get(V::kFbUsedBytes), 76235669504.0);  // v2: reserved not included
  EXPECT_DOUBLE_EQ(g0->get(V::kFbReservedBytes), 607125504.0);
  EXPECT_DOUBLE_EQ(g0->get(V::kPowerW), 652.0);
  EXPECT_DOUBLE_EQ(g0->get(V::kSmClockHz), 1980e6);
  EXPECT_TRUE(std::isnan(g0->get(V::kFanSpeed)));  // SXM: NOT_SUPPORTED, not 0
  // The fan call answered NOT_SUPPORTED once and is not made again.
  uint64_t fan = lib->calls(Fn::kFanSpeed);
  uint64_t fan_ns = lib->nanos(Fn::kFanSpeed);
  uint64_t util_ns = lib->nanos(Fn::kUtilizationRates);
  sampler.sample(5000, s);
  EXPECT_EQ(lib->calls(Fn::kFanSpeed), fan);
  // Time inside the driver is added per function, only for calls made.
  EXPECT_EQ(lib->nanos(Fn::kFanSpeed), fan_ns);
  EXPECT_GT(lib->nanos(Fn::kUtilizationRates), util_ns);
  EXPECT_EQ(lib->nanos(Fn::kShutdown), 0u);
  ASSERT_EQ(g0->processes.size(), 1u);
  EXPECT_EQ(g0->processes[0].pid, 4101u);
  // GPM (Hopper): metrics between the last two samples, percent -> ratio.
  EXPECT_DOUBLE_EQ(g0->get(V::kGpmSmActive), 0.895);
  EXPECT_DOUBLE_EQ(g0->get(V::kGpmTensorActive), 0.6125);
  EXPECT_DOUBLE_EQ(g0->get(V::kGpmDramActive), 0.475);
  EXPECT_DOUBLE_EQ(g0->get(V::kPcieTxBytesPerSec), 405.2734375 * 1048576);  // GPM's rate, not the counter's
  EXPECT_EQ(lib->calls(Fn::kGpmSampleAlloc), 16u);                          // two per GPU, once
  lib->call<FnVoid>(Fn::kShutdown);
}

TEST(NvmlSampler, NoGpmOnAmpere) {
  auto lib = open_fake(fake(), scenario("a100_mig.json"));
  ASSERT_TRUE(lib);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  NvmlSampler sampler(*lib, log);
  Sample s;
  for (int t = 0; t < 3; ++t) sampler.sample(1000 * (t + 1), s);
  ASSERT_EQ(s.devices.size(), 2u);
  for (const auto& d : s.devices) EXPECT_FALSE(d.has(V::kGpmSmActive)) << d.id.gpu;
  EXPECT_EQ(lib->calls(Fn::kGpmSampleGet), 0u);
  EXPECT_EQ(lib->calls(Fn::kGpmQueryDeviceSupport), 2u);  // asked once per GPU, never again
  // MIG: three instances with their profiles on GPU 0.
  const auto* g0 = by_gpu(s, "0");
  ASSERT_NE(g0, nullptr);
  ASSERT_EQ(g0->mig.size(), 3u);
  EXPECT_EQ(g0->mig[0].id.mig_profile, "3g.40gb");
  EXPECT_EQ(g0->mig[0].id.mig_instance_id, "1");
  lib->call<FnVoid>(Fn::kShutdown);
}

TEST(NvmlSampler, DetectsThe32ByteProcessStrideOfR535Drivers) {
  auto lib = open_fake(fake(), scenario("legacy_r535.json"));
  ASSERT_TRUE(lib);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  NvmlSampler sampler(*lib, log);
  Sample s;
  sampler.sample(1000, s);
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& p = s.devices[0].processes;
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].pid, 4101u);
  EXPECT_DOUBLE_EQ(p[0].used_memory_bytes, 32212254720.0);
  EXPECT_EQ(p[1].pid, 5201u);
  EXPECT_DOUBLE_EQ(p[1].used_memory_bytes, 8589934592.0);
  lib->call<FnVoid>(Fn::kShutdown);
}

TEST(NvmlSampler, LostGpuComesBackGarbageIsDroppedAndCountersUnwrap) {
  auto lib = open_fake(fake(), scenario("faults.json"));
  ASSERT_TRUE(lib);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  NvmlSampler sampler(*lib, log);
  std::vector<Sample> cycles(8);
  // Tick 4 hangs 3 s in nvmlDeviceGetPowerUsage (the sampler itself waits;
  // the backend's timeout is tested by tests/integration/gpu_faults_test.sh).
  for (int t = 0; t < 8; ++t) sampler.sample(1000 * (t + 1), cycles[t]);
  // GPU 1 is lost at ticks 3..5.
  const auto* before = by_gpu(cycles[2], "1");
  const auto* lost = by_gpu(cycles[3], "1");
  ASSERT_NE(before, nullptr);
  ASSERT_NE(lost, nullptr);
  EXPECT_FALSE(before->lost);
  EXPECT_TRUE(lost->lost);
  EXPECT_TRUE(std::isnan(lost->get(V::kGpuUtil)));
  const auto* back = by_gpu(cycles[7], "1");
  ASSERT_NE(back, nullptr);
  EXPECT_FALSE(back->lost);
  EXPECT_EQ(back->id.uuid, before->id.uuid);
  // Tick 1 has gpu_util 250 % and a temperature of 4294967295: dropped.
  const auto* g0t1 = by_gpu(cycles[1], "0");
  ASSERT_NE(g0t1, nullptr);
  EXPECT_TRUE(std::isnan(g0t1->get(V::kGpuUtil)));
  EXPECT_TRUE(std::isnan(g0t1->get(V::kGpuTempC)));
  EXPECT_TRUE(std::isnan(g0t1->get(V::kMemCopyUtil)));  // 101 %
  // 32-bit PCIe TX counter from 4289000000 by 2500000 per tick wraps after tick 2.
  double prev = by_gpu(cycles[0], "0")->get(V::kPcieTxBytes);
  for (int t : {1, 2, 3}) {
    double now = by_gpu(cycles[t], "0")->get(V::kPcieTxBytes);
    EXPECT_DOUBLE_EQ(now - prev, 2500000.0) << "tick " << t;
    prev = now;
  }
  // NO_PERMISSION on remapped rows: absent, and counted nowhere as an error.
  EXPECT_TRUE(std::isnan(by_gpu(cycles[7], "0")->get(V::kRemapCorrectable)));
  lib->call<FnVoid>(Fn::kShutdown);
}

TEST(NvmlSampler, RecoveryActionFromField230EveryCycle) {
  // Another spelling of faults.json's path starts its timeline at tick 0
  // again, also when the test above ran in this process.
  auto lib = open_fake(fake(), scenario("../scenarios/faults.json"));
  ASSERT_TRUE(lib);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  NvmlSampler sampler(*lib, log);
  // faults.json: GPU 0 goes 0, 0, 2 (reboot), 2, 4 (drain and reset), 0, 7 (unknown), 0; GPU 1 stays 0.
  const double want[] = {0, 0, 2, 2, 4, 0, 7, 0};
  for (int t = 0; t < 8; ++t) {
    Sample s;
    sampler.sample(1000 * (t + 1), s);
    const auto* g0 = by_gpu(s, "0");
    ASSERT_NE(g0, nullptr);
    EXPECT_EQ(g0->get(V::kRecoveryAction), want[t]) << "tick " << t;
    const auto* g1 = by_gpu(s, "1");
    ASSERT_NE(g1, nullptr);
    if (!g1->lost) {
      EXPECT_EQ(g1->get(V::kRecoveryAction), 0) << "tick " << t;
    }
  }
  lib->call<FnVoid>(Fn::kShutdown);
}

TEST(NvmlSampler, NoRecoveryActionWhereTheDriverLacksField230) {
  for (const auto& [library, file] : {std::pair{fake(), "h100x8.json"}, std::pair{legacy(), "legacy_r535.json"}}) {
    auto lib = open_fake(library, scenario(file));
    ASSERT_TRUE(lib);
    base::Logger log(base::LogLevel::kError, std::tmpfile());
    NvmlSampler sampler(*lib, log);
    for (int t = 0; t < 2; ++t) {
      Sample s;
      sampler.sample(1000 * (t + 1), s);
      ASSERT_FALSE(s.devices.empty()) << file;
      for (const auto& d : s.devices) EXPECT_TRUE(std::isnan(d.get(V::kRecoveryAction))) << file;
    }
    lib->call<FnVoid>(Fn::kShutdown);
  }
}

TEST(EventWatcher, CountsXidEventsPerGpu) {
  ::setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  auto l = NvmlLibrary::load(fake());
  ASSERT_TRUE(l) << l.error();
  std::shared_ptr<NvmlLibrary> lib(std::move(*l));
  ASSERT_EQ(lib->call<FnVoid>(Fn::kInit), kSuccess);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  NvmlSampler sampler(*lib, log);
  Sample s;
  sampler.sample(1000, s);
  {
    EventWatcher w(lib, log, 50);
    w.watch(sampler.handles());
    std::string uuid5 = by_gpu(s, "5")->id.uuid;
    EventCounts c;
    for (int t = 1; t < 8; ++t) sampler.sample(1000 * (t + 1), s);
    for (int i = 0; i < 100; ++i) {
      if (w.counts(uuid5, c) && c.xid[13] == 2) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(c.xid[13], 2u);
    EXPECT_DOUBLE_EQ(c.last_xid, 13);
    EventCounts c0;
    ASSERT_TRUE(w.counts(by_gpu(s, "0")->id.uuid, c0));
    EXPECT_TRUE(c0.xid.empty());
  }  // the watcher stops within its wait
  lib->call<FnVoid>(Fn::kShutdown);
}

}  // namespace
}  // namespace llmon::gpu::nvml
