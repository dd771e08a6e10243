// The detectors of waiting on the fabric, the disks and the network, and of
// a cooling trend (communication_bound, checkpoint_slow, disk_saturation,
// network_saturation, cooling_degradation) over the real store and engine:
// each test injects the problem and a look-alike that must not be reported.
#include <gtest/gtest.h>

#include "diagnose/diagnose.h"
#include "diagnose_fixture.h"

namespace llmon::diagnose {
namespace {

using fixture::DiagnoseTest;
using fixture::kGiB;

constexpr double kIbLine = 25e9;  // HDR, bytes/s
constexpr double kEthLine = 3.125e9;

class BottleneckTest : public DiagnoseTest {
 protected:
  // A counter rising by 15 s x rate(i) each sample.
  static std::function<double(int, int)> counter(std::function<double(int)> rate) {
    return [rate](int i, int) {
      double c = 1e12;
      for (int k = 0; k <= i; ++k) c += 15 * rate(k);
      return c;
    };
  }
  // Four GPUs of one job with utilisation util(gpu, i), and the IB port's
  // transmit rate ib(i).
  void job(std::function<double(int, int)> util, std::function<double(int)> ib) {
    for (int g = 0; g < 4; ++g) busy_gpu(std::to_string(g), [util, g](int i, int) { return util(g, i); });
    series("node_infiniband_port_data_transmitted_bytes_total", {{"device", "mlx5_0"}, {"port", "1"}}, counter(ib));
    series("node_infiniband_rate_bytes_per_second", {{"device", "mlx5_0"}, {"port", "1"}}, constant(kIbLine));
    host();
  }
  void filesystem(const std::string& device, const std::string& mountpoint) {
    series("node_filesystem_size_bytes", {{"device", device}, {"fstype", "xfs"}, {"mountpoint", mountpoint}},
           constant(7.68e12));
  }
  void disk_writes(const std::string& dev, std::function<double(int)> bytes_per_s) {
    series("node_disk_written_bytes_total", {{"device", dev}}, counter(std::move(bytes_per_s)));
  }
};

// A third of the samples are all-reduce phases: every GPU at 35 %.
bool comm(int i) {
  return i % 3 == 0;
}

TEST_F(BottleneckTest, LockStepDipsAtTrafficPeaksAreCommunicationBound) {
  job([](int, int i) { return comm(i) ? 35 : 95; }, [](int i) { return comm(i) ? 0.96 * kIbLine : 1e9; });
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kCommunicationBound);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_EQ(f->subject.at("gpu"), "0,1,2,3");
  EXPECT_EQ(f->subject.at("device"), "mlx5_0");
  EXPECT_GE(f->confidence, 0.9);
  EXPECT_NE(f->summary.find("InfiniBand traffic peaks (correlation -1.00)"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("mlx5_0 peaks at 96 % of its link"), std::string::npos) << f->summary;
  EXPECT_EQ(d.findings.front().kind, kind::kCommunicationBound) << kinds(d);
  EXPECT_EQ(find(d, kind::kNetworkSaturation), nullptr) << "a third of the time is not saturated: " << kinds(d);
}

TEST_F(BottleneckTest, DipsWhenTrafficStopsAreNotCommunication) {
  // Checkpoint or evaluation pauses: the traffic stops with the GPUs.
  job([](int, int i) { return comm(i) ? 35 : 95; }, [](int i) { return comm(i) ? 1e8 : 8e9; });
  Diagnosis d = diagnose();
  EXPECT_EQ(find(d, kind::kCommunicationBound), nullptr) << kinds(d);
}

TEST_F(BottleneckTest, DipsOutOfStepAreNotCommunication) {
  // Each GPU dips on its own (a data loader per rank): the node's mean hardly moves.
  job([](int g, int i) { return i % 4 == g ? 35 : 95; }, [](int i) { return i % 2 ? 20e9 : 1e9; });
  Diagnosis d = diagnose();
  EXPECT_EQ(find(d, kind::kCommunicationBound), nullptr) << kinds(d);
}

// 3 of every 20 samples (45 s) the job writes a checkpoint.
bool ckpt(int i) {
  return i % 20 >= 5 && i % 20 < 8;
}

TEST_F(BottleneckTest, IdleGapsDuringWriteBurstsAreSlowCheckpoints) {
  job([](int, int i) { return ckpt(i) ? 2 : 95; }, [](int i) { return ckpt(i) ? 1e8 : 8e9; });
  disk_writes("nvme1n1", [](int i) { return ckpt(i) ? 150e6 : 1e6; });
  disk_writes("nvme0n1", [](int) { return 5e6; });
  filesystem("/dev/nvme1n1p1", "/checkpoints");
  filesystem("/dev/nvme0n1p1", "/data");
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kCheckpointSlow);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_EQ(f->subject.at("device"), "nvme1n1");
  EXPECT_EQ(f->subject.at("mountpoint"), "/checkpoints");
  EXPECT_EQ(f->subject.at("gpu"), "0,1,2,3");
  EXPECT_NE(f->summary.find("stop 15 % of 15m in 3 gaps of about 45 s"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("writes 150 MB/s (1 MB/s while they work)"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("below the 200 MB/s"), std::string::npos) << f->summary;
  EXPECT_EQ(find(d, kind::kCommunicationBound), nullptr) << kinds(d);
}

TEST_F(BottleneckTest, IdleGapsWithoutWritesAreNotCheckpoints) {
  job([](int, int i) { return ckpt(i) ? 2 : 95; }, [](int i) { return ckpt(i) ? 1e8 : 8e9; });
  disk_writes("nvme1n1", [](int) { return 5e6; });  // the same with and without the GPUs
  Diagnosis d = diagnose();
  EXPECT_EQ(find(d, kind::kCheckpointSlow), nullptr) << kinds(d);
}

TEST_F(BottleneckTest, ADiskBusyAllTheTimeIsSaturated) {
  healthy_gpu("0");
  host({.disk_util = 0.98});
  filesystem("/dev/nvme0n10p1", "/scratch");  // another disk, not a partition of nvme0n1
  filesystem("/dev/nvme0n1p1", "/data");
  const std::vector<model::Label> dev = {{"device", "nvme0n1"}};
  disk_writes("nvme0n1", [](int) { return 3.3e9; });
  series("node_disk_read_bytes_total", dev, counter([](int) { return 0; }));
  series("node_disk_writes_completed_total", dev, counter([](int) { return 1000; }));
  series("node_disk_reads_completed_total", dev, counter([](int) { return 0; }));
  series("node_disk_write_time_seconds_total", dev, counter([](int) { return 20; }));  // 20 ms a write
  series("node_disk_read_time_seconds_total", dev, counter([](int) { return 0; }));
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kDiskSaturation);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_EQ(f->subject.at("device"), "nvme0n1");
  EXPECT_EQ(f->subject.at("mountpoint"), "/data");
  EXPECT_NE(f->summary.find("disk nvme0n1 (/data) busy 98 % over 15m (90 % or more for 100 % of it); await 20.0 ms"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->summary.find("writing 3300 MB/s"), std::string::npos) << f->summary;
  EXPECT_EQ(find(d, kind::kInputBoundIo), nullptr) << "the GPU is busy: " << kinds(d);
}

TEST_F(BottleneckTest, ADiskBusyInBurstsIsNotSaturated) {
  healthy_gpu("0");
  host();
  series("node_disk_io_time_seconds_total", {{"device", "sda"}},
         counter([](int i) { return i % 10 < 3 ? 1.0 : 0.05; }));  // 30 % of the time at 100 %
  Diagnosis d = diagnose();
  EXPECT_EQ(find(d, kind::kDiskSaturation), nullptr) << kinds(d);
}

TEST(MountpointOf, MatchesTheDiskAndItsPartitionsOnly) {
  auto fs = [](std::string dev, std::string mnt) {
    promql::VectorSample s;
    s.labels = *model::Labels::make({{"device", dev}, {"mountpoint", mnt}});
    return s;
  };
  promql::Vector v = {fs("/dev/nvme0n10p1", "/a"), fs("/dev/sdb1", "/b"), fs("/dev/nvme0n1p2", "/c"),
                      fs("/dev/sda", "/d"), fs("tmpfs", "/run")};
  EXPECT_EQ(mountpoint_of(v, "nvme0n1"), "/c");
  EXPECT_EQ(mountpoint_of(v, "nvme0n10"), "/a");
  EXPECT_EQ(mountpoint_of(v, "sdb"), "/b");
  EXPECT_EQ(mountpoint_of(v, "sda"), "/d");
  EXPECT_EQ(mountpoint_of(v, "sd"), "");
  EXPECT_EQ(mountpoint_of(v, ""), "");
}

TEST_F(BottleneckTest, AnInterfaceAtLineRateIsSaturated) {
  healthy_gpu("0");
  host();
  const std::vector<model::Label> eth = {{"device", "ens3"}};
  series("node_network_speed_bytes", eth, constant(kEthLine));
  series("node_network_transmit_bytes_total", eth, counter([](int) { return 0.95 * kEthLine; }));
  series("node_network_receive_bytes_total", eth, counter([](int) { return 0.1 * kEthLine; }));
  series("node_network_transmit_drop_total", eth, counter([](int) { return 0; }));
  // The IB port at 30 %: busy, not full.
  const std::vector<model::Label> ib = {{"device", "mlx5_0"}, {"port", "1"}};
  series("node_infiniband_rate_bytes_per_second", ib, constant(kIbLine));
  series("node_infiniband_port_data_transmitted_bytes_total", ib, counter([](int) { return 0.3 * kIbLine; }));
  Diagnosis d = diagnose();
  int n = 0;
  for (const auto& f : d.findings) {
    if (f.kind != kind::kNetworkSaturation) continue;
    ++n;
    EXPECT_EQ(f.subject.at("device"), "ens3");
    EXPECT_NE(f.summary.find("interface ens3 transmit at 95 % of its link speed over 15m (90 % or more for 100 %"),
              std::string::npos)
        << f.summary;
    EXPECT_EQ(f.summary.find("dropped"), std::string::npos) << f.summary;
  }
  EXPECT_EQ(n, 1) << kinds(d);
}

TEST_F(BottleneckTest, DroppedPacketsBelowLineRateAreReported) {
  healthy_gpu("0");
  host();
  const std::vector<model::Label> eth = {{"device", "ens3"}};
  series("node_network_speed_bytes", eth, constant(kEthLine));
  series("node_network_receive_bytes_total", eth, counter([](int) { return 0.5 * kEthLine; }));
  series("node_network_receive_drop_total", eth, counter([](int) { return 40; }));
  series("node_network_receive_errs_total", eth, counter([](int) { return 10; }));
  series("node_network_transmit_drop_total", {{"device", "ens4"}}, counter([](int) { return 0; }));
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kNetworkSaturation);
  ASSERT_NE(f, nullptr) << kinds(d) << (d.errors.empty() ? "" : d.errors[0]);
  EXPECT_EQ(f->subject.at("device"), "ens3");
  EXPECT_NE(f->summary.find("interface ens3 at 50 % of its link speed; 50 packets/s dropped or in error"),
            std::string::npos)
      << f->summary;
  EXPECT_EQ(d.findings.size(), 1u) << "ens4 drops nothing: " << kinds(d);
}

// Three hours of GPU 0 at constant load, its temperature temp(i, n).
constexpr int64_t kThreeHours = 3 * 3600 * 1000;

class CoolingTest : public BottleneckTest {
 protected:
  void gpu_for_hours(const std::string& id, std::function<double(int, int)> temp,
                     std::function<double(int, int)> power = constant(650)) {
    series("DCGM_FI_DEV_GPU_UTIL", gpu(id), constant(95), kThreeHours);
    series("DCGM_FI_DEV_POWER_USAGE", gpu(id), std::move(power), kThreeHours);
    series("DCGM_FI_DEV_GPU_TEMP", gpu(id), std::move(temp), kThreeHours);
    series("DCGM_FI_DEV_SLOWDOWN_TEMP", gpu(id), constant(89), kThreeHours);
  }
};

// +3 °C an hour: 15 s a sample.
double ramp(int i, int) {
  return 60 + 3.0 * i * 15 / 3600;
}

TEST_F(CoolingTest, TemperatureRisingAtConstantLoadIsCoolingDegradation) {
  gpu_for_hours("0", ramp);
  gpu_for_hours("1", constant(62));
  host();
  Diagnosis d = diagnose();
  const Finding* f = find(d, kind::kCoolingDegradation);
  ASSERT_NE(f, nullptr) << kinds(d);
  EXPECT_EQ(f->subject.at("gpu"), "0");
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->end_ms - f->start_ms, 2 * 3600 * 1000) << "a lookback of 2 h";
  EXPECT_NE(f->summary.find("warms 3.0 °C an hour over 2h at constant load"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("69 °C now, 89 °C (slowdown) in about 7 h"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("1 other GPUs stay flat"), std::string::npos) << f->summary;
  EXPECT_EQ(d.findings.size(), 1u) << kinds(d);
}

TEST_F(CoolingTest, TemperatureFollowingThePowerIsNotCooling) {
  gpu_for_hours("0", ramp, [](int i, int) { return 400 + 0.1 * i; });  // the load grows: +40 % over 3 h
  host();
  Diagnosis d = diagnose();
  EXPECT_EQ(find(d, kind::kCoolingDegradation), nullptr) << kinds(d);
}

TEST_F(CoolingTest, AStepIsNotATrend) {
  gpu_for_hours("0", [](int i, int n) { return i < n / 2 ? 60 : 70; });  // the inlet warmed once
  host();
  Diagnosis d = diagnose();
  EXPECT_EQ(find(d, kind::kCoolingDegradation), nullptr) << kinds(d);
}

}  // namespace
}  // namespace llmon::diagnose
