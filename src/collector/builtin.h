// Factory functions of the built-in collectors, one per collector file.
// builtin.cpp lists them with their names and defaults.
#pragma once

#include <memory>

#include "collector/collector.h"

namespace llmon::collector {

std::unique_ptr<Collector> make_loadavg(const CollectorContext& ctx);
std::unique_ptr<Collector> make_processes(const CollectorContext& ctx);
std::unique_ptr<Collector> make_cpu(const CollectorContext& ctx);
std::unique_ptr<Collector> make_cpufreq(const CollectorContext& ctx);
std::unique_ptr<Collector> make_stat(const CollectorContext& ctx);
std::unique_ptr<Collector> make_interrupts(const CollectorContext& ctx);
std::unique_ptr<Collector> make_meminfo(const CollectorContext& ctx);
std::unique_ptr<Collector> make_meminfo_numa(const CollectorContext& ctx);
std::unique_ptr<Collector> make_vmstat(const CollectorContext& ctx);
std::unique_ptr<Collector> make_pressure(const CollectorContext& ctx);
std::unique_ptr<Collector> make_netdev(const CollectorContext& ctx);
std::unique_ptr<Collector> make_netclass(const CollectorContext& ctx);
std::unique_ptr<Collector> make_ethtool(const CollectorContext& ctx);
std::unique_ptr<Collector> make_sockstat(const CollectorContext& ctx);
std::unique_ptr<Collector> make_softnet(const CollectorContext& ctx);
std::unique_ptr<Collector> make_netstat(const CollectorContext& ctx);
std::unique_ptr<Collector> make_udp_queues(const CollectorContext& ctx);
std::unique_ptr<Collector> make_tcpstat(const CollectorContext& ctx);
std::unique_ptr<Collector> make_arp(const CollectorContext& ctx);
std::unique_ptr<Collector> make_conntrack(const CollectorContext& ctx);
std::unique_ptr<Collector> make_diskstats(const CollectorContext& ctx);
std::unique_ptr<Collector> make_filesystem(const CollectorContext& ctx);
std::unique_ptr<Collector> make_hwmon(const CollectorContext& ctx);
std::unique_ptr<Collector> make_thermal_zone(const CollectorContext& ctx);
std::unique_ptr<Collector> make_infiniband(const CollectorContext& ctx);
std::unique_ptr<Collector> make_dmi(const CollectorContext& ctx);
std::unique_ptr<Collector> make_rapl(const CollectorContext& ctx);
std::unique_ptr<Collector> make_nvme(const CollectorContext& ctx);
std::unique_ptr<Collector> make_bonding(const CollectorContext& ctx);
std::unique_ptr<Collector> make_mdadm(const CollectorContext& ctx);
std::unique_ptr<Collector> make_edac(const CollectorContext& ctx);
std::unique_ptr<Collector> make_powersupplyclass(const CollectorContext& ctx);
std::unique_ptr<Collector> make_fibrechannel(const CollectorContext& ctx);
std::unique_ptr<Collector> make_tapestats(const CollectorContext& ctx);
std::unique_ptr<Collector> make_uname(const CollectorContext& ctx);
std::unique_ptr<Collector> make_os(const CollectorContext& ctx);
std::unique_ptr<Collector> make_time(const CollectorContext& ctx);
std::unique_ptr<Collector> make_entropy(const CollectorContext& ctx);
std::unique_ptr<Collector> make_filefd(const CollectorContext& ctx);
std::unique_ptr<Collector> make_schedstat(const CollectorContext& ctx);
std::unique_ptr<Collector> make_selinux(const CollectorContext& ctx);
std::unique_ptr<Collector> make_textfile(const CollectorContext& ctx);
std::unique_ptr<Collector> make_nfs(const CollectorContext& ctx);
std::unique_ptr<Collector> make_nfsd(const CollectorContext& ctx);
std::unique_ptr<Collector> make_mountstats(const CollectorContext& ctx);
std::unique_ptr<Collector> make_xfs(const CollectorContext& ctx);
std::unique_ptr<Collector> make_ipvs(const CollectorContext& ctx);
std::unique_ptr<Collector> make_bcache(const CollectorContext& ctx);
std::unique_ptr<Collector> make_btrfs(const CollectorContext& ctx);
std::unique_ptr<Collector> make_zfs(const CollectorContext& ctx);
std::unique_ptr<Collector> make_timex(const CollectorContext& ctx);
std::unique_ptr<Collector> make_systemd(const CollectorContext& ctx);
std::unique_ptr<Collector> make_self(const CollectorContext& ctx);
std::unique_ptr<Collector> make_gpu(const CollectorContext& ctx);
std::unique_ptr<Collector> make_amdgpu(const CollectorContext& ctx);

}  // namespace llmon::collector
