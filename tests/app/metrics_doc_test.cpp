// docs/metrics.md lists every metric family each collector emits. The part
// between the GENERATED markers comes from running every collector on the
// fixture tree; this test fails when it is stale (LLMON_UPDATE_GOLDEN=1 rewrites it).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "app/setup.h"
#include "collector/registry.h"
#include "gpu/nvml/metric_table.h"
#include "gpu/nvml/smi_table.h"
#include "health/gpu_health.h"
#include "support/test_paths.h"

namespace llmon::app {
namespace {

const char* kBegin = "<!-- BEGIN GENERATED: metric table (tests/app/metrics_doc_test.cpp) -->\n";
const char* kEnd = "<!-- END GENERATED -->\n";
const char* kNvmlBegin = "<!-- BEGIN GENERATED: NVML sources (tests/app/metrics_doc_test.cpp) -->\n";
const char* kSmiBegin = "<!-- BEGIN GENERATED: nvidia_smi names (tests/app/metrics_doc_test.cpp) -->\n";

// The fake libnvidia-ml.so.1 built next to llmon (tests/fake_nvml).
std::string fake_nvml() {
  std::string bin = testing::llmon_binary();
  return bin.substr(0, bin.rfind('/')) + "/fake_nvml/libnvidia-ml.so.1";
}

// Flags that give each collector a tree showing all of its families: the
// fixture host, the GPU host with the fake 8x H100 NVML, the amdgpu tree; cpu
// with its off-by-default cpuinfo families, bcache with priority_stats'; ethtool
// without interfaces.
std::vector<std::string> flags_for(std::string_view name) {
  if (name == "gpu") {
    ::setenv("LLMON_FAKE_NVML_SCENARIO", (testing::source_dir() + "/tests/fake_nvml/scenarios/h100x8.json").c_str(), 1);
    return {"--path.procfs=" + testing::fixture("gpu_host/proc"), "--path.rootfs=" + testing::fixture("gpu_host/rootfs"),
            "--nvml.library=" + fake_nvml(), "--collector.gpu.hostname=node1"};
  }
  if (name == "amdgpu")
    return {"--path.procfs=" + testing::fixture("amdgpu/proc"), "--path.sysfs=" + testing::fixture("amdgpu/sys"),
            "--collector.gpu.hostname=node1"};
  // No systemd here, whatever the machine runs: the bus address names no
  // socket (the families are listed by hand in the systemd notes).
  if (name == "systemd") ::setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/llmon-doc-test-bus", 1);
  std::vector<std::string> flags = {"--path.procfs=" + testing::fixture("proc"),
                                    "--path.sysfs=" + testing::fixture("sys"),
                                    "--path.rootfs=" + testing::fixture("rootfs")};
  // ethtool asks the live kernel about the fixture's interface names, so no
  // interface is let through: its fixed families are listed (empty), the
  // per-driver node_ethtool_<stat> ones cannot be.
  if (name == "ethtool") flags.push_back("--collector.ethtool.device-include=^$");
  if (name == "cpu") {  // --collector.cpu.info's families too (the include flags imply it)
    flags.push_back("--collector.cpu.info.flags-include=^ht$");
    flags.push_back("--collector.cpu.info.bugs-include=^spectre_v1$");
  }
  if (name == "bcache") flags.push_back("--collector.bcache.priorityStats");  // its two optional families
  return flags;
}

bool has_family(const model::Snapshot& s, std::string_view name) { return s.find(name) != nullptr; }

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string generate() {
  base::ManualClock clock(1'700'000'000'000);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  std::string out = kBegin;
  for (const auto& info : collector::builtin_collectors()) {
    std::vector<std::string> args = {"agent", "--collector.disable-defaults", "--collector." + std::string(info.name)};
    for (auto& f : flags_for(info.name)) args.push_back(f);
    auto s = config::load(args, {});
    EXPECT_TRUE(s) << s.error();
    // As in the agent, the gpu collector feeds a health tracker (its families).
    auto health = std::make_shared<health::HealthTracker>(health::HealthOptions{}, clock);
    collector::Scheduler sched(enabled_collectors(*s, clock, log, health), clock, log, 1000);
    sched.run_cycle(1000);
    auto snap = sched.run_cycle(2000);
    // The fake NVML's Xid events arrive from tick 2 on a watcher thread
    // (waited for up to 20 s: under a loaded parallel ctest 3 s was too short).
    // The three event families can appear in different cycles: wait for all.
    auto events_in = [](const model::Snapshot& sn) {
      return has_family(sn, "llmon_gpu_xid_errors_total") && has_family(sn, "DCGM_FI_DEV_XID_ERRORS") &&
             has_family(sn, "llmon_gpu_events_total");
    };
    for (int i = 3; info.name == "gpu" && i < 400 && !events_in(*snap); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      snap = sched.run_cycle(i * 1000);
    }
    out += "\n### " + std::string(info.name) + (info.enabled_by_default ? "" : " (off by default)") + "\n\n";
    out += escape(std::string(info.help)) + "\n\n| Metric | Type | Labels | Help |\n|---|---|---|---|\n";
    for (uint32_t idx : snap->order) {
      const auto& f = snap->families[idx];
      if (f.name.rfind("node_scrape_collector_", 0) == 0) continue;
      std::string labels;
      for (const auto& l : f.label_names) labels += (labels.empty() ? "" : ", ") + l;
      out += "| `" + f.name + "` | " + std::string(model::type_name(f.type)) + " | " + labels + " | " +
             escape(f.help) + " |\n";
    }
  }
  out += "\n";
  out += kEnd;
  return out;
}

// Where each per-GPU NVIDIA value comes from (gpu/nvml/metric_table.cpp).
std::string generate_nvml_sources() {
  std::string out = kNvmlBegin;
  out += "\n| Metric | Type | NVML source |\n|---|---|---|\n";
  for (const auto& d : gpu::nvml::metric_table())
    out += "| `" + std::string(d.name) + "` | " + std::string(model::type_name(d.type)) + " | " +
           escape(std::string(d.source)) + " |\n";
  out += "\n";
  out += kEnd;
  return out;
}

// The nvidia_smi name set (gpu/nvml/smi_table.cpp): each name and the
// dcgm-exporter name of the same value.
std::string generate_smi_names() {
  std::string out = kSmiBegin;
  out += "\n| nvidia_gpu_exporter name | Type | HELP | Same value as |\n|---|---|---|---|\n";
  for (const auto& d : gpu::nvml::smi_table()) {
    std::string same;
    for (const auto& m : gpu::nvml::metric_table())
      if (m.value == d.value) same = "`" + std::string(m.name) + "`";
    out += "| `" + std::string(d.name) + "` | " + std::string(model::type_name(d.type)) + " | " +
           escape(std::string(d.help)) + " | " + same + " |\n";
  }
  out += "\n";
  out += kEnd;
  return out;
}

// Replaces the generated block starting at `begin` with `fresh`, or fails.
void check_block(const char* begin, const std::string& fresh) {
  std::string path = testing::source_dir() + "/docs/metrics.md";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  size_t b = doc.find(begin);
  ASSERT_NE(b, std::string::npos) << "docs/metrics.md lacks the marker " << begin;
  size_t e = doc.find(kEnd, b);
  ASSERT_NE(e, std::string::npos) << "docs/metrics.md lacks the END GENERATED marker after " << begin;
  std::string current = doc.substr(b, e + std::string(kEnd).size() - b);
  if (testing::update_golden() && current != fresh) {
    doc.replace(b, current.size(), fresh);
    std::ofstream(path) << doc;
    current = fresh;
  }
  EXPECT_EQ(current, fresh) << "docs/metrics.md is stale: rerun this test with LLMON_UPDATE_GOLDEN=1";
}

TEST(MetricsDoc, DocsMetricsMdListsEveryFamily) { check_block(kBegin, generate()); }

TEST(MetricsDoc, DocsMetricsMdNamesTheNvmlSourceOfEveryGpuValue) { check_block(kNvmlBegin, generate_nvml_sources()); }

TEST(MetricsDoc, DocsMetricsMdListsTheNvidiaSmiNames) {
  check_block(kSmiBegin, generate_smi_names());
}

}  // namespace
}  // namespace llmon::app
