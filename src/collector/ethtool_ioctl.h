// The ethtool collector's source: the SIOCETHTOOL ioctls node_exporter 1.5
// makes per interface (through safchain/ethtool) on an AF_INET datagram
// socket, behind an interface so tests fake them. Each call answers 0 or the
// errno of the failed ioctl (EOPNOTSUPP: the driver does not implement it).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "collector/collector.h"

namespace llmon::collector {

// ETHTOOL_GDRVINFO: struct ethtool_drvinfo's strings, each up to its first NUL.
struct EthtoolDriverInfo {
  std::string driver, version, fw_version, bus_info, erom_version;
  uint32_t n_stats = 0;  // the driver's ETH_SS_STATS count
};

// ETHTOOL_GSET (struct ethtool_cmd, the legacy 32-bit link-mode masks 1.5 reads).
struct EthtoolLinkSettings {
  uint32_t supported = 0, advertising = 0;
  uint8_t autoneg = 0;  // AUTONEG_DISABLE 0, AUTONEG_ENABLE 1
};

class EthtoolSource {
 public:
  virtual ~EthtoolSource() = default;
  // Makes the socket; called before each cycle's first ioctl until it succeeds.
  virtual int open() = 0;
  virtual int driver_info(const std::string& device, EthtoolDriverInfo& out) = 0;
  virtual int link_settings(const std::string& device, EthtoolLinkSettings& out) = 0;
  // ETHTOOL_GSTRINGS(ETH_SS_STATS) and ETHTOOL_GSTATS for n stats (the count
  // GDRVINFO gave): names gets the kernel's records (ETH_GSTRING_LEN bytes
  // each), values its numbers, as many as the kernel answered. When the
  // driver's count changed since GDRVINFO, older kernels write the new count
  // (fewer than n; more fault with EFAULT, below) and newer ones (6.18 here)
  // answer 0 entries; the collector skips a device whose answer is not n
  // stats. Both stay valid until the next call.
  virtual int stats(const std::string& device, uint32_t n, std::string_view& names,
                    std::span<const uint64_t>& values) = 0;
};

// The real one. Asking for n stats, it gives the kernel room for exactly n
// and ends that room at a PROT_NONE page: older kernels write as many as the
// driver has *now*, whatever the caller asked for, so a set that grew since
// GDRVINFO faults (EFAULT) instead of overrunning memory.
std::unique_ptr<EthtoolSource> make_ioctl_ethtool_source();

// The ethtool collector over a given source (make_ethtool uses the ioctl one).
std::unique_ptr<Collector> make_ethtool_with(const CollectorContext& ctx, std::unique_ptr<EthtoolSource> source);

}  // namespace llmon::collector
