// Self-test of the fake libnvidia-ml.so.1: loads the built library with dlopen/dlsym, as llmon does, and checks the
// behaviours llmon's tests rely on. Each case runs in a forked child (fresh library state, its own environment).
// Usage: fake_nvml_selftest <full libnvidia-ml.so.1> <legacy libnvidia-ml.so.1> <scenarios dir>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "nvml_types.h"

namespace {

int g_failures = 0;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                                 \
    }                                                                               \
  } while (0)

#define CHECK_EQ(a, b)                                                                                      \
  do {                                                                                                      \
    const auto va_ = (a);                                                                                   \
    const auto vb_ = (b);                                                                                   \
    if (!(va_ == vb_)) {                                                                                    \
      std::fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%llu vs %llu)\n", __FILE__, __LINE__, #a, #b, \
                   static_cast<unsigned long long>(va_), static_cast<unsigned long long>(vb_));             \
      ++g_failures;                                                                                         \
    }                                                                                                       \
  } while (0)

struct Paths {
  std::string full, legacy, scenarios, tmp;
};
Paths g_paths;

std::string scenario(const std::string& name) {
  return g_paths.scenarios + "/" + name;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = g_paths.tmp + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The library, resolved by name through dlsym like llmon's loader.
class Nvml {
 public:
  explicit Nvml(const std::string& path) {
    h_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h_) {
      std::fprintf(stderr, "dlopen(%s): %s\n", path.c_str(), dlerror());
      std::exit(100);
    }
  }
  bool has(const char* name) const { return dlsym(h_, name) != nullptr; }
  template <typename F>
  F* fn(const char* name) const {
    void* p = dlsym(h_, name);
    if (!p) {
      std::fprintf(stderr, "dlsym(%s) failed\n", name);
      std::exit(101);
    }
    return reinterpret_cast<F*>(p);
  }

  nvmlReturn_t init() const { return fn<nvmlReturn_t()>("nvmlInit_v2")(); }
  nvmlReturn_t shutdown() const { return fn<nvmlReturn_t()>("nvmlShutdown")(); }
  nvmlReturn_t count(unsigned* n) const { return fn<nvmlReturn_t(unsigned*)>("nvmlDeviceGetCount_v2")(n); }
  unsigned tick_once() const {  // one collection cycle
    unsigned n = 0;
    CHECK_EQ(count(&n), NVML_SUCCESS);
    return n;
  }
  nvmlReturn_t handle(unsigned i, nvmlDevice_t* d) const {
    return fn<nvmlReturn_t(unsigned, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex_v2")(i, d);
  }
  nvmlDevice_t handle(unsigned i) const {
    nvmlDevice_t d = nullptr;
    CHECK_EQ(handle(i, &d), NVML_SUCCESS);
    return d;
  }
  std::string uuid(nvmlDevice_t d) const {
    char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    if (fn<nvmlReturn_t(nvmlDevice_t, char*, unsigned)>("nvmlDeviceGetUUID")(d, buf, sizeof buf) != NVML_SUCCESS)
      return "<error>";
    return buf;
  }

 private:
  void* h_;
};

using ProcFn = nvmlReturn_t(nvmlDevice_t, unsigned*, void*);

// ---------------------------------------------------------------------------------------------------------------
void case_process_strides() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("legacy_r535.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  nvml.tick_once();
  nvmlDevice_t d = nvml.handle(0);
  const struct {
    const char* name;
    size_t stride;
  } kCalls[] = {{"nvmlDeviceGetComputeRunningProcesses", 16},
                {"nvmlDeviceGetComputeRunningProcesses_v2", 24},
                {"nvmlDeviceGetComputeRunningProcesses_v3", 32}};
  for (const auto& call : kCalls) {
    unsigned char buf[4 * 32];
    std::memset(buf, 0xAA, sizeof buf);
    unsigned n = 4;
    CHECK_EQ(nvml.fn<ProcFn>(call.name)(d, &n, buf), NVML_SUCCESS);
    CHECK_EQ(n, 2u);
    unsigned pid0 = 0, pid1 = 0;
    unsigned long long mem1 = 0;
    std::memcpy(&pid0, buf, 4);
    std::memcpy(&pid1, buf + call.stride, 4);
    std::memcpy(&mem1, buf + call.stride + 8, 8);
    CHECK_EQ(pid0, 4101u);
    CHECK_EQ(pid1, 5201u);
    CHECK_EQ(mem1, 8ULL << 30);
    CHECK_EQ(buf[2 * call.stride], 0xAA);  // nothing written past the entries
    if (call.stride >= 24) {
      unsigned gi = 0;
      std::memcpy(&gi, buf + 16, 4);
      CHECK_EQ(gi, 0xFFFFFFFFu);  // not MIG
    }
  }
  CHECK_EQ(nvml.shutdown(), NVML_SUCCESS);

  // The same call with the default 24-byte stride.
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  nvml.tick_once();
  nvmlProcessInfo_t infos[8];
  unsigned n = 8;
  CHECK_EQ(nvml.fn<ProcFn>("nvmlDeviceGetComputeRunningProcesses_v3")(nvml.handle(7), &n, infos), NVML_SUCCESS);
  CHECK_EQ(n, 4u);
  CHECK_EQ(infos[1].pid, 5501u);
  CHECK_EQ(infos[3].pid, 6001u);
  CHECK_EQ(infos[3].usedGpuMemory, 1ULL << 30);
}

void case_ticks_and_garbage() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("faults.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  auto util = nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlUtilization_t*)>("nvmlDeviceGetUtilizationRates");
  auto temp = nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned*)>("nvmlDeviceGetTemperature");
  nvmlDevice_t d = nvml.handle(0);
  nvmlUtilization_t u{};
  unsigned t = 0;
  CHECK_EQ(util(d, &u), NVML_SUCCESS);  // before the first GetCount: tick 0
  CHECK_EQ(u.gpu, 40u);
  CHECK_EQ(nvml.tick_once(), 2u);  // tick 0
  CHECK_EQ(util(d, &u), NVML_SUCCESS);
  CHECK_EQ(u.gpu, 40u);
  CHECK_EQ(u.memory, 101u);  // garbage passes through
  nvml.tick_once();          // tick 1
  CHECK_EQ(util(d, &u), NVML_SUCCESS);
  CHECK_EQ(u.gpu, 250u);
  CHECK_EQ(temp(d, NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
  CHECK_EQ(t, 4294967295u);
  CHECK_EQ(temp(d, static_cast<nvmlTemperatureSensors_t>(1), &t), NVML_ERROR_INVALID_ARGUMENT);
  nvml.tick_once();  // tick 2: injected UNKNOWN on temperature only
  CHECK_EQ(temp(d, NVML_TEMPERATURE_GPU, &t), NVML_ERROR_UNKNOWN);
  CHECK_EQ(util(d, &u), NVML_SUCCESS);
  CHECK_EQ(u.gpu, 60u);
  nvml.tick_once();  // tick 3
  CHECK_EQ(temp(d, NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
  CHECK_EQ(t, 47u);
  // Absent value key -> NOT_SUPPORTED; injected NO_PERMISSION on remapped rows.
  unsigned fan = 0, a, b, c, e;
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*)>("nvmlDeviceGetFanSpeed")(d, &fan), NVML_ERROR_NOT_SUPPORTED);
  auto remap =
      nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*)>("nvmlDeviceGetRemappedRows");
  CHECK_EQ(remap(d, &a, &b, &c, &e), NVML_ERROR_NO_PERMISSION);
  // Error strings.
  auto err = nvml.fn<const char*(nvmlReturn_t)>("nvmlErrorString");
  CHECK(std::string(err(NVML_ERROR_GPU_IS_LOST)) == "GPU is lost");
  CHECK(std::string(err(NVML_ERROR_NOT_SUPPORTED)) == "Not Supported");
  CHECK(std::string(err(static_cast<nvmlReturn_t>(12345))) == "Unknown Error");
}

void case_insufficient_size() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  nvml.tick_once();
  nvml.tick_once();
  nvml.tick_once();  // tick 2
  auto v3 = nvml.fn<ProcFn>("nvmlDeviceGetComputeRunningProcesses_v3");
  nvmlDevice_t d7 = nvml.handle(7);
  unsigned n = 0;
  CHECK_EQ(v3(d7, &n, nullptr), NVML_ERROR_INSUFFICIENT_SIZE);
  CHECK_EQ(n, 4u);
  nvmlProcessInfo_t infos[4];
  n = 3;
  CHECK_EQ(v3(d7, &n, infos), NVML_ERROR_INSUFFICIENT_SIZE);
  CHECK_EQ(n, 4u);
  CHECK_EQ(v3(d7, &n, infos), NVML_SUCCESS);
  CHECK_EQ(infos[0].pid, 5401u);
  n = 0;  // no graphics processes: SUCCESS with 0
  CHECK_EQ(nvml.fn<ProcFn>("nvmlDeviceGetGraphicsRunningProcesses_v3")(d7, &n, nullptr), NVML_SUCCESS);
  CHECK_EQ(n, 0u);

  // Process utilisation: NULL buffer gives the count; lastSeenTimeStamp filters; 6001 (all zero) is not sampled.
  auto pu = nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlProcessUtilizationSample_t*, unsigned*, unsigned long long)>(
      "nvmlDeviceGetProcessUtilization");
  unsigned cnt = 0;
  CHECK_EQ(pu(d7, nullptr, &cnt, 0), NVML_ERROR_INSUFFICIENT_SIZE);
  CHECK_EQ(cnt, 3u);
  nvmlProcessUtilizationSample_t s[8];
  cnt = 8;
  CHECK_EQ(pu(d7, s, &cnt, 0), NVML_SUCCESS);
  CHECK_EQ(cnt, 3u);
  CHECK_EQ(s[0].pid, 5401u);
  CHECK_EQ(s[0].smUtil, 21u);
  CHECK_EQ(s[0].timeStamp, 1'700'000'000'000'000ULL + 2 * 1'000'000ULL + 401);
  cnt = 8;
  CHECK_EQ(pu(d7, s, &cnt, 1'700'000'000'000'000ULL + 2 * 1'000'000ULL + 600), NVML_SUCCESS);
  CHECK_EQ(cnt, 1u);  // only 5601's sample is newer
  cnt = 8;
  CHECK_EQ(pu(d7, s, &cnt, 1'700'000'000'000'000ULL + 3 * 1'000'000ULL), NVML_ERROR_NOT_FOUND);
  CHECK_EQ(cnt, 0u);
}

void case_memory_versions() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  nvml.tick_once();
  nvmlDevice_t d = nvml.handle(0);
  nvmlMemory_t m1{};
  nvmlMemory_v2_t m2{};
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlMemory_v2_t*)>("nvmlDeviceGetMemoryInfo_v2")(d, &m2),
           NVML_ERROR_ARGUMENT_VERSION_MISMATCH);  // version not set
  m2.version = nvmlMemory_v2;
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlMemory_v2_t*)>("nvmlDeviceGetMemoryInfo_v2")(d, &m2), NVML_SUCCESS);
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlMemory_t*)>("nvmlDeviceGetMemoryInfo")(d, &m1), NVML_SUCCESS);
  CHECK_EQ(m2.total, 85520809984ULL);
  CHECK_EQ(m2.reserved, 607125504ULL);
  CHECK_EQ(m2.used, 76235669504ULL);
  CHECK_EQ(m1.total, m2.total);
  CHECK_EQ(m1.used, m2.used + m2.reserved);  // v1 counts reserved as used
  CHECK_EQ(m1.free, m2.free);
  CHECK_EQ(m2.total, m2.free + m2.used + m2.reserved);
}

void case_lost() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("faults.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  auto power = nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*)>("nvmlDeviceGetPowerUsage");
  nvml.tick_once();
  nvmlDevice_t early = nvml.handle(1);
  const std::string uuid = nvml.uuid(early);
  for (unsigned tick = 1; tick <= 6; ++tick) {
    nvml.tick_once();
    const bool lost = tick >= 3 && tick <= 5;
    nvmlDevice_t d = nullptr;
    unsigned mw = 0;
    CHECK_EQ(nvml.handle(1, &d), lost ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS);
    CHECK_EQ(power(early, &mw), lost ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS);
    CHECK_EQ(nvml.handle(0, &d), NVML_SUCCESS);  // the other GPU is fine
    if (tick == 4) continue;                     // GPU 0 hangs 3 s in GetPowerUsage at tick 4
    CHECK_EQ(power(d, &mw), NVML_SUCCESS);
  }
  CHECK(nvml.uuid(nvml.handle(1)) == uuid);  // back with the same identity
}

void case_events() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  const unsigned n = nvml.tick_once();  // tick 0
  auto create = nvml.fn<nvmlReturn_t(nvmlEventSet_t*)>("nvmlEventSetCreate");
  auto reg = nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned long long, nvmlEventSet_t)>("nvmlDeviceRegisterEvents");
  auto wait = nvml.fn<nvmlReturn_t(nvmlEventSet_t, nvmlEventData_t*, unsigned)>("nvmlEventSetWait_v2");
  auto supported = nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned long long*)>("nvmlDeviceGetSupportedEventTypes");
  nvmlEventSet_t set = nullptr;
  CHECK_EQ(create(&set), NVML_SUCCESS);
  for (unsigned i = 0; i < n; ++i) {
    unsigned long long mask = 0;
    CHECK_EQ(supported(nvml.handle(i), &mask), NVML_SUCCESS);
    CHECK(mask & nvmlEventTypeXidCriticalError);
    CHECK_EQ(reg(nvml.handle(i), nvmlEventTypeGpuUnavailableError, set), NVML_ERROR_NOT_SUPPORTED);
    CHECK_EQ(reg(nvml.handle(i), nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
  }
  nvmlEventData_t ev{};
  CHECK_EQ(wait(set, &ev, 0), NVML_ERROR_TIMEOUT);
  nvml.tick_once();  // tick 1

  // A waiter with a long timeout wakes as soon as the tick reaches 2.
  nvmlReturn_t waited = NVML_ERROR_UNKNOWN;
  double waited_s = 0;
  std::thread waiter([&] {
    const auto t0 = std::chrono::steady_clock::now();
    waited = wait(set, &ev, 10000);
    waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  nvml.tick_once();  // tick 2
  waiter.join();
  CHECK_EQ(waited, NVML_SUCCESS);
  CHECK(waited_s < 5.0);
  CHECK(ev.device == nvml.handle(3));
  CHECK_EQ(ev.eventType, static_cast<unsigned long long>(nvmlEventTypeXidCriticalError));
  CHECK_EQ(ev.eventData, 79ULL);
  CHECK_EQ(ev.gpuInstanceId, 0xFFFFFFFFu);
  CHECK_EQ(wait(set, &ev, 0), NVML_SUCCESS);
  CHECK(ev.device == nvml.handle(5));
  CHECK_EQ(ev.eventData, 13ULL);
  CHECK_EQ(wait(set, &ev, 50), NVML_ERROR_TIMEOUT);  // the second Xid 13 is for tick 3
  nvml.tick_once();                                  // tick 3
  CHECK_EQ(wait(set, &ev, 0), NVML_SUCCESS);
  CHECK_EQ(ev.eventData, 13ULL);
  nvml.tick_once();
  CHECK_EQ(wait(set, &ev, 0), NVML_ERROR_TIMEOUT);  // each event once
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlEventSet_t)>("nvmlEventSetFree")(set), NVML_SUCCESS);
}

void case_legacy_symbols() {
  static const char* kMissingInLegacy[] = {"nvmlDeviceGetMemoryInfo_v2",
                                           "nvmlDeviceGetComputeRunningProcesses_v3",
                                           "nvmlDeviceGetGraphicsRunningProcesses_v3",
                                           "nvmlDeviceGetMPSComputeRunningProcesses_v3",
                                           "nvmlDeviceGetCurrentClocksEventReasons",
                                           "nvmlSystemGetCudaDriverVersion_v2",
                                           "nvmlDeviceGetPciInfo_v3",
                                           "nvmlEventSetWait_v2",
                                           "nvmlGpmQueryDeviceSupport",
                                           "nvmlGpmSampleAlloc",
                                           "nvmlGpmSampleFree",
                                           "nvmlGpmSampleGet",
                                           "nvmlGpmMigSampleGet",
                                           "nvmlGpmMetricsGet"};
  static const char* kInBoth[] = {"nvmlInit_v2",
                                  "nvmlInit",
                                  "nvmlDeviceGetCount_v2",
                                  "nvmlDeviceGetMemoryInfo",
                                  "nvmlDeviceGetComputeRunningProcesses_v2",
                                  "nvmlDeviceGetComputeRunningProcesses",
                                  "nvmlDeviceGetCurrentClocksThrottleReasons",
                                  "nvmlSystemGetCudaDriverVersion",
                                  "nvmlDeviceGetPciInfo_v2",
                                  "nvmlEventSetWait",
                                  "nvmlDeviceGetFieldValues"};
  Nvml legacy(g_paths.legacy);
  Nvml full(g_paths.full);
  for (const char* name : kMissingInLegacy) {
    if (legacy.has(name)) std::fprintf(stderr, "legacy build exports %s\n", name);
    CHECK(!legacy.has(name));
    CHECK(full.has(name));
  }
  for (const char* name : kInBoth) {
    CHECK(legacy.has(name));
    CHECK(full.has(name));
  }
  // Nothing but the NVML API is exported (no C++ internals).
  CHECK(!full.has("_ZN9fake_nvml5stateEv"));
}

void case_legacy_behaviour() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  Nvml nvml(g_paths.legacy);
  CHECK_EQ(nvml.fn<nvmlReturn_t()>("nvmlInit")(), NVML_SUCCESS);
  unsigned n = 0;
  CHECK_EQ(nvml.fn<nvmlReturn_t(unsigned*)>("nvmlDeviceGetCount")(&n), NVML_SUCCESS);
  CHECK_EQ(n, 8u);
  nvmlDevice_t d = nullptr;
  CHECK_EQ(nvml.fn<nvmlReturn_t(unsigned, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex")(0, &d), NVML_SUCCESS);
  nvmlFieldValue_t f[2] = {};
  f[0].fieldId = NVML_FI_DEV_PCIE_COUNT_TX_BYTES;  // unknown to an older driver
  f[1].fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION;
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, int, nvmlFieldValue_t*)>("nvmlDeviceGetFieldValues")(d, 2, f),
           NVML_SUCCESS);
  CHECK_EQ(f[0].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
  CHECK_EQ(f[1].nvmlReturn, NVML_SUCCESS);
  unsigned long long reasons = 99;
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons")(
               d, &reasons),
           NVML_SUCCESS);
  CHECK_EQ(reasons, 1ULL);  // tick 0
}

void case_fields() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  auto fields = nvml.fn<nvmlReturn_t(nvmlDevice_t, int, nvmlFieldValue_t*)>("nvmlDeviceGetFieldValues");
  nvml.tick_once();
  nvml.tick_once();  // tick 1
  nvmlDevice_t d = nvml.handle(0);
  std::vector<nvmlFieldValue_t> f(4 + 18);
  f[0].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
  f[0].scopeId = UINT_MAX;
  f[1].fieldId = 9999;  // unknown id
  f[2].fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION;
  f[3].fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
  for (unsigned l = 0; l < 18; ++l) {
    f[4 + l].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
    f[4 + l].scopeId = l;
  }
  CHECK_EQ(fields(d, static_cast<int>(f.size()), f.data()), NVML_SUCCESS);
  CHECK_EQ(f[0].nvmlReturn, NVML_SUCCESS);
  CHECK_EQ(f[0].valueType, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
  CHECK_EQ(f[0].value.ullVal, 9876543210ULL + 195312500ULL);
  CHECK_EQ(f[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
  CHECK_EQ(f[2].value.ullVal, 48213377000ULL + 652000ULL);
  CHECK_EQ(f[2].timestamp, 1'700'000'000'000'000LL + 1'000'000LL);
  CHECK_EQ(f[3].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
  CHECK_EQ(f[3].value.uiVal, 18u);
  unsigned long long sum = 0;
  for (unsigned l = 0; l < 18; ++l) {
    CHECK_EQ(f[4 + l].nvmlReturn, NVML_SUCCESS);
    sum += f[4 + l].value.ullVal;
  }
  CHECK_EQ(sum, f[0].value.ullVal);
  // The value union really sits at offset 32 of each 40-byte entry.
  unsigned long long raw = 0;
  std::memcpy(&raw, reinterpret_cast<const unsigned char*>(f.data()) + 2 * 40 + 32, 8);
  CHECK_EQ(raw, f[2].value.ullVal);

  // 32-bit PCIe counters that wrap between ticks 2 and 3, and per-field NO_PERMISSION.
  CHECK_EQ(nvml.shutdown(), NVML_SUCCESS);
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("faults.json").c_str(), 1);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  unsigned prev = 0;
  for (unsigned tick = 0; tick <= 3; ++tick) {
    nvml.tick_once();
    nvmlFieldValue_t p[2] = {};
    p[0].fieldId = NVML_FI_DEV_PCIE_COUNT_TX_BYTES;
    p[1].fieldId = NVML_FI_DEV_REMAPPED_COR;
    CHECK_EQ(fields(nvml.handle(0), 2, p), NVML_SUCCESS);
    CHECK_EQ(p[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
    CHECK_EQ(p[1].nvmlReturn, NVML_ERROR_NO_PERMISSION);
    if (tick == 3) CHECK(p[0].value.uiVal < prev);  // wrapped
    if (tick > 0 && tick < 3) CHECK(p[0].value.uiVal > prev);
    prev = p[0].value.uiVal;
  }
}

void case_mig() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("a100_mig.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  CHECK_EQ(nvml.tick_once(), 2u);
  nvmlDevice_t d = nvml.handle(0);
  unsigned cur = 9, pend = 9, max = 0;
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*, unsigned*)>("nvmlDeviceGetMigMode")(d, &cur, &pend),
           NVML_SUCCESS);
  CHECK_EQ(cur, 1u);
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*)>("nvmlDeviceGetMaxMigDeviceCount")(d, &max), NVML_SUCCESS);
  CHECK_EQ(max, 7u);
  auto by_index = nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned, nvmlDevice_t*)>("nvmlDeviceGetMigDeviceHandleByIndex");
  nvmlDevice_t m[7] = {};
  CHECK_EQ(by_index(d, 0, &m[0]), NVML_SUCCESS);
  CHECK_EQ(by_index(d, 1, &m[1]), NVML_SUCCESS);
  CHECK_EQ(by_index(d, 2, &m[2]), NVML_SUCCESS);
  CHECK_EQ(by_index(d, 3, &m[3]), NVML_ERROR_NOT_FOUND);
  CHECK_EQ(by_index(d, 7, &m[3]), NVML_ERROR_INVALID_ARGUMENT);
  CHECK(nvml.uuid(m[1]).rfind("MIG-", 0) == 0);
  unsigned gi = 0, is_mig = 0;
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*)>("nvmlDeviceGetGpuInstanceId")(m[1], &gi), NVML_SUCCESS);
  CHECK_EQ(gi, 5u);
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*)>("nvmlDeviceIsMigDeviceHandle")(m[1], &is_mig), NVML_SUCCESS);
  CHECK_EQ(is_mig, 1u);
  nvmlDevice_t parent = nullptr;
  CHECK_EQ(
      nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlDevice_t*)>("nvmlDeviceGetDeviceHandleFromMigDeviceHandle")(m[1], &parent),
      NVML_SUCCESS);
  CHECK(parent == d);
  // Processes per instance; the parent (privileged) sees both with their gi/ci.
  auto v3 = nvml.fn<ProcFn>("nvmlDeviceGetComputeRunningProcesses_v3");
  nvmlProcessInfo_t infos[4];
  unsigned n = 4;
  CHECK_EQ(v3(m[1], &n, infos), NVML_SUCCESS);
  CHECK_EQ(n, 1u);
  CHECK_EQ(infos[0].pid, 5201u);
  CHECK_EQ(infos[0].gpuInstanceId, 5u);
  n = 4;
  CHECK_EQ(v3(m[2], &n, infos), NVML_SUCCESS);
  CHECK_EQ(n, 0u);
  n = 4;
  CHECK_EQ(v3(d, &n, infos), NVML_SUCCESS);
  CHECK_EQ(n, 2u);
  nvmlMemory_v2_t mem{};
  mem.version = nvmlMemory_v2;
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlMemory_v2_t*)>("nvmlDeviceGetMemoryInfo_v2")(m[0], &mem),
           NVML_SUCCESS);
  CHECK_EQ(mem.total, 42144366592ULL);
  // MIG-enabled parent: no utilisation; MIG handles reject non-MIG calls.
  nvmlUtilization_t u{};
  auto util = nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlUtilization_t*)>("nvmlDeviceGetUtilizationRates");
  CHECK_EQ(util(d, &u), NVML_ERROR_NOT_SUPPORTED);
  CHECK_EQ(util(nvml.handle(1), &u), NVML_SUCCESS);
  unsigned mw = 0;
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*)>("nvmlDeviceGetPowerUsage")(m[0], &mw),
           NVML_ERROR_NOT_SUPPORTED);
}

void case_init_variants() {
  {
    unsetenv("LLMON_FAKE_NVML_SCENARIO");
    Nvml nvml(g_paths.full);
    CHECK_EQ(nvml.count(nullptr), NVML_ERROR_UNINITIALIZED);
    CHECK_EQ(nvml.init(), NVML_SUCCESS);
    CHECK_EQ(nvml.tick_once(), 0u);  // a driver, no GPU
    char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    CHECK_EQ(nvml.fn<nvmlReturn_t(char*, unsigned)>("nvmlSystemGetDriverVersion")(v, sizeof v), NVML_SUCCESS);
    CHECK_EQ(nvml.fn<nvmlReturn_t(char*, unsigned)>("nvmlSystemGetDriverVersion")(v, 4), NVML_ERROR_INSUFFICIENT_SIZE);
    CHECK_EQ(nvml.shutdown(), NVML_SUCCESS);
    CHECK_EQ(nvml.shutdown(), NVML_ERROR_UNINITIALIZED);

    setenv("LLMON_FAKE_NVML_SCENARIO", scenario("no_gpus.json").c_str(), 1);
    CHECK_EQ(nvml.init(), NVML_SUCCESS);
    CHECK_EQ(nvml.tick_once(), 0u);
    nvmlDevice_t d;
    CHECK_EQ(nvml.handle(0, &d), NVML_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(nvml.shutdown(), NVML_SUCCESS);

    setenv("LLMON_FAKE_NVML_SCENARIO", scenario("init_error.json").c_str(), 1);
    CHECK_EQ(nvml.init(), NVML_ERROR_DRIVER_NOT_LOADED);
    CHECK_EQ(nvml.count(nullptr), NVML_ERROR_UNINITIALIZED);
  }
  // Malformed scenarios: init fails with UNKNOWN and one stderr line naming the file and the JSON pointer.
  const std::string err_path = g_paths.tmp + "/stderr.txt";
  const struct {
    std::string file, expect;
  } kBad[] = {
      {write_temp("bad_type.json", R"({"devices": [{"uuid": 5, "name": "x", "pci": {}}]})"), "/devices/0/uuid"},
      {write_temp("bad_json.json", R"({"devices": [)"), "invalid JSON"},
      {write_temp("bad_key.json", R"({"devices": [{"uuid": "GPU-1", "name": "x", "pci": {"bus_id": "00000000:01:00.0",
        "pci_device_id": 1}, "values": {"gpu_utl": 5}}]})"),
       "/devices/0/values/gpu_utl"},
      {write_temp("bad_value.json", R"({"devices": [{"uuid": "GPU-1", "name": "x", "pci": {"bus_id": "00000000:01:00.0",
        "pci_device_id": 1}, "values": {"gpu_util": [1, "x"]}}]})"),
       "/devices/0/values/gpu_util/1"},
      {write_temp("bad_gpm_key.json",
                  R"({"devices": [{"uuid": "GPU-1", "name": "x", "pci": {"bus_id": "00000000:01:00.0",
        "pci_device_id": 1}, "gpm": {"values": {"sm_utl": 5}}}]})"),
       "/devices/0/gpm/values/sm_utl"},
      {write_temp("bad_gpm_value.json",
                  R"({"devices": [{"uuid": "GPU-1", "name": "x", "pci": {"bus_id": "00000000:01:00.0",
        "pci_device_id": 1}, "gpm": {"supported": true, "values": {"sm_util": [1.5, "0x10"]}}}]})"),
       "/devices/0/gpm/values/sm_util/1"},
      {write_temp("bad_gpm_supported.json",
                  R"({"devices": [{"uuid": "GPU-1", "name": "x", "pci": {"bus_id": "00000000:01:00.0",
        "pci_device_id": 1}, "gpm": {"supported": 1}}]})"),
       "/devices/0/gpm/supported"},
      {g_paths.tmp + "/does_not_exist.json", "cannot open"},
  };
  for (const auto& bad : kBad) {
    pid_t pid = fork();
    if (pid == 0) {
      const int fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(3);
      setenv("LLMON_FAKE_NVML_SCENARIO", bad.file.c_str(), 1);
      Nvml nvml(g_paths.full);
      const bool ok = nvml.init() == NVML_ERROR_UNKNOWN && nvml.count(nullptr) == NVML_ERROR_UNINITIALIZED;
      std::fflush(stderr);
      _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const std::string err = read_file(err_path);
    if (err.find(bad.file) == std::string::npos || err.find(bad.expect) == std::string::npos)
      std::fprintf(stderr, "stderr for %s was: %s\n", bad.file.c_str(), err.c_str());
    CHECK(err.find(bad.file) != std::string::npos);
    CHECK(err.find(bad.expect) != std::string::npos);
    CHECK_EQ(std::count(err.begin(), err.end(), '\n'), 1);
  }
}

void case_hang_releases_lock() {
  const std::string path = write_temp("hang.json", R"({"devices": [{
      "uuid": "GPU-00000000-0000-0000-0000-000000000001", "name": "NVIDIA H100 80GB HBM3",
      "pci": {"bus_id": "00000000:18:00.0", "pci_device_id": "0x233010DE"},
      "values": {"power_usage_mw": 500000, "temperature_gpu": 50},
      "hangs": [{"function": "nvmlDeviceGetPowerUsage", "tick": 1, "ms": 600}]}]})");
  setenv("LLMON_FAKE_NVML_SCENARIO", path.c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  auto power = nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*)>("nvmlDeviceGetPowerUsage");
  auto temp = nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned*)>("nvmlDeviceGetTemperature");
  nvml.tick_once();
  nvmlDevice_t d = nvml.handle(0);
  unsigned mw = 0, t = 0;
  auto t0 = std::chrono::steady_clock::now();
  CHECK_EQ(power(d, &mw), NVML_SUCCESS);  // tick 0: no hang
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(300));
  nvml.tick_once();  // tick 1
  double hung_s = 0;
  std::thread hung([&] {
    const auto s = std::chrono::steady_clock::now();
    unsigned v = 0;
    CHECK_EQ(power(d, &v), NVML_SUCCESS);
    CHECK_EQ(v, 500000u);
    hung_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  t0 = std::chrono::steady_clock::now();
  CHECK_EQ(temp(d, NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);  // not blocked by the hung call
  const double other_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  hung.join();
  CHECK(hung_s >= 0.55);
  CHECK(other_s < 0.3);
}

void case_call_log() {
  const std::string log = g_paths.tmp + "/calls.txt";
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  setenv("LLMON_FAKE_NVML_CALL_LOG", log.c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  auto power = nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*)>("nvmlDeviceGetPowerUsage");
  unsigned mw;
  nvml.tick_once();
  for (unsigned i = 0; i < 8; ++i) power(nvml.handle(i), &mw);
  nvml.tick_once();  // rewrites the log: counts so far
  std::string text = read_file(log);
  CHECK(text.find("nvmlDeviceGetCount_v2 2\n") != std::string::npos);
  CHECK(text.find("nvmlDeviceGetPowerUsage 8\n") != std::string::npos);
  CHECK(text.find("nvmlDeviceGetHandleByIndex_v2 8\n") != std::string::npos);
  CHECK(text.find("ticks 2\n") != std::string::npos);
  power(nvml.handle(0), &mw);
  CHECK_EQ(nvml.shutdown(), NVML_SUCCESS);
  text = read_file(log);
  CHECK(text.find("nvmlDeviceGetPowerUsage 9\n") != std::string::npos);
  CHECK(text.find("nvmlShutdown 1\n") != std::string::npos);
}

// Re-initialising with the same scenario keeps the timeline and the handles; a different scenario restarts both.
void case_reinit() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("faults.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  auto util = nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlUtilization_t*)>("nvmlDeviceGetUtilizationRates");
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);  // reference counted
  nvml.tick_once();
  nvmlDevice_t d = nvml.handle(0);
  nvmlDevice_t d1 = nvml.handle(1);
  CHECK_EQ(nvml.shutdown(), NVML_SUCCESS);
  nvmlUtilization_t u{};
  CHECK_EQ(util(d, &u), NVML_SUCCESS);  // still initialised once
  CHECK_EQ(nvml.shutdown(), NVML_SUCCESS);
  CHECK_EQ(util(d, &u), NVML_ERROR_UNINITIALIZED);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  nvml.tick_once();  // tick 1, not 0 again
  CHECK(nvml.handle(0) == d);
  CHECK_EQ(util(d, &u), NVML_SUCCESS);
  CHECK_EQ(u.gpu, 250u);
  CHECK_EQ(nvml.shutdown(), NVML_SUCCESS);
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("legacy_r535.json").c_str(), 1);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  CHECK_EQ(nvml.tick_once(), 1u);
  CHECK_EQ(util(d, &u), NVML_SUCCESS);                                                  // index 0 exists here too
  CHECK_EQ(u.gpu, 70u);                                                                 // tick 0 of the new scenario
  CHECK_EQ(util(d1, &u), NVML_ERROR_INVALID_ARGUMENT);                                  // index 1 does not
  CHECK_EQ(util(reinterpret_cast<nvmlDevice_t>(&u), &u), NVML_ERROR_INVALID_ARGUMENT);  // not a handle
}

// A sampler thread and an event-watcher thread at once, as in llmon: every Xid arrives exactly once.
void case_concurrent_threads() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  const unsigned n = nvml.tick_once();
  auto wait = nvml.fn<nvmlReturn_t(nvmlEventSet_t, nvmlEventData_t*, unsigned)>("nvmlEventSetWait_v2");
  auto reg = nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned long long, nvmlEventSet_t)>("nvmlDeviceRegisterEvents");
  nvmlEventSet_t set = nullptr;
  CHECK_EQ(nvml.fn<nvmlReturn_t(nvmlEventSet_t*)>("nvmlEventSetCreate")(&set), NVML_SUCCESS);
  for (unsigned i = 0; i < n; ++i) CHECK_EQ(reg(nvml.handle(i), nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
  std::atomic<bool> done{false};
  std::vector<unsigned long long> xids;
  std::thread watcher([&] {
    nvmlEventData_t ev{};
    while (!done.load()) {
      if (wait(set, &ev, 5) == NVML_SUCCESS) xids.push_back(ev.eventData);
    }
    while (wait(set, &ev, 0) == NVML_SUCCESS) xids.push_back(ev.eventData);
  });
  auto power = nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned*)>("nvmlDeviceGetPowerUsage");
  auto v3 = nvml.fn<ProcFn>("nvmlDeviceGetComputeRunningProcesses_v3");
  for (int cycle = 0; cycle < 100; ++cycle) {
    const unsigned gpus = nvml.tick_once();
    for (unsigned i = 0; i < gpus; ++i) {
      unsigned mw = 0, cnt = 8;
      nvmlProcessInfo_t infos[8];
      nvmlDevice_t d = nvml.handle(i);
      CHECK_EQ(power(d, &mw), NVML_SUCCESS);
      CHECK_EQ(v3(d, &cnt, infos), NVML_SUCCESS);
    }
  }
  done = true;
  watcher.join();
  CHECK_EQ(xids.size(), 3u);
  CHECK_EQ(std::count(xids.begin(), xids.end(), 13ULL), 2);
  CHECK_EQ(std::count(xids.begin(), xids.end(), 79ULL), 1);
}

// ---------------------------------------------------------------------------------------------------------------
// GPM. The functions, resolved by name.
struct GpmApi {
  explicit GpmApi(const Nvml& nvml)
      : query(nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlGpmSupport_t*)>("nvmlGpmQueryDeviceSupport")),
        alloc(nvml.fn<nvmlReturn_t(nvmlGpmSample_t*)>("nvmlGpmSampleAlloc")),
        free(nvml.fn<nvmlReturn_t(nvmlGpmSample_t)>("nvmlGpmSampleFree")),
        get(nvml.fn<nvmlReturn_t(nvmlDevice_t, nvmlGpmSample_t)>("nvmlGpmSampleGet")),
        mig_get(nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned, nvmlGpmSample_t)>("nvmlGpmMigSampleGet")),
        metrics(nvml.fn<nvmlReturn_t(nvmlGpmMetricsGet_t*)>("nvmlGpmMetricsGet")) {}
  nvmlGpmSample_t sample() const {
    nvmlGpmSample_t s = nullptr;
    CHECK_EQ(alloc(&s), NVML_SUCCESS);
    CHECK(s != nullptr);
    return s;
  }
  unsigned supported(nvmlDevice_t d) const {
    nvmlGpmSupport_t sup{NVML_GPM_SUPPORT_VERSION, 99};
    CHECK_EQ(query(d, &sup), NVML_SUCCESS);
    return sup.isSupportedDevice;
  }
  nvmlReturn_t (*query)(nvmlDevice_t, nvmlGpmSupport_t*);
  nvmlReturn_t (*alloc)(nvmlGpmSample_t*);
  nvmlReturn_t (*free)(nvmlGpmSample_t);
  nvmlReturn_t (*get)(nvmlDevice_t, nvmlGpmSample_t);
  nvmlReturn_t (*mig_get)(nvmlDevice_t, unsigned, nvmlGpmSample_t);
  nvmlReturn_t (*metrics)(nvmlGpmMetricsGet_t*);
};

// An nvmlGpmMetricsGet_t of exactly `n` entries plus one guard entry of 0xAA bytes (as a caller built with an older,
// shorter header would pass), filled and read through raw offsets: version@0, numMetrics@4, sample1@8,
// sample2@16, metrics@24 (40 bytes each: metricId@0, nvmlReturn@4, value@8, shortName@16, longName@24, unit@32).
class RawMetricsGet {
 public:
  RawMetricsGet(std::vector<unsigned> ids, nvmlGpmSample_t s1, nvmlGpmSample_t s2)
      : n_(static_cast<unsigned>(ids.size())), buf_(24 + (ids.size() + 1) * 40, 0xAA) {
    put(0, NVML_GPM_METRICS_GET_VERSION);
    put(4, n_);
    samples(s1, s2);
    for (unsigned i = 0; i < n_; ++i) put(24 + 40 * i, ids[i]);
  }
  void samples(nvmlGpmSample_t s1, nvmlGpmSample_t s2) {
    put(8, s1);
    put(16, s2);
  }
  void version(unsigned v) { put(0, v); }
  nvmlGpmMetricsGet_t* get() { return reinterpret_cast<nvmlGpmMetricsGet_t*>(buf_.data()); }
  nvmlReturn_t ret(unsigned i) const { return take<nvmlReturn_t>(24 + 40 * i + 4); }
  double value(unsigned i) const { return take<double>(24 + 40 * i + 8); }
  std::string info(unsigned i, unsigned field) const {  // 0 short name, 1 long name, 2 unit; "<null>" for NULL
    const char* p = take<const char*>(24 + 40 * i + 16 + 8 * field);
    return p ? p : "<null>";
  }
  bool guard_intact() const {
    for (size_t i = 24 + 40 * n_; i < buf_.size(); ++i)
      if (buf_[i] != 0xAA) return false;
    return true;
  }

 private:
  template <typename T>
  void put(size_t off, T v) {
    std::memcpy(&buf_[off], &v, sizeof v);
  }
  template <typename T>
  T take(size_t off) const {
    T v;
    std::memcpy(&v, &buf_[off], sizeof v);
    return v;
  }
  unsigned n_;
  std::vector<unsigned char> buf_;
};

void case_gpm() {
  const std::string log = g_paths.tmp + "/gpm_calls.txt";
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("h100x8.json").c_str(), 1);
  setenv("LLMON_FAKE_NVML_CALL_LOG", log.c_str(), 1);
  Nvml nvml(g_paths.full);
  GpmApi gpm(nvml);
  unsigned gets = 0, metric_calls = 0;
  auto get = [&](nvmlDevice_t d, nvmlGpmSample_t s) {
    ++gets;
    return gpm.get(d, s);
  };
  auto metrics = [&](RawMetricsGet& m) {
    ++metric_calls;
    return gpm.metrics(m.get());
  };
  nvmlGpmSample_t a = gpm.sample();  // before nvmlInit: a sample buffer is host memory
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  nvmlGpmSample_t b = gpm.sample(), c = gpm.sample();
  CHECK(a != b && b != c);
  CHECK_EQ(gpm.alloc(nullptr), NVML_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(nvml.tick_once(), 8u);  // tick 0
  nvmlDevice_t d0 = nvml.handle(0), d6 = nvml.handle(6);

  nvmlGpmSupport_t sup{};
  CHECK_EQ(gpm.query(d0, &sup), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);  // version not set
  CHECK_EQ(gpm.query(d0, nullptr), NVML_ERROR_INVALID_ARGUMENT);
  for (unsigned i = 0; i < 8; ++i) CHECK_EQ(gpm.supported(nvml.handle(i)), 1u);

  // The 12 metrics of the scenario, INTEGER_UTIL (known to NVML, absent from the scenario) and an unknown id.
  RawMetricsGet m({1, 2, 3, 5, 10, 11, 12, 13, 20, 21, 60, 61, 4, 9999}, a, b);
  CHECK_EQ(metrics(m), NVML_ERROR_INVALID_ARGUMENT);  // neither sample filled
  CHECK_EQ(get(d0, a), NVML_SUCCESS);
  CHECK_EQ(metrics(m), NVML_ERROR_INVALID_ARGUMENT);  // sample2 never filled
  nvml.tick_once();                                   // tick 1
  CHECK_EQ(get(d0, b), NVML_SUCCESS);
  CHECK_EQ(metrics(m), NVML_SUCCESS);
  // GPU 0 at tick 1 (scenario values; the rates are the PCIe KiB/s and NVLink KiB counter steps in MiB/s).
  const double kTick1[] = {63.5, 55.25, 31.25,     36.5, 28.75,           0,
                           2.5,  27.25, 402.34375, 1000, 190734.86328125, 190734.86328125};
  for (unsigned i = 0; i < 12; ++i) {
    CHECK_EQ(m.ret(i), NVML_SUCCESS);
    if (m.value(i) != kTick1[i]) std::fprintf(stderr, "gpm entry %u: %f, expected %f\n", i, m.value(i), kTick1[i]);
    CHECK(m.value(i) == kTick1[i]);
    CHECK(m.info(i, 0) != "<null>");
  }
  CHECK(m.info(0, 2) == "%");
  CHECK(m.info(8, 2) == "MiB/s");
  CHECK(m.info(10, 1).find("receive") != std::string::npos);  // id 60 is RX, 61 TX
  CHECK_EQ(m.ret(12), NVML_ERROR_NOT_SUPPORTED);
  CHECK_EQ(m.ret(13), NVML_ERROR_NOT_SUPPORTED);
  CHECK(m.info(13, 0) == "<null>");
  CHECK(m.value(13) == 0.0);
  CHECK(m.guard_intact());  // nothing written past numMetrics entries

  // The values are those of sample2's tick, not of the call's.
  nvml.tick_once();
  nvml.tick_once();  // tick 3
  CHECK_EQ(metrics(m), NVML_SUCCESS);
  CHECK(m.value(1) == 55.25);
  // sample2 older than sample1; the same tick twice (no time between them: 0, still SUCCESS).
  m.samples(b, a);
  CHECK_EQ(metrics(m), NVML_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(get(d0, a), NVML_SUCCESS);
  CHECK_EQ(get(d0, b), NVML_SUCCESS);
  m.samples(a, b);
  CHECK_EQ(metrics(m), NVML_SUCCESS);
  CHECK_EQ(m.ret(1), NVML_SUCCESS);
  CHECK(m.value(1) == 0.0);
  CHECK_EQ(m.ret(12), NVML_ERROR_NOT_SUPPORTED);
  nvml.tick_once();  // tick 4: settled values
  CHECK_EQ(get(d0, b), NVML_SUCCESS);
  CHECK_EQ(metrics(m), NVML_SUCCESS);
  CHECK(m.value(1) == 89.5);
  CHECK(m.value(3) == 61.25);
  // Samples of two GPUs.
  CHECK_EQ(get(d6, c), NVML_SUCCESS);
  m.samples(a, c);
  CHECK_EQ(metrics(m), NVML_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(get(d6, a), NVML_SUCCESS);
  nvml.tick_once();  // tick 5
  CHECK_EQ(get(d6, c), NVML_SUCCESS);
  CHECK_EQ(metrics(m), NVML_SUCCESS);
  CHECK(m.value(3) == 21.5);          // GPU 6 serves inference: little tensor work
  CHECK(m.value(11) == 18.0 / 1024);  // and hardly any NVLink traffic
  m.version(2);
  CHECK_EQ(metrics(m), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  CHECK_EQ(gpm.metrics(nullptr), NVML_ERROR_INVALID_ARGUMENT);
  ++metric_calls;

  // The full-size struct of the newer header: 210 entries accepted, 211 rejected.
  auto full = std::make_unique<nvmlGpmMetricsGet_t>();
  full->version = NVML_GPM_METRICS_GET_VERSION;
  full->sample1 = a;
  full->sample2 = c;
  for (auto& e : full->metrics) {
    e.metricId = NVML_GPM_METRIC_SM_UTIL;
    e.nvmlReturn = NVML_ERROR_UNKNOWN;
  }
  full->numMetrics = NVML_GPM_METRIC_MAX + 1;
  CHECK_EQ(gpm.metrics(full.get()), NVML_ERROR_INVALID_ARGUMENT);
  full->numMetrics = NVML_GPM_METRIC_MAX;
  CHECK_EQ(gpm.metrics(full.get()), NVML_SUCCESS);
  metric_calls += 2;
  for (const auto& e : full->metrics) {
    CHECK_EQ(e.nvmlReturn, NVML_SUCCESS);
    CHECK(e.value == 38.5);
  }
  // Pointers the library never allocated.
  full->sample1 = reinterpret_cast<nvmlGpmSample_t>(full.get());
  CHECK_EQ(gpm.metrics(full.get()), NVML_ERROR_INVALID_ARGUMENT);
  ++metric_calls;
  CHECK_EQ(get(d0, reinterpret_cast<nvmlGpmSample_t>(full.get())), NVML_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(gpm.free(reinterpret_cast<nvmlGpmSample_t>(full.get())), NVML_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(gpm.free(nullptr), NVML_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(gpm.free(a), NVML_SUCCESS);
  CHECK_EQ(gpm.free(a), NVML_ERROR_INVALID_ARGUMENT);  // already freed
  CHECK_EQ(nvml.shutdown(), NVML_SUCCESS);
  CHECK_EQ(gpm.free(b), NVML_SUCCESS);  // also after shutdown
  CHECK_EQ(gpm.free(c), NVML_SUCCESS);

  const std::string text = read_file(log);
  CHECK(text.find("nvmlGpmSampleGet " + std::to_string(gets) + "\n") != std::string::npos);
  CHECK(text.find("nvmlGpmMetricsGet " + std::to_string(metric_calls) + "\n") != std::string::npos);
  CHECK(text.find("nvmlGpmSampleAlloc 4\n") != std::string::npos);  // a, b, c and the NULL one
}

void case_gpm_unsupported() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("a100_mig.json").c_str(), 1);  // A100: no GPM
  Nvml nvml(g_paths.full);
  GpmApi gpm(nvml);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  CHECK_EQ(nvml.tick_once(), 2u);
  nvmlDevice_t d0 = nvml.handle(0), d1 = nvml.handle(1);
  CHECK_EQ(gpm.supported(d0), 0u);
  CHECK_EQ(gpm.supported(d1), 0u);
  nvmlGpmSample_t a = gpm.sample(), b = gpm.sample();
  CHECK_EQ(gpm.get(d1, a), NVML_ERROR_NOT_SUPPORTED);
  CHECK_EQ(gpm.mig_get(d0, 1, a), NVML_ERROR_NOT_SUPPORTED);
  nvml.tick_once();
  CHECK_EQ(gpm.get(d1, b), NVML_ERROR_NOT_SUPPORTED);
  RawMetricsGet m({NVML_GPM_METRIC_SM_UTIL}, a, b);
  CHECK_EQ(gpm.metrics(m.get()), NVML_ERROR_INVALID_ARGUMENT);  // nothing was sampled
  nvmlDevice_t mig = nullptr;
  CHECK_EQ(
      nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned, nvmlDevice_t*)>("nvmlDeviceGetMigDeviceHandleByIndex")(d0, 0, &mig),
      NVML_SUCCESS);
  nvmlGpmSupport_t sup{NVML_GPM_SUPPORT_VERSION, 0};
  CHECK_EQ(gpm.query(mig, &sup), NVML_ERROR_NOT_SUPPORTED);  // MIG handles: no GPU-level calls
  CHECK_EQ(gpm.get(mig, a), NVML_ERROR_NOT_SUPPORTED);
}

void case_gpm_faults() {
  setenv("LLMON_FAKE_NVML_SCENARIO", scenario("faults.json").c_str(), 1);
  Nvml nvml(g_paths.full);
  GpmApi gpm(nvml);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  nvml.tick_once();  // tick 0
  nvmlDevice_t d0 = nvml.handle(0), d1 = nvml.handle(1);
  CHECK_EQ(gpm.supported(d0), 1u);
  CHECK_EQ(gpm.supported(d1), 0u);
  nvmlGpmSample_t a = gpm.sample(), b = gpm.sample();
  CHECK_EQ(gpm.get(d0, a), NVML_SUCCESS);
  nvml.tick_once();  // tick 1: tensor_util garbage
  CHECK_EQ(gpm.get(d0, b), NVML_SUCCESS);
  RawMetricsGet m({NVML_GPM_METRIC_ANY_TENSOR_UTIL, NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, NVML_GPM_METRIC_SM_UTIL},
                  a, b);
  CHECK_EQ(gpm.metrics(m.get()), NVML_SUCCESS);
  CHECK(m.value(0) == 250.0);                    // passes through
  CHECK_EQ(m.ret(1), NVML_ERROR_NOT_SUPPORTED);  // no NVLink
  CHECK(m.value(2) == 35.25);
  nvml.tick_once();  // tick 2: nvmlGpmMetricsGet fails, sampling does not
  CHECK_EQ(gpm.get(d0, a), NVML_SUCCESS);
  m.samples(b, a);
  CHECK_EQ(gpm.metrics(m.get()), NVML_ERROR_UNKNOWN);
  nvml.tick_once();  // tick 3; GPU 1 is lost
  CHECK_EQ(gpm.get(d0, b), NVML_SUCCESS);
  m.samples(a, b);
  CHECK_EQ(gpm.metrics(m.get()), NVML_SUCCESS);
  CHECK(m.value(0) == 22.25);
  nvmlGpmSupport_t sup{NVML_GPM_SUPPORT_VERSION, 0};
  CHECK_EQ(gpm.query(d1, &sup), NVML_ERROR_GPU_IS_LOST);
}

// MIG samples, a lost window, per-metric and per-call error injection, null values: a scenario of its own.
void case_gpm_mig_and_errors() {
  const std::string path = write_temp("gpm.json", R"({"devices": [{
      "uuid": "GPU-00000000-0000-0000-0000-000000000002", "name": "NVIDIA H100 80GB HBM3",
      "pci": {"bus_id": "00000000:18:00.0", "pci_device_id": "0x233010DE"},
      "gpm": {"values": {"sm_util": [50, 60, 70.5], "sm_occupancy": 40, "tensor_util": [null, 5]}},
      "mig": {"mode": 1, "instances": [
        {"uuid": "MIG-1", "name": "NVIDIA H100 80GB HBM3 MIG 3g.40gb", "gi": 1, "ci": 0,
         "gpm": {"values": {"sm_util": [10, 20]}}},
        {"uuid": "MIG-2", "name": "NVIDIA H100 80GB HBM3 MIG 3g.40gb", "gi": 2, "ci": 0}]},
      "lost": [{"from_tick": 5, "to_tick": 5}],
      "errors": [{"function": "nvmlGpmMetricsGet", "field": 3, "code": "NO_PERMISSION"},
                 {"function": "nvmlGpmSampleGet", "code": "UNKNOWN", "from_tick": 4, "to_tick": 4}]}]})");
  setenv("LLMON_FAKE_NVML_SCENARIO", path.c_str(), 1);
  Nvml nvml(g_paths.full);
  GpmApi gpm(nvml);
  CHECK_EQ(nvml.init(), NVML_SUCCESS);
  nvml.tick_once();  // tick 0
  nvmlDevice_t d = nvml.handle(0);
  CHECK_EQ(gpm.supported(d), 1u);  // "supported" defaults to true
  nvmlGpmSample_t a = gpm.sample(), b = gpm.sample(), g1a = gpm.sample(), g1b = gpm.sample(), g2a = gpm.sample(),
                  g2b = gpm.sample(), x = gpm.sample();
  CHECK_EQ(gpm.get(d, a), NVML_SUCCESS);
  CHECK_EQ(gpm.mig_get(d, 1, g1a), NVML_SUCCESS);
  CHECK_EQ(gpm.mig_get(d, 2, g2a), NVML_SUCCESS);
  CHECK_EQ(gpm.mig_get(d, 7, x), NVML_ERROR_INVALID_ARGUMENT);  // no such GPU instance
  nvmlDevice_t mig = nullptr;
  CHECK_EQ(
      nvml.fn<nvmlReturn_t(nvmlDevice_t, unsigned, nvmlDevice_t*)>("nvmlDeviceGetMigDeviceHandleByIndex")(d, 0, &mig),
      NVML_SUCCESS);
  CHECK_EQ(gpm.mig_get(mig, 1, x), NVML_ERROR_NOT_SUPPORTED);  // takes the GPU's handle
  // Equal ticks: a null value stays NOT_SUPPORTED, the others read 0.
  RawMetricsGet m({NVML_GPM_METRIC_SM_UTIL, NVML_GPM_METRIC_SM_OCCUPANCY, NVML_GPM_METRIC_ANY_TENSOR_UTIL}, a, a);
  CHECK_EQ(gpm.metrics(m.get()), NVML_SUCCESS);
  CHECK_EQ(m.ret(0), NVML_SUCCESS);
  CHECK(m.value(0) == 0.0);
  CHECK_EQ(m.ret(1), NVML_ERROR_NO_PERMISSION);  // injected for metric 3 only
  CHECK_EQ(m.ret(2), NVML_ERROR_NOT_SUPPORTED);  // null at tick 0
  nvml.tick_once();                              // tick 1
  CHECK_EQ(gpm.get(d, b), NVML_SUCCESS);
  CHECK_EQ(gpm.mig_get(d, 1, g1b), NVML_SUCCESS);
  CHECK_EQ(gpm.mig_get(d, 2, g2b), NVML_SUCCESS);
  m.samples(a, b);
  CHECK_EQ(gpm.metrics(m.get()), NVML_SUCCESS);
  CHECK(m.value(0) == 60.0);
  CHECK_EQ(m.ret(2), NVML_SUCCESS);
  CHECK(m.value(2) == 5.0);
  m.samples(g1a, g1b);  // the GPU instance's own values
  CHECK_EQ(gpm.metrics(m.get()), NVML_SUCCESS);
  CHECK(m.value(0) == 20.0);
  CHECK_EQ(m.ret(2), NVML_ERROR_NOT_SUPPORTED);
  m.samples(g2a, g2b);  // an instance without "gpm"
  CHECK_EQ(gpm.metrics(m.get()), NVML_SUCCESS);
  CHECK_EQ(m.ret(0), NVML_ERROR_NOT_SUPPORTED);
  m.samples(a, g1b);  // the GPU and a GPU instance
  CHECK_EQ(gpm.metrics(m.get()), NVML_ERROR_INVALID_ARGUMENT);
  m.samples(g1a, g2b);  // two GPU instances
  CHECK_EQ(gpm.metrics(m.get()), NVML_ERROR_INVALID_ARGUMENT);
  nvml.tick_once();
  nvml.tick_once();
  nvml.tick_once();  // tick 4: SampleGet fails and leaves the sample as it was
  CHECK_EQ(gpm.get(d, b), NVML_ERROR_UNKNOWN);
  m.samples(a, b);
  CHECK_EQ(gpm.metrics(m.get()), NVML_SUCCESS);
  CHECK(m.value(0) == 60.0);
  nvml.tick_once();  // tick 5: lost
  nvmlGpmSupport_t sup{NVML_GPM_SUPPORT_VERSION, 0};
  CHECK_EQ(gpm.query(d, &sup), NVML_ERROR_GPU_IS_LOST);
  CHECK_EQ(gpm.get(d, b), NVML_ERROR_GPU_IS_LOST);
  CHECK_EQ(gpm.metrics(m.get()), NVML_ERROR_GPU_IS_LOST);
  nvml.tick_once();  // tick 6: back
  CHECK_EQ(gpm.get(d, b), NVML_SUCCESS);
  CHECK_EQ(gpm.metrics(m.get()), NVML_SUCCESS);
  CHECK(m.value(0) == 70.5);
}

int run_case(const char* name, void (*fn)()) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    fn();
    std::fflush(nullptr);
    _exit(g_failures == 0 ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::printf("[%s] %s\n", ok ? "  OK  " : "FAILED", name);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <libnvidia-ml.so.1> <legacy libnvidia-ml.so.1> <scenarios dir>\n", argv[0]);
    return 2;
  }
  char tmpl[] = "/tmp/fake_nvml_selftest.XXXXXX";
  if (!mkdtemp(tmpl)) return 2;
  g_paths = {argv[1], argv[2], argv[3], tmpl};
  unsetenv("LLMON_FAKE_NVML_CALL_LOG");

  int failed = 0;
  failed += run_case("process_strides", case_process_strides);
  failed += run_case("ticks_and_garbage", case_ticks_and_garbage);
  failed += run_case("insufficient_size", case_insufficient_size);
  failed += run_case("memory_versions", case_memory_versions);
  failed += run_case("lost", case_lost);
  failed += run_case("events", case_events);
  failed += run_case("legacy_symbols", case_legacy_symbols);
  failed += run_case("legacy_behaviour", case_legacy_behaviour);
  failed += run_case("fields", case_fields);
  failed += run_case("mig", case_mig);
  failed += run_case("init_variants", case_init_variants);
  failed += run_case("hang_releases_lock", case_hang_releases_lock);
  failed += run_case("call_log", case_call_log);
  failed += run_case("reinit", case_reinit);
  failed += run_case("concurrent_threads", case_concurrent_threads);
  failed += run_case("gpm", case_gpm);
  failed += run_case("gpm_unsupported", case_gpm_unsupported);
  failed += run_case("gpm_faults", case_gpm_faults);
  failed += run_case("gpm_mig_and_errors", case_gpm_mig_and_errors);
  std::system(("rm -rf '" + g_paths.tmp + "'").c_str());
  std::printf("%d case(s) failed\n", failed);
  return failed == 0 ? 0 : 1;
}
