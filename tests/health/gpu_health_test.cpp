#include "health/gpu_health.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/file_reader.h"
#include "base/strings.h"
#include "health/pci_address.h"
#include "health/state_file.h"
#include "support/test_paths.h"

namespace llmon::health {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kT0 = 1'764'700'000'000;  // a wall-clock time in ms

// The fake NVML h100x8 scenario's GPUs (tests/fake_nvml/scenarios/h100x8.json).
std::vector<GpuRef> h100x8() {
  const char* bus[] = {"18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"};
  std::vector<GpuRef> out;
  for (int i = 0; i < 8; ++i)
    out.push_back({std::to_string(i), "GPU-" + std::to_string(i), std::string("00000000:") + bus[i] + ":00.0"});
  return out;
}

class Tmp {
 public:
  Tmp() {
    char tmpl[] = "/tmp/llmon-health-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~Tmp() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Fixture {
  explicit Fixture(std::string boot = "boot-a", std::string dir = "") : clock(kT0) {
    HealthOptions o;
    o.boot_id = std::move(boot);
    o.state_dir = std::move(dir);
    tracker = std::make_unique<HealthTracker>(o, clock);
    tracker->set_gpus(h100x8());
  }
  GpuHealth gpu(size_t i) const {
    HealthSnapshot s = tracker->snapshot();
    for (const GpuHealth& g : s.gpus)
      if (g.gpu.gpu == std::to_string(i)) return g;
    ADD_FAILURE() << "no GPU " << i;
    return {};
  }
  base::ManualClock clock;
  std::unique_ptr<HealthTracker> tracker;
};

GpuRef g(size_t i) {
  return h100x8()[i];
}

TEST(GpuHealth, AllHealthyAtStart) {
  Fixture f;
  HealthSnapshot s = f.tracker->snapshot();
  ASSERT_EQ(s.gpus.size(), 8u);
  EXPECT_EQ(s.boot_id, "boot-a");
  EXPECT_EQ(s.time_ms, kT0);
  for (const GpuHealth& h : s.gpus) {
    EXPECT_EQ(h.state, HealthState::kHealthy);
    EXPECT_EQ(h.action, Action::kNone);
    EXPECT_TRUE(h.evidence.empty());
  }
  EXPECT_EQ(s.gpus[3].gpu.uuid, "GPU-3");
}

TEST(GpuHealth, NvmlAndKernelSightingsAreOneOccurrence) {
  Fixture f;
  auto a = f.tracker->observe_xid(g(5), 79, kT0, XidSource::kNvml, "boot-a", "NVML event Xid 79");
  EXPECT_TRUE(a.counted);
  EXPECT_TRUE(a.new_occurrence);
  auto b = f.tracker->observe_kernel_line(
      "NVRM: Xid (PCI:0000:ab:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", kT0 + 800,
      "boot-a");
  ASSERT_TRUE(b.gpu);
  EXPECT_EQ(b.gpu->uuid, "GPU-5");
  EXPECT_EQ(b.xid, 79u);
  EXPECT_FALSE(b.observation.counted);  // the kernel's view of the error NVML reported
  EXPECT_FALSE(b.observation.new_occurrence);
  GpuHealth h = f.gpu(5);
  EXPECT_EQ(h.state, HealthState::kUnhealthy);
  EXPECT_EQ(h.action, Action::kReboot);
  ASSERT_EQ(h.evidence.size(), 1u);
  const Evidence& e = h.evidence[0];
  EXPECT_EQ(e.kind, "xid");
  EXPECT_EQ(e.xid, 79u);
  EXPECT_EQ(e.count, 1u);
  EXPECT_EQ(e.sources, "nvml,kernel");
  EXPECT_EQ(e.nvml_line, "NVML event Xid 79");
  EXPECT_NE(e.kernel_line.find("fallen off the bus"), std::string::npos);
  ASSERT_EQ(h.xid_counts.size(), 1u);
  EXPECT_EQ(h.xid_counts[0], (std::pair<uint32_t, uint64_t>{79, 1}));
}

TEST(GpuHealth, PairsSightingsOneToOneWhicheverComesFirst) {
  Fixture f;
  int counted = 0;
  // Kernel first, then NVML, twice each: two errors.
  for (int i = 0; i < 2; ++i)
    counted += f.tracker->observe_xid(g(0), 31, kT0 + i, XidSource::kKernel, "boot-a", "k").counted;
  for (int i = 0; i < 2; ++i)
    counted += f.tracker->observe_xid(g(0), 31, kT0 + 5 + i, XidSource::kNvml, "boot-a", "n").counted;
  EXPECT_EQ(counted, 2);
  // A third from NVML only: three errors.
  counted += f.tracker->observe_xid(g(0), 31, kT0 + 9, XidSource::kNvml, "boot-a", "n").counted;
  EXPECT_EQ(counted, 3);
  GpuHealth h = f.gpu(0);
  ASSERT_EQ(h.evidence.size(), 1u);
  EXPECT_EQ(h.evidence[0].count, 3u);
  EXPECT_EQ(h.xid_counts[0].second, 3u);
}

TEST(GpuHealth, OutsideTheMergeWindowIsAnotherOccurrence) {
  Fixture f;
  f.tracker->observe_xid(g(1), 43, kT0, XidSource::kNvml, "boot-a", "");
  auto later = f.tracker->observe_xid(g(1), 43, kT0 + 61'000, XidSource::kKernel, "boot-a", "");
  EXPECT_TRUE(later.counted);
  EXPECT_TRUE(later.new_occurrence);
  f.clock.set_ms(kT0 + 62'000);
  EXPECT_EQ(f.gpu(1).evidence.size(), 2u);
  // Another GPU's Xid is not this one's.
  auto other = f.tracker->observe_xid(g(2), 43, kT0 + 61'000, XidSource::kNvml, "boot-a", "");
  EXPECT_TRUE(other.new_occurrence);
}

TEST(GpuHealth, FloodOfOneXidIsOneOccurrenceWithItsCount) {
  Fixture f;
  int occurrences = 0;
  for (int i = 0; i < 10'000; ++i)
    occurrences += f.tracker
                       ->observe_kernel_line("NVRM: Xid (PCI:0000:3a:00): 95, pid=1, name=x, Uncontained: FBHUB.",
                                             kT0 + i * 5, "boot-a")
                       .observation.new_occurrence;
  EXPECT_EQ(occurrences, 1);  // 50 s of lines, each within the window of the last
  GpuHealth h = f.gpu(2);
  ASSERT_EQ(h.evidence.size(), 1u);
  EXPECT_EQ(h.evidence[0].count, 10'000u);
  EXPECT_EQ(h.state, HealthState::kUnhealthy);
  EXPECT_EQ(h.action, Action::kResetGpu);
}

TEST(GpuHealth, RecoveryActionValues) {
  struct Case {
    uint32_t value;
    HealthState state;
    Action action;
  } cases[] = {
      {0, HealthState::kHealthy, Action::kNone},
      {1, HealthState::kUnhealthy, Action::kResetGpu},
      {2, HealthState::kUnhealthy, Action::kReboot},
      {3, HealthState::kUnhealthy, Action::kDrainP2p},
      {4, HealthState::kUnhealthy, Action::kDrainAndReset},
      {5, HealthState::kUnhealthy, Action::kActionNeeded},
      {77, HealthState::kUnhealthy, Action::kActionNeeded},
  };
  Fixture f;
  for (const Case& c : cases) {
    f.tracker->observe_recovery_action(g(4), c.value, kT0);
    GpuHealth h = f.gpu(4);
    EXPECT_EQ(h.state, c.state) << c.value;
    EXPECT_EQ(h.action, c.action) << c.value;
    if (c.value) {
      ASSERT_EQ(h.evidence.size(), 1u);
      EXPECT_EQ(h.evidence[0].kind, "recovery_action");
    }
  }
  f.tracker->observe_recovery_action(g(4), 0, kT0);
  EXPECT_EQ(f.gpu(4).state, HealthState::kHealthy);
}

TEST(GpuHealth, RebootClearsRebootClassXidsAndRecurrenceEscalates) {
  Tmp dir;
  {
    Fixture a("boot-a", dir.path());
    ASSERT_TRUE(a.tracker->load());
    a.tracker->observe_xid(g(6), 79, kT0, XidSource::kNvml, "boot-a", "xid 79");
    EXPECT_EQ(a.gpu(6).action, Action::kReboot);
    ASSERT_TRUE(a.tracker->last_save_status()) << a.tracker->last_save_status().message();
  }
  ASSERT_TRUE(fs::exists(state_file_path(dir.path())));
  {
    Fixture b("boot-b", dir.path());
    ASSERT_TRUE(b.tracker->load());
    EXPECT_EQ(b.gpu(6).state, HealthState::kHealthy);  // the reboot was the remedy
    b.clock.set_ms(kT0 + 3'600'000);
    b.tracker->observe_xid(g(6), 79, kT0 + 3'600'000, XidSource::kKernel, "boot-b", "again");
    EXPECT_EQ(b.gpu(6).action, Action::kReboot);  // 2 boots: not yet
  }
  Fixture c("boot-c", dir.path());
  ASSERT_TRUE(c.tracker->load());
  EXPECT_EQ(c.gpu(6).state, HealthState::kHealthy);
  c.clock.set_ms(kT0 + 7'200'000);
  c.tracker->observe_xid(g(6), 79, kT0 + 7'200'000, XidSource::kNvml, "boot-c", "third");
  GpuHealth h = c.gpu(6);
  EXPECT_EQ(h.state, HealthState::kUnhealthy);
  EXPECT_EQ(h.action, Action::kInspectHardware);
  ASSERT_FALSE(h.evidence.empty());
  EXPECT_EQ(h.evidence[0].kind, "xid_escalation");
  EXPECT_EQ(h.evidence[0].count, 3u);
  // Escalation survives the next reboot until the operator clears it.
  Fixture d("boot-d", dir.path());
  ASSERT_TRUE(d.tracker->load());
  d.clock.set_ms(kT0 + 9'000'000);
  EXPECT_EQ(d.gpu(6).action, Action::kInspectHardware);
  ASSERT_TRUE(d.tracker->set_healthy("GPU-6"));
  EXPECT_EQ(d.gpu(6).state, HealthState::kHealthy);
  Fixture e("boot-d", dir.path());  // the override is persisted
  ASSERT_TRUE(e.tracker->load());
  e.clock.set_ms(kT0 + 9'000'001);
  EXPECT_EQ(e.gpu(6).state, HealthState::kHealthy);
  // App-class Xids never escalate across reboots.
  EXPECT_EQ(e.gpu(6).set_healthy_ms, kT0 + 9'000'000);
}

TEST(GpuHealth, AppXidsInManyBootsDoNotEscalate) {
  Tmp dir;
  for (const char* boot : {"b1", "b2", "b3", "b4"}) {
    Fixture f(boot, dir.path());
    ASSERT_TRUE(f.tracker->load());
    f.tracker->observe_xid(g(0), 43, kT0, XidSource::kNvml, boot, "");
    EXPECT_EQ(f.gpu(0).action, Action::kRestartApp) << boot;
  }
}

TEST(GpuHealth, CorruptStateFileIsMovedAside) {
  Tmp dir;
  std::ofstream(state_file_path(dir.path())) << "{not json";
  Fixture f("boot-a", dir.path());
  Status st = f.tracker->load();
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("moved to"), std::string::npos);
  EXPECT_FALSE(fs::exists(state_file_path(dir.path())));
  EXPECT_EQ(f.tracker->snapshot().gpus.size(), 8u);
}

TEST(GpuHealth, SameXidOnManyGpusPointsAtTheWorkload) {
  Fixture f;
  for (size_t i = 0; i < 4; ++i)
    for (int k = 0; k < 3; ++k)  // three bursts each, two minutes apart
      f.tracker->observe_xid(g(i), 13, kT0 + k * 120'000 + static_cast<int64_t>(i) * 100, XidSource::kNvml, "boot-a",
                             "");
  f.clock.set_ms(kT0 + 400'000);
  for (size_t i = 0; i < 4; ++i) {
    GpuHealth h = f.gpu(i);
    EXPECT_EQ(h.state, HealthState::kDegraded) << i;
    EXPECT_EQ(h.action, Action::kRestartApp) << i;
    ASSERT_FALSE(h.evidence.empty());
    EXPECT_NE(h.evidence[0].detail.find("points at the workload"), std::string::npos);
  }
  EXPECT_EQ(f.gpu(4).state, HealthState::kHealthy);
}

TEST(GpuHealth, SameXidRepeatingOnOneGpuPointsAtTheHardware) {
  Fixture f;
  for (int k = 0; k < 3; ++k) f.tracker->observe_xid(g(2), 31, kT0 + k * 120'000, XidSource::kKernel, "boot-a", "");
  f.clock.set_ms(kT0 + 300'000);
  GpuHealth h = f.gpu(2);
  EXPECT_EQ(h.state, HealthState::kUnhealthy);
  EXPECT_EQ(h.action, Action::kInspectHardware);
  EXPECT_EQ(h.evidence[0].kind, "xid_repeat");
  EXPECT_EQ(h.evidence[0].count, 3u);
  // Two repeats are not enough.
  Fixture two;
  for (int k = 0; k < 2; ++k) two.tracker->observe_xid(g(2), 31, kT0 + k * 120'000, XidSource::kKernel, "boot-a", "");
  EXPECT_EQ(two.gpu(2).action, Action::kRestartApp);
}

TEST(GpuHealth, AppClassXidsFadeAfterTheTransientWindow) {
  Fixture f;
  f.tracker->observe_xid(g(1), 43, kT0, XidSource::kNvml, "boot-a", "");
  f.tracker->observe_xid(g(2), 48, kT0, XidSource::kNvml, "boot-a", "");
  f.clock.set_ms(kT0 + 3'600'001);
  EXPECT_EQ(f.gpu(1).state, HealthState::kHealthy);
  EXPECT_EQ(f.gpu(2).state, HealthState::kUnhealthy);  // reset class: until the reboot
}

TEST(GpuHealth, SetHealthyClearsUntilNewEvidence) {
  Fixture f;
  f.tracker->observe_recovery_action(g(3), 2, kT0);
  f.tracker->observe_xid(g(3), 48, kT0, XidSource::kNvml, "boot-a", "");
  f.clock.set_ms(kT0 + 1000);
  ASSERT_TRUE(f.tracker->set_healthy("3"));
  EXPECT_EQ(f.gpu(3).state, HealthState::kHealthy);
  f.tracker->observe_recovery_action(g(3), 2, kT0 + 2000);  // same value: not new
  EXPECT_EQ(f.gpu(3).state, HealthState::kHealthy);
  f.tracker->observe_recovery_action(g(3), 1, kT0 + 3000);  // changed: new evidence
  EXPECT_EQ(f.gpu(3).action, Action::kResetGpu);
  f.clock.set_ms(kT0 + 4000);
  ASSERT_TRUE(f.tracker->set_healthy("00000000:5D:00.0"));  // by PCI address too
  EXPECT_EQ(f.gpu(3).state, HealthState::kHealthy);
  f.tracker->observe_xid(g(3), 48, kT0 + 120'000, XidSource::kKernel, "boot-a", "");
  EXPECT_EQ(f.gpu(3).action, Action::kResetGpu);
  Status bad = f.tracker->set_healthy("GPU-nope");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("GPU-nope"), std::string::npos);
}

TEST(GpuHealth, EccAndRowRemap) {
  Fixture f;
  f.tracker->observe_ecc_uncorrectable(g(0), 0, kT0);
  EXPECT_EQ(f.gpu(0).state, HealthState::kHealthy);
  f.tracker->observe_ecc_uncorrectable(g(0), 2, kT0);
  EXPECT_EQ(f.gpu(0).state, HealthState::kDegraded);
  EXPECT_EQ(f.gpu(0).action, Action::kResetGpu);
  f.tracker->observe_row_remap(g(1), true, false, kT0);
  EXPECT_EQ(f.gpu(1).state, HealthState::kDegraded);
  EXPECT_EQ(f.gpu(1).action, Action::kResetGpu);
  f.tracker->observe_row_remap(g(1), true, true, kT0);
  EXPECT_EQ(f.gpu(1).state, HealthState::kUnhealthy);
  EXPECT_EQ(f.gpu(1).action, Action::kInspectHardware);
  f.tracker->observe_row_remap(g(1), false, false, kT0);
  EXPECT_EQ(f.gpu(1).state, HealthState::kHealthy);
}

TEST(GpuHealth, Xid63And64DeferToTheRemapFlags) {
  Fixture f;
  f.tracker->observe_xid(g(0), 64, kT0, XidSource::kNvml, "boot-a", "");
  EXPECT_EQ(f.gpu(0).action, Action::kInspectHardware);  // NVML has not answered the flags
  f.tracker->observe_row_remap(g(0), false, false, kT0);
  EXPECT_EQ(f.gpu(0).state, HealthState::kDegraded);
  EXPECT_EQ(f.gpu(0).action, Action::kNone);
  f.tracker->observe_row_remap(g(0), false, true, kT0);
  EXPECT_EQ(f.gpu(0).action, Action::kInspectHardware);
}

TEST(GpuHealth, PcieLinkBelowMaximumIsDebounced) {
  Fixture f;
  PcieLink narrow{5, 5, 8, 16, false};
  for (int i = 0; i < 2; ++i) f.tracker->observe_pcie_link(g(7), narrow, kT0 + i);
  EXPECT_EQ(f.gpu(7).state, HealthState::kHealthy);
  f.tracker->observe_pcie_link(g(7), narrow, kT0 + 2);
  EXPECT_EQ(f.gpu(7).state, HealthState::kDegraded);
  EXPECT_EQ(f.gpu(7).action, Action::kInspectHardware);
  EXPECT_NE(f.gpu(7).evidence[0].detail.find("x8/x16"), std::string::npos);
  f.tracker->observe_pcie_link(g(7), {5, 5, 16, 16, true}, kT0 + 3);
  EXPECT_EQ(f.gpu(7).state, HealthState::kHealthy);
  // An idle GPU trains its generation down to save power: not evidence.
  for (int i = 0; i < 5; ++i) f.tracker->observe_pcie_link(g(7), {1, 5, 16, 16, false}, kT0 + 10 + i);
  EXPECT_EQ(f.gpu(7).state, HealthState::kHealthy);
  for (int i = 0; i < 3; ++i) f.tracker->observe_pcie_link(g(7), {3, 5, 16, 16, true}, kT0 + 20 + i);
  EXPECT_EQ(f.gpu(7).state, HealthState::kDegraded);
}

TEST(GpuHealth, AerCountersFromTheFixtureTree) {
  Fixture f;
  const std::string sys = testing::fixture("health/sys");
  for (size_t i : {0u, 1u, 2u}) {
    auto c = read_aer_counts(sys, g(i).pci_bus_id);
    ASSERT_TRUE(c) << c.error();
    f.tracker->observe_aer(g(i), *c, kT0);
  }
  EXPECT_EQ(f.gpu(0).state, HealthState::kHealthy);    // 3 corrected
  EXPECT_EQ(f.gpu(1).state, HealthState::kUnhealthy);  // 1 fatal
  EXPECT_EQ(f.gpu(1).action, Action::kReboot);
  EXPECT_EQ(f.gpu(2).state, HealthState::kDegraded);  // 1 non-fatal
  f.tracker->observe_aer(g(0), {1001, 0, 0}, kT0);
  EXPECT_EQ(f.gpu(0).state, HealthState::kDegraded);  // corrected above the limit
}

TEST(GpuHealth, NvmlLostAndHung) {
  Fixture f;
  f.tracker->observe_nvml_status(g(4), NvmlStatus::kHung, kT0);
  EXPECT_EQ(f.gpu(4).state, HealthState::kUnhealthy);
  EXPECT_EQ(f.gpu(4).action, Action::kResetGpu);
  f.tracker->observe_nvml_status(g(4), NvmlStatus::kLost, kT0);
  EXPECT_EQ(f.gpu(4).action, Action::kReboot);
  EXPECT_EQ(f.gpu(4).evidence.size(), 2u);
  f.tracker->observe_nvml_status(g(4), NvmlStatus::kOk, kT0);
  EXPECT_EQ(f.gpu(4).state, HealthState::kHealthy);
}

TEST(GpuHealth, KmsgFixtureGivesTheRightStates) {
  Fixture f("boot-k");
  std::ifstream in(testing::fixture("health/kmsg_h100x8.txt"));
  std::string record;
  int unmapped_xids = 0, sxids = 0, ooms = 0;
  while (std::getline(in, record)) {
    if (record.empty() || record[0] == ' ') continue;  // continuation lines (SUBSYSTEM=, DEVICE=)
    const size_t semi = record.find(';');
    ASSERT_NE(semi, std::string::npos);
    const auto fields = base::split(std::string_view(record).substr(0, semi), ',');
    ASSERT_EQ(fields.size(), 4u);
    const int64_t usec = *base::parse_i64(fields[2]);
    KernelLineResult r =
        f.tracker->observe_kernel_line(std::string_view(record).substr(semi + 1), kT0 + usec / 1000, "boot-k");
    if (r.xid && !r.gpu) ++unmapped_xids;
    sxids += std::holds_alternative<SxidLine>(r.line);
    ooms += std::holds_alternative<OomKillLine>(r.line);
  }
  EXPECT_EQ(unmapped_xids, 1);
  EXPECT_EQ(sxids, 1);
  EXPECT_EQ(ooms, 1);
  f.clock.set_ms(kT0 + 11'000);
  struct Want {
    HealthState state;
    Action action;
  } want[8] = {
      {HealthState::kDegraded, Action::kRestartApp},  // Xid 13 on GPUs 0-2 at once: the workload
      {HealthState::kDegraded, Action::kRestartApp}, {HealthState::kDegraded, Action::kRestartApp},
      {HealthState::kUnhealthy, Action::kResetGpu},  // Xid 48
      {HealthState::kUnhealthy, Action::kReboot},    // fatal AER, fallen off the bus (79)
      {HealthState::kUnhealthy, Action::kReboot},    // Xid 79
      {HealthState::kHealthy, Action::kNone},        // corrected AER: evidence only
      {HealthState::kHealthy, Action::kNone},
  };
  HealthSnapshot s = f.tracker->snapshot();
  ASSERT_EQ(s.gpus.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(s.gpus[i].state, want[i].state) << "GPU " << i;
    EXPECT_EQ(s.gpus[i].action, want[i].action) << "GPU " << i;
  }
  EXPECT_EQ(s.gpus[4].evidence.size(), 2u);  // the AER line and Xid 79 (the detail line is not counted again)
  EXPECT_EQ(s.gpus[6].evidence.size(), 1u);
  EXPECT_EQ(s.gpus[6].evidence[0].kind, "aer_line");
}

TEST(GpuHealth, KernelAerLinesHoldUntilTheNextBootAcrossRestarts) {
  Tmp dir;
  const std::string bdf = *normalize_bus_id(g(0).pci_bus_id);
  {
    Fixture a("boot-a", dir.path());
    ASSERT_TRUE(a.tracker->load());
    a.tracker->observe_kernel_line("pcieport 0000:16:01.0: AER: Uncorrectable (Fatal) error received: " + bdf, kT0,
                                   "boot-a");
    EXPECT_EQ(a.gpu(0).state, HealthState::kUnhealthy);
    ASSERT_TRUE(a.tracker->last_save_status()) << a.tracker->last_save_status().message();
  }
  {
    Fixture same("boot-a", dir.path());  // the agent restarted: the line is not read again
    ASSERT_TRUE(same.tracker->load());
    GpuHealth h = same.gpu(0);
    EXPECT_EQ(h.state, HealthState::kUnhealthy);
    EXPECT_EQ(h.action, Action::kReboot);
    ASSERT_FALSE(h.evidence.empty());
    EXPECT_EQ(h.evidence[0].kind, "aer_line");
    EXPECT_NE(h.evidence[0].kernel_line.find(bdf), std::string::npos);
  }
  Fixture next("boot-b", dir.path());  // rebooted
  ASSERT_TRUE(next.tracker->load());
  EXPECT_EQ(next.gpu(0).state, HealthState::kHealthy);
}

TEST(GpuHealth, KernelLinesBeforeTheGpusAreKnownAreMappedOnceTheyAre) {
  base::ManualClock clock(kT0);
  HealthOptions o;
  o.boot_id = "boot-a";
  HealthTracker t(o, clock);
  const std::string pci = g(3).pci_bus_id.substr(4, 10);  // "0000:5D:00" form of the Xid line
  KernelLineResult early =
      t.observe_kernel_line("NVRM: Xid (PCI:" + pci + "): 79, pid=0, GPU has fallen off the bus.", kT0, "boot-a");
  EXPECT_FALSE(early.gpu.has_value());
  t.set_gpus(h100x8());
  HealthSnapshot s = t.snapshot();
  ASSERT_EQ(s.gpus.size(), 8u);
  EXPECT_EQ(s.gpus[3].state, HealthState::kUnhealthy);
  ASSERT_EQ(s.gpus[3].xid_counts.size(), 1u);
  EXPECT_EQ(s.gpus[3].xid_counts[0], (std::pair<uint32_t, uint64_t>{79, 1}));
  // Lines after the GPUs are known map at once.
  KernelLineResult late =
      t.observe_kernel_line("NVRM: Xid (PCI:" + pci + "): 79, pid=0, GPU has fallen off the bus.", kT0 + 1, "boot-a");
  ASSERT_TRUE(late.gpu.has_value());
  EXPECT_EQ(late.gpu->gpu, "3");
}

TEST(StateFile, RoundTripAndStrictness) {
  GpuRecords in;
  GpuRecord& r = in["GPU-1"];
  r.ref = {"1", "GPU-1", "00000000:2A:00.0"};
  r.set_healthy_ms = 5;
  r.boots[79] = {{"a", 1}, {"b", 2}};
  Occurrence o;
  o.xid = 79;
  o.boot_id = "b";
  o.first_ms = 2;
  o.last_ms = 3;
  o.nvml_count = 1;
  o.kernel_count = 2;
  o.kernel_line = "NVRM: Xid \xff";  // invalid UTF-8 is replaced, not fatal
  r.occurrences.push_back(o);
  auto out = decode_state(encode_state(in));
  ASSERT_TRUE(out) << out.error();
  const GpuRecord& back = out->at("GPU-1");
  EXPECT_EQ(back.ref.pci_bus_id, "00000000:2A:00.0");
  EXPECT_EQ(back.set_healthy_ms, 5);
  ASSERT_EQ(back.boots.at(79).size(), 2u);
  EXPECT_EQ(back.boots.at(79)[1].boot_id, "b");
  ASSERT_EQ(back.occurrences.size(), 1u);
  EXPECT_EQ(back.occurrences[0].count(), 2u);
  EXPECT_FALSE(decode_state("[]"));
  EXPECT_FALSE(decode_state(R"({"version":2,"gpus":[]})"));
  auto bad = decode_state(R"({"version":1,"gpus":[{"uuid":"u","occurrences":[{"xid":"x"}]}]})");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("gpu 1"), std::string::npos);
}

}  // namespace
}  // namespace llmon::health
