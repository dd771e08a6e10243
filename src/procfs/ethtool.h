// Pure pieces of the ethtool collector (node_exporter 1.5 ethtool_linux.go over
// github.com/safchain/ethtool): the family name and help a driver statistic
// is exposed under, the ETHTOOL_GSTRINGS answer split into names, and the
// tables that turn ETHTOOL_GSET's link-mode masks into node_exporter's speed,
// port and pause series. Bytes and numbers in, names out: the ioctls are
// collector/ethtool_ioctl.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

inline constexpr size_t kEthtoolStringLen = 32;  // ETH_GSTRING_LEN
// safchain/ethtool's MAX_GSTRINGS: 1.5 logs "ethtool currently doesn't
// support more than 32768 entries" for a device with more stats and skips them.
inline constexpr uint32_t kEthtoolMaxStats = 32768;

// buildEthtoolFQName: "node_ethtool_" + the stat name sanitised
// (sanitize_metric_name), lowercased, leading '_' trimmed, every "rx" and
// "tx" word (between '_' or the ends, leftmost first, matches not
// overlapping) spelt "received" / "transmitted": "rx_queue_0_xdp_tx" ->
// node_ethtool_received_queue_0_xdp_transmitted. Two stats of one device with
// the same result are both dropped (1.5's duplicate check). Empty when
// nothing is left of the name ("--"), which 1.5 panics on.
std::string ethtool_stat_family(std::string_view stat);

// The family and help 1.5 exposes a stat under: for rx_bytes, rx_dropped,
// rx_errors, rx_packets, tx_bytes, tx_errors and tx_packets its pre-declared
// ones (node_ethtool_received_bytes_total, "Network interface bytes
// received"), else ethtool_stat_family(stat) and "Network interface <stat>".
struct EthtoolStatName {
  std::string family, help;
};
EthtoolStatName ethtool_stat_name(std::string_view stat);

// The names of an ETHTOOL_GSTRINGS(ETH_SS_STATS) answer: blob holds records
// of ETH_GSTRING_LEN bytes, each name up to its first NUL (all 32 bytes when
// it has none). Views into blob, one per record; empty names stay as "" (1.5
// skips them). A blob that is not a whole number of records is an error.
Status split_ethtool_strings(std::string_view blob, std::vector<std::string_view>& out);

// A speed and duplex bit of the link-mode masks, with node_exporter's labels:
// mode "<mbps>base<phy>" ("1000baseT"), duplex "full" or "half".
struct EthtoolSpeedMode {
  uint8_t bit;  // ETHTOOL_LINK_MODE_*_BIT
  uint32_t mbps;
  std::string_view duplex, mode;
};
// 1.5's speed table, as far as ETHTOOL_GSET's 32-bit masks reach (its
// entries for bits 32 and up never match: it tests them in a uint32), in
// label order (duplex, then mode). node_exporter exposes mbps * 125000 bytes.
std::span<const EthtoolSpeedMode> ethtool_speed_modes();

// The port-type bits node_network_supported_port_info{type} knows, in label order.
struct EthtoolPortType {
  uint8_t bit;
  std::string_view type;  // "TP", "AUI", "MII", "FIBRE", "BNC", "Backplane"
};
std::span<const EthtoolPortType> ethtool_port_types();

inline constexpr uint8_t kEthtoolAutonegBit = 6;     // ETHTOOL_LINK_MODE_Autoneg_BIT
inline constexpr uint8_t kEthtoolPauseBit = 13;      // ETHTOOL_LINK_MODE_Pause_BIT
inline constexpr uint8_t kEthtoolAsymPauseBit = 14;  // ETHTOOL_LINK_MODE_Asym_Pause_BIT

inline bool ethtool_mode_set(uint32_t mask, uint8_t bit) {
  return bit < 32 && ((mask >> bit) & 1u) != 0;
}

}  // namespace llmon::procfs
