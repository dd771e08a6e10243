#include "procfs/ethtool.h"

#include <gtest/gtest.h>

#include <string>

namespace llmon::procfs {
namespace {

// Names as node_exporter 1.5 shows them (the veth and virtio_net ones checked
// against its page on this host: tests/integration/ethtool_live_test.sh).
TEST(EthtoolStatFamily, RxAndTxWordsSpeltOut) {
  EXPECT_EQ(ethtool_stat_family("rx_queue_0_xdp_tx"), "node_ethtool_received_queue_0_xdp_transmitted");
  EXPECT_EQ(ethtool_stat_family("rx_queue_0_xdp_tx_errors"), "node_ethtool_received_queue_0_xdp_transmitted_errors");
  EXPECT_EQ(ethtool_stat_family("tx_queue_0_xdp_xmit"), "node_ethtool_transmitted_queue_0_xdp_xmit");
  EXPECT_EQ(ethtool_stat_family("tx_tx_timeouts"), "node_ethtool_transmitted_tx_timeouts");  // the '_' is used up
  EXPECT_EQ(ethtool_stat_family("tx0_tx_timeouts"), "node_ethtool_tx0_transmitted_timeouts");
  EXPECT_EQ(ethtool_stat_family("rx0_xdp_packets"), "node_ethtool_rx0_xdp_packets");  // "rx0" is not the word
  EXPECT_EQ(ethtool_stat_family("rx_rx_x"), "node_ethtool_received_rx_x");
  EXPECT_EQ(ethtool_stat_family("a_rx"), "node_ethtool_a_received");
  EXPECT_EQ(ethtool_stat_family("rx"), "node_ethtool_received");
  EXPECT_EQ(ethtool_stat_family("rxtx"), "node_ethtool_rxtx");
  EXPECT_EQ(ethtool_stat_family("peer_ifindex"), "node_ethtool_peer_ifindex");
  // mlx5's RoCE and per-priority counters.
  EXPECT_EQ(ethtool_stat_family("rx_vport_rdma_unicast_packets"), "node_ethtool_received_vport_rdma_unicast_packets");
  EXPECT_EQ(ethtool_stat_family("tx_vport_rdma_unicast_bytes"), "node_ethtool_transmitted_vport_rdma_unicast_bytes");
  EXPECT_EQ(ethtool_stat_family("rx_prio3_pause"), "node_ethtool_received_prio3_pause");
  EXPECT_EQ(ethtool_stat_family("ch0_arm"), "node_ethtool_ch0_arm");
}

TEST(EthtoolStatFamily, SanitisedLowercasedAndTrimmed) {
  EXPECT_EQ(ethtool_stat_family("port.rx_dropped"), "node_ethtool_port_received_dropped");           // i40e
  EXPECT_EQ(ethtool_stat_family("[0]: rx_ucast_packets"), "node_ethtool_0_received_ucast_packets");  // bnxt_en
  EXPECT_EQ(ethtool_stat_family("rx-bytes"), "node_ethtool_received_bytes");
  EXPECT_EQ(ethtool_stat_family("TX_Bytes"), "node_ethtool_transmitted_bytes");
  EXPECT_EQ(ethtool_stat_family("__rx"), "node_ethtool_received");
  EXPECT_EQ(ethtool_stat_family("a_-_-b"), "node_ethtool_a__b");  // two matches of _*[^0-9A-Za-z_]+_*
  EXPECT_EQ(ethtool_stat_family("rx bytes (64-127)"), "node_ethtool_received_bytes_64_127_");
  EXPECT_EQ(ethtool_stat_family("--"), "");
  EXPECT_EQ(ethtool_stat_family(""), "");
}

TEST(EthtoolStatName, PredeclaredNamesAndHelp) {
  auto n = ethtool_stat_name("rx_bytes");
  EXPECT_EQ(n.family, "node_ethtool_received_bytes_total");
  EXPECT_EQ(n.help, "Network interface bytes received");
  EXPECT_EQ(ethtool_stat_name("tx_errors").family, "node_ethtool_transmitted_errors_total");
  EXPECT_EQ(ethtool_stat_name("tx_errors").help, "Number of sent frames with errors");
  EXPECT_EQ(ethtool_stat_name("rx_dropped").help, "Number of received frames dropped");
  // Only the exact driver name is pre-declared.
  n = ethtool_stat_name("rx-bytes");
  EXPECT_EQ(n.family, "node_ethtool_received_bytes");
  EXPECT_EQ(n.help, "Network interface rx-bytes");
  EXPECT_EQ(ethtool_stat_name("rx_queue_0_xdp_packets").help, "Network interface rx_queue_0_xdp_packets");
}

std::string record(std::string_view name) {
  std::string r(name.substr(0, kEthtoolStringLen));
  r.resize(kEthtoolStringLen, '\0');
  return r;
}

TEST(SplitEthtoolStrings, RecordsUpToTheirNul) {
  const std::string full(32, 'x');  // a name of all 32 bytes has no NUL
  std::string blob = record("peer_ifindex") + record("") + full + record("rx_queue_0_drops");
  blob[kEthtoolStringLen + 5] = 'z';  // bytes after a record's NUL are not part of it
  std::vector<std::string_view> names;
  ASSERT_TRUE(split_ethtool_strings(blob, names));
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[0], "peer_ifindex");
  EXPECT_EQ(names[1], "");
  EXPECT_EQ(names[2], full);
  EXPECT_EQ(names[3], "rx_queue_0_drops");
  ASSERT_TRUE(split_ethtool_strings("", names));
  EXPECT_TRUE(names.empty());
  Status s = split_ethtool_strings(blob.substr(0, 40), names);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("40 bytes"), std::string::npos) << s.message();
}

TEST(EthtoolLinkModes, SpeedTableInLabelOrderWithinTheLegacyMask) {
  auto modes = ethtool_speed_modes();
  ASSERT_EQ(modes.size(), 22u);
  for (size_t i = 1; i < modes.size(); ++i)
    EXPECT_LT(std::pair(modes[i - 1].duplex, modes[i - 1].mode), std::pair(modes[i].duplex, modes[i].mode));
  EXPECT_EQ(modes.front().mode, "10000baseKR");
  EXPECT_EQ(modes.back().duplex, "half");
  EXPECT_EQ(modes.back().mode, "10baseT");
  for (const auto& m : modes) {
    EXPECT_LT(m.bit, 32) << m.mode;
    EXPECT_EQ(m.mode.substr(0, m.mode.find('b')), std::to_string(m.mbps)) << m.mode;
    if (m.bit == 20) {
      EXPECT_EQ(m.mode, "10000baseR_FEC");
    }
    if (m.bit == 31) {
      EXPECT_EQ(m.mode, "25000baseCR");
    }
  }
  auto ports = ethtool_port_types();
  ASSERT_EQ(ports.size(), 6u);
  EXPECT_EQ(ports[0].type, "AUI");
  EXPECT_EQ(ports[2].type, "Backplane");  // byte order: "BNC" < "Backplane"
  EXPECT_EQ(ports[5].type, "TP");
  EXPECT_EQ(ports[5].bit, 7);
}

TEST(EthtoolLinkModes, ModeSet) {
  EXPECT_TRUE(ethtool_mode_set(1u << 31, 31));
  EXPECT_FALSE(ethtool_mode_set(0xffffffffu, 32));  // beyond ETHTOOL_GSET's mask, as 1.5's uint32 test
  EXPECT_TRUE(ethtool_mode_set(0x40, kEthtoolAutonegBit));
  EXPECT_FALSE(ethtool_mode_set(0x40, kEthtoolPauseBit));
}

}  // namespace
}  // namespace llmon::procfs
