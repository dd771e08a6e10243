// The one list of built-in collectors. Adding a collector: write
// collector/<name>.cpp with make_<name>(), declare it in builtin.h, add a line here.
#include "collector/builtin.h"
#include "collector/registry.h"

namespace llmon::collector {
namespace {

constexpr CollectorInfo kCollectors[] = {
    {"loadavg", true, "Exposes load average.", make_loadavg},
    {"processes", false, "Exposes aggregate process statistics from /proc.", make_processes},
    {"cpu", true, "Exposes CPU statistics.", make_cpu},
    {"cpufreq", true, "Exposes CPU frequency statistics.", make_cpufreq},
    {"stat", true, "Exposes various statistics from /proc/stat. This includes boot time, forks and interrupts.",
     make_stat},
    {"interrupts", false, "Exposes detailed interrupts statistics.", make_interrupts},
    {"meminfo", true, "Exposes memory statistics.", make_meminfo},
    {"meminfo_numa", false,
     "Exposes memory statistics from /sys/devices/system/node/node[0-9]*/meminfo and "
     "/sys/devices/system/node/node[0-9]*/numastat.",
     make_meminfo_numa},
    {"vmstat", true, "Exposes statistics from /proc/vmstat.", make_vmstat},
    {"pressure", true, "Exposes pressure stall statistics from /proc/pressure/.", make_pressure},
    {"netdev", true, "Exposes network interface statistics such as bytes transferred.", make_netdev},
    {"netclass", true, "Exposes network interface info from /sys/class/net/.", make_netclass},
    {"ethtool", false,
     "Exposes network interface information and network driver statistics equivalent to `ethtool`, `ethtool -S`, "
     "and `ethtool -i`.",
     make_ethtool},
    {"sockstat", true, "Exposes various statistics from /proc/net/sockstat.", make_sockstat},
    {"softnet", true, "Exposes statistics from /proc/net/softnet_stat.", make_softnet},
    {"netstat", true, "Exposes network statistics from /proc/net/netstat. This is the same information as netstat -s.",
     make_netstat},
    {"udp_queues", true,
     "Exposes UDP total lengths of the rx_queue and tx_queue from /proc/net/udp and /proc/net/udp6.", make_udp_queues},
    {"tcpstat", false,
     "Exposes TCP connection status information from a netlink INET_DIAG dump (IPv6 too when /proc/net/tcp6 exists).",
     make_tcpstat},
    {"arp", true, "Exposes ARP statistics from /proc/net/arp.", make_arp},
    {"conntrack", true, "Shows conntrack statistics (does nothing if no /proc/sys/net/netfilter/ present).",
     make_conntrack},
    {"ipvs", true, "Exposes IPVS status from /proc/net/ip_vs and stats from /proc/net/ip_vs_stats.", make_ipvs},
    {"diskstats", true, "Exposes disk I/O statistics.", make_diskstats},
    {"filesystem", true, "Exposes filesystem statistics, such as disk space used.", make_filesystem},
    {"nfs", true, "Exposes NFS client statistics from /proc/net/rpc/nfs.", make_nfs},
    {"nfsd", true, "Exposes NFS kernel server statistics from /proc/net/rpc/nfsd.", make_nfsd},
    {"mountstats", false, "Exposes filesystem statistics from /proc/self/mountstats. Exposes detailed NFS statistics.",
     make_mountstats},
    {"bcache", true, "Exposes bcache statistics from /sys/fs/bcache/.", make_bcache},
    {"btrfs", true, "Exposes btrfs statistics.", make_btrfs},
    {"xfs", true, "Exposes XFS runtime statistics.", make_xfs},
    {"zfs", true, "Exposes ZFS performance statistics.", make_zfs},
    {"hwmon", true, "Expose hardware monitoring and sensor data from /sys/class/hwmon/.", make_hwmon},
    {"thermal_zone", true, "Exposes thermal zone & cooling device statistics from /sys/class/thermal.",
     make_thermal_zone},
    {"infiniband", true, "Exposes network statistics specific to InfiniBand and Intel OmniPath configurations.",
     make_infiniband},
    {"dmi", true, "Expose Desktop Management Interface (DMI) info from /sys/class/dmi/id/.", make_dmi},
    {"rapl", true, "Exposes various statistics from /sys/class/powercap.", make_rapl},
    {"nvme", true, "Exposes NVMe info from /sys/class/nvme/.", make_nvme},
    {"bonding", true, "Exposes the number of configured and active slaves of Linux bonding interfaces.", make_bonding},
    {"mdadm", true, "Exposes statistics about devices in /proc/mdstat (does nothing if no /proc/mdstat present).",
     make_mdadm},
    {"edac", true, "Exposes error detection and correction statistics.", make_edac},
    {"powersupplyclass", true, "Exposes Power Supply statistics from /sys/class/power_supply.", make_powersupplyclass},
    {"fibrechannel", true, "Exposes fibre channel information and statistics from /sys/class/fc_host/.",
     make_fibrechannel},
    {"tapestats", true, "Exposes statistics from /sys/class/scsi_tape.", make_tapestats},
    {"uname", true, "Exposes system information as provided by the uname system call.", make_uname},
    {"os", true, "Expose OS release info.", make_os},
    {"time", true, "Exposes the current system time.", make_time},
    {"entropy", true, "Exposes available entropy.", make_entropy},
    {"filefd", true, "Exposes file descriptor statistics from /proc/sys/fs/file-nr.", make_filefd},
    {"schedstat", true, "Exposes task scheduler statistics from /proc/schedstat.", make_schedstat},
    {"selinux", true, "Exposes SELinux statistics.", make_selinux},
    {"textfile", true, "Exposes metrics from *.prom files in --collector.textfile.directory.", make_textfile},
    {"timex", true, "Exposes selected adjtimex(2) system call stats.", make_timex},
    {"systemd", false, "Exposes service and system status from systemd.", make_systemd},
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
