#include "procfs/ethtool.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "collector/builtin.h"
#include "collector/ethtool_ioctl.h"
#include "collector/options.h"
#include "collector_test_util.h"
#include "no_data_check.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

// One interface as a driver would answer.
struct FakeDevice {
  int info_err = 0, link_err = 0, stats_err = 0;
  EthtoolDriverInfo info;
  EthtoolLinkSettings link;
  std::vector<std::pair<std::string, uint64_t>> stats;
  int extra_values = 0;  // answer this many more values than names (a set that changed in between)
};

class FakeSource final : public EthtoolSource {
 public:
  explicit FakeSource(std::map<std::string, FakeDevice>* devices) : devices_(devices) {}
  int open() override { return open_err; }
  int driver_info(const std::string& device, EthtoolDriverInfo& out) override {
    const FakeDevice* d = find(device);
    if (!d) return ENODEV;
    if (d->info_err) return d->info_err;
    out = d->info;
    return 0;
  }
  int link_settings(const std::string& device, EthtoolLinkSettings& out) override {
    const FakeDevice* d = find(device);
    if (!d) return ENODEV;
    if (d->link_err) return d->link_err;
    out = d->link;
    return 0;
  }
  int stats(const std::string& device, uint32_t /*n*/, std::string_view& names,
            std::span<const uint64_t>& values) override {
    ++stats_calls;
    const FakeDevice* d = find(device);
    if (!d) return ENODEV;
    if (d->stats_err) return d->stats_err;
    names_.clear();
    values_.clear();
    for (const auto& [name, v] : d->stats) {
      std::string rec = name.substr(0, procfs::kEthtoolStringLen);
      rec.resize(procfs::kEthtoolStringLen, '\0');
      names_ += rec;
      values_.push_back(v);
    }
    for (int i = 0; i < d->extra_values; ++i) values_.push_back(0);
    names = names_;
    values = values_;
    return 0;
  }
  int open_err = 0;
  int stats_calls = 0;

 private:
  const FakeDevice* find(const std::string& name) const {
    auto it = devices_->find(name);
    return it == devices_->end() ? nullptr : &it->second;
  }
  std::map<std::string, FakeDevice>* devices_;
  std::string names_;
  std::vector<uint64_t> values_;
};

constexpr uint32_t bit(int b) {
  return 1u << b;
}

FakeDevice with_stats(FakeDevice d, std::vector<std::pair<std::string, uint64_t>> stats) {
  d.stats = std::move(stats);
  d.info.n_stats = static_cast<uint32_t>(d.stats.size());
  return d;
}

// A ConnectX-6 Dx port (mlx5_core) carrying RoCE: 25/40/56G modes in the
// legacy mask, FIBRE, autonegotiation and symmetric pause.
FakeDevice mlx5() {
  FakeDevice d;
  d.info = {"mlx5_core", "6.8.0-45-generic", "22.39.1002 (MT_0000000359)", "0000:41:00.0", "", 0};
  d.link.supported = bit(6) | bit(10) | bit(13) | bit(17) | bit(19) | bit(23) | bit(24) | bit(25) | bit(26) | bit(31);
  d.link.advertising = bit(6) | bit(13) | bit(24) | bit(31);
  d.link.autoneg = 1;
  return with_stats(d, {{"rx_packets", 912873645},
                        {"rx_bytes", 1198273645123},
                        {"tx_packets", 812736451},
                        {"tx_bytes", 998172635412},
                        {"rx_vport_rdma_unicast_packets", 712873645},
                        {"rx_vport_rdma_unicast_bytes", 912873645098},
                        {"tx_vport_rdma_unicast_packets", 612873645},
                        {"tx_vport_rdma_unicast_bytes", 812873645098},
                        {"rx_prio3_pause", 1234},
                        {"ch0_arm", 51234},
                        {"rx0_packets", 456436},
                        {"tx0_packets", 356436}});
}

// A veth end: driver "veth", no link modes, XDP counters per queue and its peer's ifindex.
FakeDevice veth(uint64_t peer) {
  FakeDevice d;
  d.info = {"veth", "1.0", "", "", "", 0};
  return with_stats(d, {{"peer_ifindex", peer},
                        {"rx_queue_0_xdp_packets", 0},
                        {"rx_queue_0_xdp_bytes", 0},
                        {"rx_queue_0_drops", 3},
                        {"rx_queue_0_xdp_tx", 0},
                        {"tx_queue_0_xdp_xmit", 0}});
}

FakeDevice virtio() {
  FakeDevice d;
  d.info = {"virtio_net", "1.0.0", "", "0000:00:03.0", "", 0};
  return with_stats(d, {{"rx_queue_0_packets", 1015}, {"rx_kicks", 1015}, {"tx_tx_timeouts", 0}, {"tx0_kicks", 2133}});
}

FakeDevice loopback() {  // the loopback driver implements none of the three
  FakeDevice d;
  d.info_err = d.link_err = d.stats_err = EOPNOTSUPP;
  return d;
}

class EthtoolCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* n : {"enp65s0f0np0", "eth0", "lo", "veth1a2b3c"})
      fx_.write(std::string("sys/class/net/") + n + "/ifindex", "1\n");
    fx_.write("sys/class/net/bonding_masters", "\n");  // a regular file: not an interface
    devices_["enp65s0f0np0"] = mlx5();
    devices_["eth0"] = virtio();
    devices_["lo"] = loopback();
    devices_["veth1a2b3c"] = veth(12);
  }
  std::unique_ptr<Collector> make(std::vector<std::pair<base::FlagRef, std::string>> options = {}) {
    auto ctx = fx_.context();
    for (const auto& [f, v] : options) ctx.set_option(f, v);
    ctx.log = log_;
    auto src = std::make_unique<FakeSource>(&devices_);
    source_ = src.get();
    return make_ethtool_with(ctx, std::move(src));
  }
  Status collect(Collector& c) {
    snap_ = model::Snapshot{};
    return collect_once(c, snap_);
  }

  TempFixture fx_{std::initializer_list<const char*>{}};
  std::map<std::string, FakeDevice> devices_;
  FakeSource* source_ = nullptr;
  base::Logger* log_ = nullptr;
  model::Snapshot snap_;
};

TEST_F(EthtoolCollectorTest, InfoFamily) {
  auto c = make();
  ASSERT_TRUE(collect(*c));
  expect_family(snap_, "node_ethtool_info", model::MetricType::kGauge,
                "A metric with a constant '1' value labeled by bus_info, device, driver, expansion_rom_version, "
                "firmware_version, version.");
  EXPECT_EQ(value_of(snap_, "node_ethtool_info",
                     {{"bus_info", "0000:41:00.0"},
                      {"device", "enp65s0f0np0"},
                      {"driver", "mlx5_core"},
                      {"expansion_rom_version", ""},
                      {"firmware_version", "22.39.1002 (MT_0000000359)"},
                      {"version", "6.8.0-45-generic"}}),
            1);
  EXPECT_EQ(value_of(snap_, "node_ethtool_info",
                     {{"bus_info", ""},
                      {"device", "veth1a2b3c"},
                      {"driver", "veth"},
                      {"expansion_rom_version", ""},
                      {"firmware_version", ""},
                      {"version", "1.0"}}),
            1);
  EXPECT_EQ(series_count(snap_, "node_ethtool_info"), 3u);  // not lo (EOPNOTSUPP)
}

TEST_F(EthtoolCollectorTest, StatsFamiliesUntypedWithDriverNamesInHelp) {
  auto c = make();
  ASSERT_TRUE(collect(*c));
  expect_family(snap_, "node_ethtool_received_vport_rdma_unicast_packets", model::MetricType::kUntyped,
                "Network interface rx_vport_rdma_unicast_packets");
  EXPECT_EQ(value_of(snap_, "node_ethtool_received_vport_rdma_unicast_packets", {{"device", "enp65s0f0np0"}}),
            712873645);
  EXPECT_EQ(value_of(snap_, "node_ethtool_transmitted_vport_rdma_unicast_bytes", {{"device", "enp65s0f0np0"}}),
            812873645098);
  EXPECT_EQ(value_of(snap_, "node_ethtool_received_prio3_pause", {{"device", "enp65s0f0np0"}}), 1234);
  EXPECT_EQ(value_of(snap_, "node_ethtool_ch0_arm", {{"device", "enp65s0f0np0"}}), 51234);
  expect_family(snap_, "node_ethtool_received_bytes_total", model::MetricType::kUntyped,
                "Network interface bytes received");
  EXPECT_EQ(value_of(snap_, "node_ethtool_received_bytes_total", {{"device", "enp65s0f0np0"}}), 1198273645123);
  expect_family(snap_, "node_ethtool_transmitted_packets_total", model::MetricType::kUntyped,
                "Network interface packets sent");
  expect_family(snap_, "node_ethtool_peer_ifindex", model::MetricType::kUntyped, "Network interface peer_ifindex");
  EXPECT_EQ(value_of(snap_, "node_ethtool_peer_ifindex", {{"device", "veth1a2b3c"}}), 12);
  expect_family(snap_, "node_ethtool_received_queue_0_xdp_transmitted", model::MetricType::kUntyped,
                "Network interface rx_queue_0_xdp_tx");
  EXPECT_EQ(value_of(snap_, "node_ethtool_received_queue_0_drops", {{"device", "veth1a2b3c"}}), 3);
  EXPECT_EQ(value_of(snap_, "node_ethtool_transmitted_tx_timeouts", {{"device", "eth0"}}), 0);
  EXPECT_EQ(value_of(snap_, "node_ethtool_tx0_kicks", {{"device", "eth0"}}), 2133);
  // The loopback answered nothing; bonding_masters is not an interface.
  for (const auto& f : snap_.families)
    for (const auto& s : f.series)
      for (const auto& v : s.label_values) {
        EXPECT_NE(v, "lo") << f.name;
        EXPECT_NE(v, "bonding_masters") << f.name;
      }
}

TEST_F(EthtoolCollectorTest, LinkModesFromTheLegacyMasks) {
  auto c = make();
  ASSERT_TRUE(collect(*c));
  const char* dev = "enp65s0f0np0";
  expect_family(snap_, "node_network_supported_speed_bytes", model::MetricType::kGauge,
                "Combination of speeds and features supported by network device");
  EXPECT_EQ(value_of(snap_, "node_network_supported_speed_bytes",
                     {{"device", dev}, {"duplex", "full"}, {"mode", "40000baseCR4"}}),
            5e9);
  EXPECT_EQ(value_of(snap_, "node_network_supported_speed_bytes",
                     {{"device", dev}, {"duplex", "full"}, {"mode", "25000baseCR"}}),
            25000 * 125000.0);
  EXPECT_EQ(value_of(snap_, "node_network_supported_speed_bytes",
                     {{"device", dev}, {"duplex", "full"}, {"mode", "1000baseKX"}}),
            1.25e8);
  EXPECT_EQ(series_count(snap_, "node_network_supported_speed_bytes"), 7u);
  expect_family(snap_, "node_network_advertised_speed_bytes", model::MetricType::kGauge,
                "Combination of speeds and features offered by network device");
  EXPECT_EQ(series_count(snap_, "node_network_advertised_speed_bytes"), 2u);
  expect_family(snap_, "node_network_supported_port_info", model::MetricType::kGauge,
                "Type of ports or PHYs supported by network device");
  EXPECT_EQ(value_of(snap_, "node_network_supported_port_info", {{"device", dev}, {"type", "FIBRE"}}), 1);
  EXPECT_EQ(series_count(snap_, "node_network_supported_port_info"), 1u);
  expect_family(snap_, "node_network_autonegotiate", model::MetricType::kGauge, "If this port is using autonegotiate");
  EXPECT_EQ(value_of(snap_, "node_network_autonegotiate", {{"device", dev}}), 1);
  expect_family(snap_, "node_network_autonegotiate_supported", model::MetricType::kGauge,
                "If this port device supports autonegotiate");
  EXPECT_EQ(value_of(snap_, "node_network_autonegotiate_supported", {{"device", dev}}), 1);
  expect_family(snap_, "node_network_pause_supported", model::MetricType::kGauge,
                "If this port device supports pause frames");
  EXPECT_EQ(value_of(snap_, "node_network_pause_advertised", {{"device", dev}}), 1);
  expect_family(snap_, "node_network_asymmetricpause_supported", model::MetricType::kGauge,
                "If this port device supports asymmetric pause frames");
  EXPECT_EQ(value_of(snap_, "node_network_asymmetricpause_advertised", {{"device", dev}}), 0);
  expect_family(snap_, "node_network_asymmetricpause_advertised", model::MetricType::kGauge,
                "If this port device offers asymmetric pause capability");
  expect_family(snap_, "node_network_autonegotiate_advertised", model::MetricType::kGauge,
                "If this port device offers autonegotiate");
  expect_family(snap_, "node_network_pause_advertised", model::MetricType::kGauge,
                "If this port device offers pause capability");
  // veth and virtio_net answer GSET with empty masks: the flags are 0, no speeds or ports.
  EXPECT_EQ(value_of(snap_, "node_network_autonegotiate", {{"device", "veth1a2b3c"}}), 0);
  EXPECT_EQ(value_of(snap_, "node_network_pause_supported", {{"device", "eth0"}}), 0);
  EXPECT_TRUE(std::isnan(value_of(snap_, "node_network_autonegotiate", {{"device", "lo"}})));
  // Series in label order (node_exporter's page order).
  const model::Family* f = snap_.find("node_network_supported_speed_bytes");
  ASSERT_NE(f, nullptr);
  for (size_t i = 1; i < f->series.size(); ++i) EXPECT_LT(f->series[i - 1].label_values, f->series[i].label_values);
}

TEST_F(EthtoolCollectorTest, DriverThatRefusesStats) {
  FakeDevice bridge;  // GDRVINFO answers, no ETH_SS_STATS: stats are not asked for
  bridge.info = {"bridge", "2.3", "N/A", "N/A", "", 0};
  devices_ = {{"br0", bridge}};
  fx_.write("sys/class/net/br0/ifindex", "5\n");
  FakeDevice refusing = virtio();  // counts them but refuses GSTRINGS
  refusing.stats_err = EOPNOTSUPP;
  devices_["eth0"] = refusing;
  auto c = make();
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(source_->stats_calls, 1);  // eth0 only
  EXPECT_EQ(series_count(snap_, "node_ethtool_info"), 2u);
  EXPECT_EQ(testing::families_with_prefix(snap_, "node_ethtool_"), 1u);  // just the info family
  EXPECT_EQ(value_of(snap_, "node_network_autonegotiate", {{"device", "br0"}}), 0);
}

TEST_F(EthtoolCollectorTest, EveryCallFailingStillSucceeds) {
  devices_ = {{"eth0", loopback()}, {"lo", loopback()}};
  FakeDevice gone;
  gone.info_err = gone.link_err = ENODEV;
  devices_["veth1a2b3c"] = gone;
  auto c = make();
  Status s = collect(*c);
  EXPECT_TRUE(s) << s.message();  // 1.5: logged, node_scrape_collector_success 1
  EXPECT_EQ(snap_.series_count(), 0u);
}

TEST_F(EthtoolCollectorTest, DeviceIncludeAndExclude) {
  auto c =
      make({{flag::kCollectorEthtoolDeviceInclude, "^(enp|veth)"}, {flag::kCollectorEthtoolDeviceExclude, "^veth"}});
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(series_count(snap_, "node_ethtool_info"), 1u);
  EXPECT_EQ(value_of(snap_, "node_ethtool_ch0_arm", {{"device", "enp65s0f0np0"}}), 51234);
  EXPECT_EQ(snap_.find_series("node_ethtool_peer_ifindex", {{"device", "veth1a2b3c"}}), nullptr);
  EXPECT_EQ(snap_.find_series("node_network_autonegotiate", {{"device", "eth0"}}), nullptr);
}

TEST_F(EthtoolCollectorTest, MetricsIncludeMatchesTheDriversNames) {
  FakeDevice d = with_stats(virtio(), {{"rx-errs", 1}, {"rx_errs", 2}, {"tx.errs", 3}, {"peer_ifindex", 4}});
  devices_ = {{"eth0", d}};
  auto c = make({{flag::kCollectorEthtoolMetricsInclude, "^(rx-|tx\\.)"}});  // not the sanitised names
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(value_of(snap_, "node_ethtool_received_errs", {{"device", "eth0"}}), 1);
  expect_family(snap_, "node_ethtool_received_errs", model::MetricType::kUntyped, "Network interface rx-errs");
  EXPECT_EQ(value_of(snap_, "node_ethtool_transmitted_errs", {{"device", "eth0"}}), 3);
  EXPECT_EQ(snap_.find_series("node_ethtool_peer_ifindex", {{"device", "eth0"}}), nullptr);
  EXPECT_EQ(series_count(snap_, "node_ethtool_info"), 1u);  // info and link families are not stats
}

TEST_F(EthtoolCollectorTest, NamesThatCoincideAreDroppedAllOfThem) {
  // rx-errs, rx_errs and RX_ERRS all become node_ethtool_received_errs: 1.5
  // drops every one. A repeated name keeps its last value. "--" leaves no
  // name and "info" would be the info family's: neither is exposed.
  FakeDevice d = with_stats(virtio(), {{"rx-errs", 1},
                                       {"rx_errs", 2},
                                       {"RX_ERRS", 3},
                                       {"tx_kicks", 4},
                                       {"tx_kicks", 5},
                                       {"--", 6},
                                       {"info", 7},
                                       {"", 8}});
  devices_ = {{"eth0", d}};
  auto c = make();
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(snap_.find("node_ethtool_received_errs") ? series_count(snap_, "node_ethtool_received_errs") : 0u, 0u);
  EXPECT_EQ(value_of(snap_, "node_ethtool_transmitted_kicks", {{"device", "eth0"}}), 5);
  EXPECT_EQ(series_count(snap_, "node_ethtool_info"), 1u);
  EXPECT_EQ(testing::families_with_prefix(snap_, "node_ethtool_"), 2u);
}

TEST_F(EthtoolCollectorTest, OneFamilyOneHelpAcrossDevices) {
  // Two drivers spelling a stat differently land in one family; as 1.5's
  // registry, the first device's series (and help) win, the other's is dropped.
  devices_ = {{"eth0", with_stats(virtio(), {{"rx-bytes", 10}})}, {"eth1", with_stats(virtio(), {{"rx.bytes", 20}})}};
  fx_.write("sys/class/net/eth1/ifindex", "2\n");
  auto c = make();
  ASSERT_TRUE(collect(*c));
  expect_family(snap_, "node_ethtool_received_bytes", model::MetricType::kUntyped, "Network interface rx-bytes");
  EXPECT_EQ(value_of(snap_, "node_ethtool_received_bytes", {{"device", "eth0"}}), 10);
  EXPECT_EQ(series_count(snap_, "node_ethtool_received_bytes"), 1u);
}

TEST_F(EthtoolCollectorTest, LaterCyclesFollowValuesAndNameChanges) {
  auto c = make();
  ASSERT_TRUE(collect(*c));
  devices_["veth1a2b3c"].stats[3].second = 9;  // rx_queue_0_drops
  devices_["eth0"] = with_stats(virtio(), {{"rx_queue_0_packets", 2000}, {"rx_queue_1_packets", 7}});
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(value_of(snap_, "node_ethtool_received_queue_0_drops", {{"device", "veth1a2b3c"}}), 9);
  EXPECT_EQ(value_of(snap_, "node_ethtool_received_queue_1_packets", {{"device", "eth0"}}), 7);
  EXPECT_EQ(series_count(snap_, "node_ethtool_tx0_kicks"), 0u);
  devices_.erase("veth1a2b3c");  // deleted: its directory goes, and so do its series
  fx_.remove("sys/class/net/veth1a2b3c");
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(series_count(snap_, "node_ethtool_peer_ifindex"), 0u);
  EXPECT_EQ(series_count(snap_, "node_ethtool_info"), 2u);
}

TEST_F(EthtoolCollectorTest, ChangedStatSetBetweenCallsSkipsOneCycle) {
  devices_["eth0"].extra_values = 2;
  auto c = make();
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(series_count(snap_, "node_ethtool_tx0_kicks"), 0u);
  EXPECT_EQ(value_of(snap_, "node_ethtool_info",
                     {{"bus_info", "0000:00:03.0"},
                      {"device", "eth0"},
                      {"driver", "virtio_net"},
                      {"expansion_rom_version", ""},
                      {"firmware_version", ""},
                      {"version", "1.0.0"}}),
            1);
  devices_["eth0"].extra_values = 0;
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(value_of(snap_, "node_ethtool_tx0_kicks", {{"device", "eth0"}}), 2133);
  devices_["eth0"].info.n_stats += 3;  // GDRVINFO counted more than GSTRINGS/GSTATS answer
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(series_count(snap_, "node_ethtool_tx0_kicks"), 0u);
}

TEST_F(EthtoolCollectorTest, MoreStatsThanSafchainTakesAreSkipped) {
  devices_["eth0"].info.n_stats = procfs::kEthtoolMaxStats + 1;
  auto c = make();
  ASSERT_TRUE(collect(*c));
  EXPECT_EQ(series_count(snap_, "node_ethtool_tx0_kicks"), 0u);
  EXPECT_EQ(source_->stats_calls, 2);  // mlx5 and veth only
}

TEST_F(EthtoolCollectorTest, ErrorsLoggedOncePerChange) {
  std::FILE* f = std::tmpfile();
  base::Logger log(base::LogLevel::kDebug, f);
  log_ = &log;
  devices_["eth0"].link_err = ENODEV;
  auto c = make();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(collect(*c));
  std::fflush(f);
  std::rewind(f);
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  auto count = [&](std::string_view needle) {
    size_t n = 0;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("level=error msg=\"ethtool link info error\""), 1u) << text;
  EXPECT_EQ(count("device=eth0"), 1u) << text;
  EXPECT_EQ(count("level=debug msg=\"ethtool driver info error\""), 1u) << text;  // lo: EOPNOTSUPP
}

TEST_F(EthtoolCollectorTest, NoNetClassIsNoDataAndEmptyIsAnError) {
  testing::expect_no_data_without_files(make_ethtool);
  fx_.remove("sys/class/net");
  ::mkdir(fx_.path("sys/class/net").c_str(), 0755);
  auto c = make();
  Status s = collect(*c);
  EXPECT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_EQ(s.message(), "no network devices found");
}

TEST_F(EthtoolCollectorTest, SocketFailureFailsTheCollector) {
  auto c = make();
  source_->open_err = EMFILE;
  Status s = collect(*c);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("failed to initialize ethtool library"), std::string::npos) << s.message();
  source_->open_err = 0;
  EXPECT_TRUE(collect(*c));
}

// The real ioctls on a veth pair made for the test (root only): GDRVINFO's
// driver and GSTATS' peer_ifindex against sysfs's ifindex of the other end.
TEST(EthtoolLive, VethPairAnswersAsSysfsSays) {
  if (::geteuid() != 0) GTEST_SKIP() << "not root: cannot create a veth pair";
  const std::string a = "llut" + std::to_string(::getpid() % 100000) + "a";
  const std::string b = a.substr(0, a.size() - 1) + "b";
  const std::string add = "ip link add " + a + " type veth peer name " + b + " >/dev/null 2>&1";
  if (std::system(add.c_str()) != 0) GTEST_SKIP() << "cannot create a veth pair (no iproute2 or no veth module)";
  struct Cleanup {
    std::string dev;
    ~Cleanup() { (void)std::system(("ip link del " + dev + " >/dev/null 2>&1").c_str()); }
  } cleanup{a};
  auto ifindex = [](const std::string& dev) {
    std::ifstream in("/sys/class/net/" + dev + "/ifindex");
    double v = -1;
    in >> v;
    return v;
  };
  auto ctx = testing::fixture_context();
  ctx.fs.sys_root = "/sys";
  ctx.set_option(flag::kCollectorEthtoolDeviceInclude, "^(" + a + "|" + b + ")$");
  auto c = make_ethtool(ctx);
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_ethtool_peer_ifindex", {{"device", a}}), ifindex(b));
  EXPECT_EQ(value_of(snap, "node_ethtool_peer_ifindex", {{"device", b}}), ifindex(a));
  EXPECT_EQ(series_count(snap, "node_ethtool_info"), 2u);
  const model::Family* info = snap.find("node_ethtool_info");
  ASSERT_NE(info, nullptr);
  ASSERT_FALSE(info->series.empty());
  EXPECT_EQ(info->series[0].label_values[2], "veth");  // driver
  EXPECT_EQ(value_of(snap, "node_network_autonegotiate", {{"device", a}}), 0);

  // Asked for a count other than the driver's (its set changed since
  // GDRVINFO), the answer is never that count: older kernels write the
  // driver's count (a longer answer faults at the source's guard page instead
  // of overrunning), newer ones (6.18) answer 0 entries.
  auto src = make_ioctl_ethtool_source();
  ASSERT_EQ(src->open(), 0);
  EthtoolDriverInfo di;
  ASSERT_EQ(src->driver_info(a, di), 0);
  ASSERT_GT(di.n_stats, 1u);
  std::string_view names;
  std::span<const uint64_t> values;
  int e = src->stats(a, di.n_stats - 1, names, values);
  EXPECT_TRUE(e == EFAULT || (e == 0 && values.size() != di.n_stats - 1)) << e << " " << values.size();
  e = src->stats(a, di.n_stats + 3, names, values);
  EXPECT_EQ(e, 0);
  EXPECT_NE(values.size(), di.n_stats + 3);
  ASSERT_EQ(src->stats(a, di.n_stats, names, values), 0);
  EXPECT_EQ(values.size(), di.n_stats);
  EXPECT_EQ(names.size(), di.n_stats * procfs::kEthtoolStringLen);
  EXPECT_EQ(src->driver_info("no-such-if0", di), ENODEV);
  EXPECT_EQ(src->driver_info("name-longer-than-ifnamsiz", di), ENODEV);
}

}  // namespace
}  // namespace llmon::collector
