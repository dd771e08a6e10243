// amdgpu collector on tests/fixtures/amdgpu/{sys,proc,rootfs}: every series
// checked against values worked out by hand from the fixture files, the label
// scheme per hostname mode, silence on hosts without an amdgpu card, and
// cards and files vanishing between cycles.
#include "collector/gpu_amd.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector/registry.h"
#include "collector_test_util.h"
#include "gpu/amd/amdgpu.h"

namespace llmon::collector {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct ExpectedSeries {
  std::string family;
  Labels labels;  // every label of the series
  double value;
};

CollectorContext amd_context(const std::string& root) {
  CollectorContext ctx = testing::fixture_context();
  ctx.fs.sys_root = root + "/sys";
  ctx.fs.proc_root = root + "/proc";
  ctx.fs.root = root + "/rootfs";
  return ctx;
}

// Device labels of the two fixture cards, as LabelScheme orders them.
Labels card0(std::initializer_list<std::pair<std::string, std::string>> extra = {}) {
  Labels l = {{"gpu", "0"},        {"UUID", "a7c1d3e5f7091b2d"},        {"pci_bus_id", "0000:03:00.0"},
              {"device", "card0"}, {"modelName", "AMD Instinct MI210"}, {"Hostname", "node1"}};
  l.insert(l.end(), extra.begin(), extra.end());
  return l;
}
Labels card2(std::initializer_list<std::pair<std::string, std::string>> extra = {}) {
  Labels l = {{"gpu", "1"},
              {"UUID", ""},
              {"pci_bus_id", "0000:0c:00.0"},
              {"device", "card2"},
              {"modelName", "AMD GPU 0x744c"},
              {"Hostname", "node1"}};
  l.insert(l.end(), extra.begin(), extra.end());
  return l;
}
Labels proc(Labels device, const std::string& pid, const std::string& command, const std::string& user,
            std::initializer_list<std::pair<std::string, std::string>> extra = {}) {
  device.insert(
      device.end(),
      {{"pid", pid}, {"command", command}, {"user", user}, {"container", ""}, {"pod", ""}, {"namespace", ""}});
  device.insert(device.end(), extra.begin(), extra.end());
  return device;
}

// Values computed by hand from tests/fixtures/amdgpu (see the file contents).
std::vector<ExpectedSeries> fixture_expectations() {
  return {
      {"llmon_gpu_info", card0({{"backend", "amdgpu"}}), 1},
      {"llmon_gpu_info", card2({{"backend", "amdgpu"}}), 1},
      // gpu_busy_percent 37 and 3, mem_busy_percent 12 (card2 has none).
      {"llmon_gpu_utilization_ratio", card0(), 0.37},
      {"llmon_gpu_utilization_ratio", card2(), 0.03},
      {"llmon_gpu_memory_busy_ratio", card0(), 0.12},
      {"llmon_gpu_memory_total_bytes", card0(), 68702699520.0},
      {"llmon_gpu_memory_total_bytes", card2(), 25753026560.0},
      {"llmon_gpu_memory_used_bytes", card0(), 12884901888.0},
      {"llmon_gpu_memory_used_bytes", card2(), 536870912.0},
      {"llmon_gpu_visible_memory_total_bytes", card0(), 68702699520.0},
      {"llmon_gpu_visible_memory_used_bytes", card0(), 1073741824.0},
      {"llmon_gpu_gtt_total_bytes", card0(), 135166136320.0},
      {"llmon_gpu_gtt_total_bytes", card2(), 33554432000.0},
      {"llmon_gpu_gtt_used_bytes", card0(), 25165824.0},
      {"llmon_gpu_gtt_used_bytes", card2(), 10485760.0},
      // temp*_input in m°C; card0 labelled, card2 named by index.
      {"llmon_gpu_temperature_celsius", card0({{"sensor", "edge"}}), 45},
      {"llmon_gpu_temperature_celsius", card0({{"sensor", "junction"}}), 52},
      {"llmon_gpu_temperature_celsius", card0({{"sensor", "mem"}}), 61},
      {"llmon_gpu_temperature_celsius", card2({{"sensor", "edge"}}), 38},
      {"llmon_gpu_temperature_celsius", card2({{"sensor", "junction"}}), 41},
      // power1_average 87000000 µW (card0; power1_input 91 W ignored), power1_input 12000000 µW (card2).
      {"llmon_gpu_power_watts", card0(), 87},
      {"llmon_gpu_power_watts", card2(), 12},
      {"llmon_gpu_power_limit_watts", card0(), 300},
      {"llmon_gpu_power_limit_watts", card2(), 303},
      {"llmon_gpu_fan_speed_rpm", card0(), 1850},
      {"llmon_gpu_fan_speed_rpm", card2(), 0},
      {"llmon_gpu_fan_speed_ratio", card0(), 128.0 / 255.0},
      // '*' levels: card0 sclk 1700 MHz, mclk 1600 MHz; card2 sclk 1840 MHz, mclk malformed.
      {"llmon_gpu_clock_hz", card0({{"clock", "sclk"}}), 1700e6},
      {"llmon_gpu_clock_hz", card0({{"clock", "mclk"}}), 1600e6},
      {"llmon_gpu_clock_hz", card2({{"clock", "sclk"}}), 1840e6},
      {"llmon_gpu_pcie_link_speed_gigatransfers_per_second", card0(), 16},
      {"llmon_gpu_pcie_link_speed_gigatransfers_per_second", card2(), 8},
      {"llmon_gpu_pcie_link_width", card0(), 16},
      {"llmon_gpu_pcie_link_width", card2(), 16},
      // pid 1000 on card0: client 11 (fds 3+4, one client) 4194304 KiB + client 13 1024 KiB.
      {"llmon_gpu_process_memory_bytes", proc(card0(), "1000", "python3", "alice"), (4194304.0 + 1024) * 1024},
      {"llmon_gpu_process_memory_bytes", proc(card2(), "1000", "python3", "alice"), 262144.0 * 1024},
      {"llmon_gpu_process_memory_bytes", proc(card0(), "2000", "llama-server", "root"), 8388608.0 * 1024},
      {"llmon_gpu_process_memory_bytes", proc(card2(), "2000", "llama-server", "root"), 1048576},
      {"llmon_gpu_process_gtt_bytes", proc(card0(), "1000", "python3", "alice"), 2048.0 * 1024},
      {"llmon_gpu_process_gtt_bytes", proc(card2(), "1000", "python3", "alice"), 512.0 * 1024},
      {"llmon_gpu_process_gtt_bytes", proc(card0(), "2000", "llama-server", "root"), 4096.0 * 1024},
      {"llmon_gpu_process_gtt_bytes", proc(card2(), "2000", "llama-server", "root"), 0},
      {"llmon_gpu_process_engine_seconds_total", proc(card0(), "1000", "python3", "alice", {{"engine", "gfx"}}), 1.5},
      {"llmon_gpu_process_engine_seconds_total", proc(card0(), "1000", "python3", "alice", {{"engine", "compute"}}),
       250.5},
      {"llmon_gpu_process_engine_seconds_total", proc(card2(), "1000", "python3", "alice", {{"engine", "gfx"}}), 2.0},
      {"llmon_gpu_process_engine_seconds_total", proc(card2(), "1000", "python3", "alice", {{"engine", "enc"}}), 0.1},
      {"llmon_gpu_process_engine_seconds_total", proc(card2(), "1000", "python3", "alice", {{"engine", "dec"}}), 0.3},
      {"llmon_gpu_process_engine_seconds_total", proc(card0(), "2000", "llama-server", "root", {{"engine", "gfx"}}), 0},
      {"llmon_gpu_process_engine_seconds_total", proc(card0(), "2000", "llama-server", "root", {{"engine", "compute"}}),
       7200},
  };
}

const model::Series* find_exact(const model::Snapshot& snap, const std::string& family, const Labels& labels) {
  for (const auto& f : snap.families) {
    if (f.name != family) continue;
    std::vector<std::string> names;
    for (const auto& [n, v] : labels) names.push_back(n);
    EXPECT_EQ(f.label_names, names) << family;
    for (const auto& s : f.series) {
      bool match = true;
      for (size_t i = 0; i < labels.size() && match; ++i) match = s.label_values[i] == labels[i].second;
      if (match) return &s;
    }
  }
  return nullptr;
}

std::string describe(const Labels& l) {
  std::string out = "{";
  for (const auto& [n, v] : l) out += n + "=\"" + v + "\",";
  return out + "}";
}

void expect_all(const model::Snapshot& snap, const std::vector<ExpectedSeries>& want) {
  std::map<std::string, size_t> count;
  for (const auto& e : want) {
    ++count[e.family];
    const model::Series* s = find_exact(snap, e.family, e.labels);
    ASSERT_NE(s, nullptr) << e.family << describe(e.labels);
    EXPECT_DOUBLE_EQ(s->value, e.value) << e.family << describe(e.labels);
  }
  // Nothing more than expected: every family with series is listed, with as many series.
  size_t total = 0;
  for (const auto& f : snap.families) {
    total += f.series.size();
    if (f.series.empty()) continue;
    EXPECT_EQ(f.series.size(), count[f.name]) << f.name;
  }
  EXPECT_EQ(total, want.size());
}

TEST(AmdGpuCollector, FixtureSeries) {
  auto c = make_amdgpu_with_hostname(amd_context(testing::fixture("amdgpu")), "node1");
  model::Snapshot snap;
  Status st = testing::collect_once(*c, snap);
  ASSERT_TRUE(st) << st.message();
  expect_all(snap, fixture_expectations());

  for (const auto& f : snap.families) {
    EXPECT_EQ(f.name.rfind("llmon_gpu_", 0), 0u) << f.name;
    EXPECT_TRUE(model::is_valid_metric_name(f.name)) << f.name;
    EXPECT_FALSE(f.help.empty()) << f.name;
    EXPECT_EQ(f.help.find('\n'), std::string::npos) << f.name;
    const bool counter = f.name.size() > 6 && f.name.compare(f.name.size() - 6, 6, "_total") == 0;
    EXPECT_EQ(f.type, counter ? model::MetricType::kCounter : model::MetricType::kGauge) << f.name;
    for (const auto& n : f.label_names) EXPECT_NE(n, "DCGM_FI_DRIVER_VERSION") << f.name;
  }

  // The steady state: a second cycle gives the same page.
  ASSERT_TRUE(testing::collect_once(*c, snap, 2000));
  expect_all(snap, fixture_expectations());
}

TEST(AmdGpuCollector, RegisteredAndEnabledByDefault) {
  const CollectorInfo* info = find_collector("amdgpu");
  ASSERT_NE(info, nullptr);
  EXPECT_TRUE(info->enabled_by_default);
  // The registry's factory (real host name) produces the same series set.
  auto c = info->make(amd_context(testing::fixture("amdgpu")));
  model::Snapshot snap;
  ASSERT_TRUE(testing::collect_once(*c, snap));
  EXPECT_EQ(testing::series_count(snap, "llmon_gpu_info"), 2u);
  EXPECT_EQ(testing::series_count(snap, "llmon_gpu_process_memory_bytes"), 4u);
}

TEST(AmdGpuCollector, HostnameLabelModes) {
  for (const char* mode : {"none", "hostname", "Hostname"}) {
    CollectorContext ctx = amd_context(testing::fixture("amdgpu"));
    ctx.set_option(flag::kCollectorGpuHostnameLabel, mode);
    auto c = make_amdgpu_with_hostname(ctx, "node1");
    model::Snapshot snap;
    ASSERT_TRUE(testing::collect_once(*c, snap)) << mode;
    const model::Family* f = snap.find("llmon_gpu_utilization_ratio");
    ASSERT_NE(f, nullptr);
    std::vector<std::string> names = {"gpu", "UUID", "pci_bus_id", "device", "modelName"};
    if (std::string(mode) != "none") names.push_back(mode);
    EXPECT_EQ(f->label_names, names) << mode;
    const model::Family* p = snap.find("llmon_gpu_process_memory_bytes");
    ASSERT_NE(p, nullptr);
    names.insert(names.end(), {"pid", "command", "user", "container", "pod", "namespace"});
    EXPECT_EQ(p->label_names, names) << mode;
  }

  CollectorContext ctx = amd_context(testing::fixture("amdgpu"));
  ctx.set_option(flag::kCollectorGpuHostnameLabel, "HOSTNAME");
  auto c = make_amdgpu_with_hostname(ctx, "node1");
  model::Snapshot snap;
  Status st = testing::collect_once(*c, snap);
  EXPECT_FALSE(st);
  EXPECT_NE(st.message().find("collector.gpu.hostname-label"), std::string::npos) << st.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(AmdGpuCollector, HostnameOptionAndProcessesOff) {
  CollectorContext ctx = amd_context(testing::fixture("amdgpu"));
  ctx.set_option(flag::kCollectorGpuHostname, "gpu-node-7");
  ctx.set_option(flag::kCollectorGpuProcesses, "false");
  // No /proc: with per-process metrics off it is never read.
  ctx.fs.proc_root = testing::fixture("amdgpu/no-such-proc");
  auto c = make_amdgpu_with_hostname(ctx, "node1");
  model::Snapshot snap;
  Status st = testing::collect_once(*c, snap);
  ASSERT_TRUE(st) << st.message();
  EXPECT_EQ(testing::value_of(snap, "llmon_gpu_info", {{"device", "card0"}, {"Hostname", "gpu-node-7"}}), 1);
  EXPECT_EQ(testing::series_count(snap, "llmon_gpu_info"), 2u);
  EXPECT_EQ(testing::families_with_prefix(snap, "llmon_gpu_process_"), 0u);

  // With processes on, an unlistable /proc fails the cycle but keeps the device series.
  ctx.set_option(flag::kCollectorGpuProcesses, "true");
  auto c2 = make_amdgpu_with_hostname(ctx, "node1");
  st = testing::collect_once(*c2, snap);
  EXPECT_FALSE(st);
  EXPECT_EQ(testing::series_count(snap, "llmon_gpu_info"), 2u);
}

TEST(AmdGpuCollector, SilentWithoutAmdgpuCard) {
  // The shared fixture has no class/drm; the proc root does not exist, so a
  // /proc scan would fail the cycle: none is made.
  CollectorContext ctx = testing::fixture_context();
  ctx.fs.proc_root = testing::fixture("amdgpu/no-such-proc");
  auto c = make_amdgpu_with_hostname(ctx, "node1");
  model::Snapshot snap;
  Status st = testing::collect_once(*c, snap);
  ASSERT_TRUE(st) << st.message();
  EXPECT_TRUE(snap.families.empty());

  // Only a non-amdgpu card (i915): the same.
  char tmpl[] = "/tmp/llmon-amdgpu-none-XXXXXX";
  std::filesystem::path root = ::mkdtemp(tmpl);
  std::filesystem::copy(testing::fixture("amdgpu/sys"), root / "sys",
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  std::filesystem::remove(root / "sys/class/drm/card0");
  std::filesystem::remove(root / "sys/class/drm/card2");
  ctx.fs.sys_root = (root / "sys").string();
  auto c2 = make_amdgpu_with_hostname(ctx, "node1");
  st = testing::collect_once(*c2, snap);
  std::filesystem::remove_all(root);
  ASSERT_TRUE(st) << st.message();
  EXPECT_TRUE(snap.families.empty());
}

// A writable copy of the fixture, symlinks kept as they are.
class TempAmd {
 public:
  TempAmd() {
    char tmpl[] = "/tmp/llmon-amdgpu-XXXXXX";
    root_ = ::mkdtemp(tmpl);
    std::filesystem::copy(testing::fixture("amdgpu"), root_,
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  }
  ~TempAmd() { std::filesystem::remove_all(root_); }
  std::string root() const { return root_.string(); }
  std::filesystem::path path(const std::string& rel) const { return root_ / rel; }
  void rewrite(const std::string& rel, const std::string& text) const { std::ofstream(path(rel)) << text; }

 private:
  std::filesystem::path root_;
};

TEST(AmdGpuCollector, CardsAndFilesVanish) {
  TempAmd t;
  auto c = make_amdgpu_with_hostname(amd_context(t.root()), "node1");
  model::Snapshot snap;
  int64_t now = 1000;
  ASSERT_TRUE(testing::collect_once(*c, snap, now));
  expect_all(snap, fixture_expectations());

  // card2 unplugged: its class entry goes, and with it every card2 series,
  // processes included, in the very next cycle.
  std::filesystem::remove(t.path("sys/class/drm/card2"));
  std::filesystem::remove_all(t.path("sys/devices/pci0000:00/0000:0c:00.0"));
  ASSERT_TRUE(testing::collect_once(*c, snap, ++now));
  std::vector<ExpectedSeries> want;
  for (auto& e : fixture_expectations())
    if (e.labels[3].second == "card0") want.push_back(e);
  expect_all(snap, want);

  // A value file turning to garbage (rewritten in place): that value only.
  t.rewrite("sys/devices/pci0000:00/0000:03:00.0/gpu_busy_percent", "N/A\n");
  ASSERT_TRUE(testing::collect_once(*c, snap, ++now));
  EXPECT_EQ(testing::series_count(snap, "llmon_gpu_utilization_ratio"), 0u);
  EXPECT_EQ(testing::series_count(snap, "llmon_gpu_memory_used_bytes"), 1u);

  // Files deleted: gone after the re-walk; the others stay.
  std::filesystem::remove_all(t.path("sys/devices/pci0000:00/0000:03:00.0/hwmon"));
  std::filesystem::remove(t.path("sys/devices/pci0000:00/0000:03:00.0/pp_dpm_sclk"));
  now += gpu::amd::AmdGpuReader::kRescanMs;
  ASSERT_TRUE(testing::collect_once(*c, snap, now));
  for (const char* gone : {"llmon_gpu_temperature_celsius", "llmon_gpu_power_watts", "llmon_gpu_power_limit_watts",
                           "llmon_gpu_fan_speed_rpm", "llmon_gpu_fan_speed_ratio", "llmon_gpu_utilization_ratio"})
    EXPECT_EQ(testing::series_count(snap, gone), 0u) << gone;
  const model::Series* mclk = snap.find_series("llmon_gpu_clock_hz", {{"device", "card0"}, {"clock", "mclk"}});
  ASSERT_NE(mclk, nullptr);
  EXPECT_EQ(testing::series_count(snap, "llmon_gpu_clock_hz"), 1u);
  EXPECT_DOUBLE_EQ(testing::value_of(snap, "llmon_gpu_memory_used_bytes", {{"device", "card0"}}), 12884901888.0);
  EXPECT_EQ(testing::series_count(snap, "llmon_gpu_process_memory_bytes"), 2u);

  // The process side: pid 2000's fdinfo gone, pid 1000's card0 client 13 gone.
  std::filesystem::remove_all(t.path("proc/2000"));
  std::filesystem::remove(t.path("proc/1000/fd/5"));
  ASSERT_TRUE(testing::collect_once(*c, snap, ++now));
  EXPECT_EQ(testing::series_count(snap, "llmon_gpu_process_memory_bytes"), 1u);
  EXPECT_DOUBLE_EQ(testing::value_of(snap, "llmon_gpu_process_memory_bytes", {{"pid", "1000"}}), 4194304.0 * 1024);

  // The whole device gone (class entry left dangling): nothing at all.
  std::filesystem::remove_all(t.path("sys/devices/pci0000:00/0000:03:00.0"));
  now += gpu::amd::AmdGpuReader::kRescanMs;
  ASSERT_TRUE(testing::collect_once(*c, snap, now));
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
