// The one list of built-in collectors. Adding a collector: write
// collector/<name>.cpp with make_<name>(), declare it in builtin.h, add a line here.
#include "collector/builtin.h"
#include "collector/registry.h"

namespace llmon::collector {
namespace {

constexpr CollectorInfo kCollectors[] = {
    {"loadavg", true, "Exposes load average.", make_loadavg},
    {"cpu", true, "Exposes CPU statistics.", make_cpu},
    {"cpufreq", true, "Exposes CPU frequency statistics.", make_cpufreq},
    {"stat", true, "Exposes various statistics from /proc/stat. This includes boot time, forks and interrupts.",
     make_stat},
    {"meminfo", true, "Exposes memory statistics.", make_meminfo},
    {"vmstat", true, "Exposes statistics from /proc/vmstat.", make_vmstat},
    {"pressure", true, "Exposes pressure stall statistics from /proc/pressure/.", make_pressure},
    {"netdev", true, "Exposes network interface statistics such as bytes transferred.", make_netdev},
    {"netclass", true, "Exposes network interface info from /sys/class/net/.", make_netclass},
    {"sockstat", true, "Exposes various statistics from /proc/net/sockstat.", make_sockstat},
    {"softnet", true, "Exposes statistics from /proc/net/softnet_stat.", make_softnet},
    {"netstat", true, "Exposes network statistics from /proc/net/netstat. This is the same information as netstat -s.",
     make_netstat},
    {"udp_queues", true,
     "Exposes UDP total lengths of the rx_queue and tx_queue from /proc/net/udp and /proc/net/udp6.", make_udp_queues},
    {"arp", true, "Exposes ARP statistics from /proc/net/arp.", make_arp},
    {"conntrack", true, "Shows conntrack statistics (does nothing if no /proc/sys/net/netfilter/ present).",
     make_conntrack},
    {"ipvs", true, "Exposes IPVS status from /proc/net/ip_vs and stats from /proc/net/ip_vs_stats.", make_ipvs},
    {"diskstats", true, "Exposes disk I/O statistics.", make_diskstats},
    {"filesystem", true, "Exposes filesystem statistics, such as disk space used.", make_filesystem},
    {"nfs", true, "Exposes NFS client statistics from /proc/net/rpc/nfs.", make_nfs},
    {"nfsd", true, "Exposes NFS kernel server statistics from /proc/net/rpc/nfsd.", make_nfsd},
    {"btrfs", true, "Exposes btrfs statistics.", make_btrfs},
    {"xfs", true, "Exposes XFS runtime statistics.", make_xfs},
    {"zfs", true, "Exposes ZFS performance statistics.", make_zfs},
    {"hwmon", true, "Expose hardware monitoring and sensor data from /sys/class/hwmon/.", make_hwmon},
    {"thermal_zone", true, "Exposes thermal zone & cooling device statistics from /sys/class/thermal.",
     make_thermal_zone},
    {"uname", true, "Exposes system information as provided by the uname system call.", make_uname},
    {"os", true, "Expose OS release info.", make_os},
    {"time", true, "Exposes the current system time.", make_time},
    {"entropy", true, "Exposes available entropy.", make_entropy},
    {"filefd", true, "Exposes file descriptor statistics from /proc/sys/fs/file-nr.", make_filefd},
    {"schedstat", true, "Exposes task scheduler statistics from /proc/schedstat.", make_schedstat},
    {"textfile", true, "Exposes metrics from *.prom files in --collector.textfile.directory.", make_textfile},
    {"timex", true, "Exposes selected adjtimex(2) system call stats.", make_timex},
    {"self", true, "Exposes llmon's own process metrics (process_*) and llmon_build_info.", make_self},
    {"gpu", true, "Exposes NVIDIA GPU metrics through NVML (dcgm-exporter names), per-process GPU use and Xid errors.",
     make_gpu},
    {"amdgpu", true, "Exposes AMD GPU metrics (llmon_gpu_*) from amdgpu sysfs and DRM fdinfo.", make_amdgpu},
};

}  // namespace

std::span<const CollectorInfo> builtin_collectors() { return kCollectors; }

const CollectorInfo* find_collector(std::string_view name) {
  for (const auto& c : kCollectors)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace llmon::collector
