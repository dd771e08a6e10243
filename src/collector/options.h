// The options the collectors read, one typed constant per flag:
// ctx.option(flag::kCollectorGpuTimeout) (CollectorContext, collector.h)
// instead of a name typed out, so that a misspelt option does not compile and
// the value comes back as the flag's type. The flag table (config/flags.cpp)
// owns each one's kind, default and help; config/flag_names.h takes these
// constants over (a using-declaration, not a second spelling) and
// tests/config/flag_names_test.cpp checks that every constant here is a row
// of the table of the same kind. kAll lists them in table order: whoever
// builds a CollectorContext sets each one (app::collector_context from
// config::Settings, the collector tests from the table's defaults).
#pragma once

#include "base/flag.h"

namespace llmon::collector::flag {

inline constexpr base::StringFlag kPathUdevData{"path.udev.data"};
inline constexpr base::RegexFlag kCollectorFilesystemMountPointsExclude{"collector.filesystem.mount-points-exclude"};
inline constexpr base::RegexFlag kCollectorFilesystemFsTypesExclude{"collector.filesystem.fs-types-exclude"};
inline constexpr base::DurationFlag kCollectorFilesystemMountTimeout{"collector.filesystem.mount-timeout"};
inline constexpr base::RegexFlag kCollectorDiskstatsDeviceExclude{"collector.diskstats.device-exclude"};
inline constexpr base::RegexFlag kCollectorDiskstatsDeviceInclude{"collector.diskstats.device-include"};
inline constexpr base::RegexFlag kCollectorNetdevDeviceExclude{"collector.netdev.device-exclude"};
inline constexpr base::RegexFlag kCollectorNetdevDeviceInclude{"collector.netdev.device-include"};
inline constexpr base::RegexFlag kCollectorNetclassIgnoredDevices{"collector.netclass.ignored-devices"};
inline constexpr base::BoolFlag kCollectorNetclassIgnoreInvalidSpeed{"collector.netclass.ignore-invalid-speed"};
inline constexpr base::RegexFlag kCollectorEthtoolDeviceInclude{"collector.ethtool.device-include"};
inline constexpr base::RegexFlag kCollectorEthtoolDeviceExclude{"collector.ethtool.device-exclude"};
inline constexpr base::RegexFlag kCollectorEthtoolMetricsInclude{"collector.ethtool.metrics-include"};
inline constexpr base::RegexFlag kCollectorArpDeviceInclude{"collector.arp.device-include"};
inline constexpr base::RegexFlag kCollectorArpDeviceExclude{"collector.arp.device-exclude"};
inline constexpr base::BoolFlag kCollectorRaplEnableZoneLabel{"collector.rapl.enable-zone-label"};
inline constexpr base::RegexFlag kCollectorPowersupplyIgnoredSupplies{"collector.powersupply.ignored-supplies"};
inline constexpr base::RegexFlag kCollectorTapestatsIgnoredDevices{"collector.tapestats.ignored-devices"};
inline constexpr base::BoolFlag kCollectorCpuGuest{"collector.cpu.guest"};
inline constexpr base::BoolFlag kCollectorCpuInfo{"collector.cpu.info"};
inline constexpr base::RegexFlag kCollectorCpuInfoFlagsInclude{"collector.cpu.info.flags-include"};
inline constexpr base::RegexFlag kCollectorCpuInfoBugsInclude{"collector.cpu.info.bugs-include"};
inline constexpr base::BoolFlag kCollectorStatSoftirq{"collector.stat.softirq"};
inline constexpr base::RegexFlag kCollectorVmstatFields{"collector.vmstat.fields"};
inline constexpr base::RegexFlag kCollectorNetstatFields{"collector.netstat.fields"};
inline constexpr base::StringFlag kCollectorTextfileDirectory{"collector.textfile.directory"};
inline constexpr base::StringFlag kCollectorIpvsBackendLabels{"collector.ipvs.backend-labels"};
inline constexpr base::BoolFlag kCollectorBcachePriorityStats{"collector.bcache.priorityStats"};
inline constexpr base::RegexFlag kCollectorSystemdUnitInclude{"collector.systemd.unit-include"};
inline constexpr base::RegexFlag kCollectorSystemdUnitExclude{"collector.systemd.unit-exclude"};
inline constexpr base::BoolFlag kCollectorSystemdPrivate{"collector.systemd.private"};
inline constexpr base::BoolFlag kCollectorSystemdEnableTaskMetrics{"collector.systemd.enable-task-metrics"};
inline constexpr base::BoolFlag kCollectorSystemdEnableRestartsMetrics{"collector.systemd.enable-restarts-metrics"};
inline constexpr base::BoolFlag kCollectorSystemdEnableStartTimeMetrics{"collector.systemd.enable-start-time-metrics"};
inline constexpr base::StringFlag kNvmlLibrary{"nvml.library"};
inline constexpr base::StringFlag kCollectorGpuHostnameLabel{"collector.gpu.hostname-label"};
inline constexpr base::StringFlag kCollectorGpuHostname{"collector.gpu.hostname"};
inline constexpr base::DurationFlag kCollectorGpuTimeout{"collector.gpu.timeout"};
inline constexpr base::BoolFlag kCollectorGpuProcesses{"collector.gpu.processes"};
inline constexpr base::BoolFlag kCollectorGpuGpm{"collector.gpu.gpm"};
inline constexpr base::BoolFlag kCollectorGpuEvents{"collector.gpu.events"};
inline constexpr base::StringFlag kCollectorGpuNames{"collector.gpu.names"};
inline constexpr base::StringFlag kCollectorGpuPodResourcesSocket{"collector.gpu.pod-resources-socket"};

// Every constant above, in the same order.
// clang-format off
inline constexpr base::FlagRef kAll[] = {
    kPathUdevData, kCollectorFilesystemMountPointsExclude, kCollectorFilesystemFsTypesExclude,
    kCollectorFilesystemMountTimeout, kCollectorDiskstatsDeviceExclude, kCollectorDiskstatsDeviceInclude,
    kCollectorNetdevDeviceExclude, kCollectorNetdevDeviceInclude, kCollectorNetclassIgnoredDevices,
    kCollectorNetclassIgnoreInvalidSpeed, kCollectorEthtoolDeviceInclude, kCollectorEthtoolDeviceExclude,
    kCollectorEthtoolMetricsInclude, kCollectorArpDeviceInclude, kCollectorArpDeviceExclude,
    kCollectorRaplEnableZoneLabel, kCollectorPowersupplyIgnoredSupplies, kCollectorTapestatsIgnoredDevices,
    kCollectorCpuGuest, kCollectorCpuInfo, kCollectorCpuInfoFlagsInclude, kCollectorCpuInfoBugsInclude,
    kCollectorStatSoftirq, kCollectorVmstatFields, kCollectorNetstatFields, kCollectorTextfileDirectory,
    kCollectorIpvsBackendLabels, kCollectorBcachePriorityStats, kCollectorSystemdUnitInclude,
    kCollectorSystemdUnitExclude,
    kCollectorSystemdPrivate, kCollectorSystemdEnableTaskMetrics, kCollectorSystemdEnableRestartsMetrics,
    kCollectorSystemdEnableStartTimeMetrics, kNvmlLibrary,
    kCollectorGpuHostnameLabel, kCollectorGpuHostname, kCollectorGpuTimeout, kCollectorGpuProcesses,
    kCollectorGpuGpm, kCollectorGpuEvents, kCollectorGpuNames, kCollectorGpuPodResourcesSocket,
};
// clang-format on

// --collector.netstat.fields' default, node_exporter 1.5's (from its --help).
inline constexpr char kNetstatDefaultFields[] =
    "^(.*_(InErrors|InErrs)|Ip_Forwarding|Ip(6|Ext)_(InOctets|OutOctets)|Icmp6?_(InMsgs|OutMsgs)|TcpExt_(Listen.*|"
    "Syncookies.*|TCPSynRetrans|TCPTimeouts)|Tcp_(ActiveOpens|InSegs|OutSegs|OutRsts|PassiveOpens|RetransSegs|"
    "CurrEstab)|Udp6?_(InDatagrams|OutDatagrams|NoPorts|RcvbufErrors|SndbufErrors))$";

// --collector.ipvs.backend-labels' default and the labels it may name, in
// node_exporter's order.
inline constexpr char kIpvsDefaultBackendLabels[] =
    "local_address,local_port,remote_address,remote_port,proto,local_mark";

// --collector.systemd.unit-exclude's default, upstream node_exporter 1.5's
// (Debian's build adds "target"). Both unit patterns are anchored at both
// ends, as node_exporter wraps them in ^(?:...)$.
inline constexpr char kSystemdDefaultUnitExclude[] = ".+\\.(automount|device|mount|scope|slice)";

// --collector.diskstats.device-exclude's default (node_exporter's: partitions,
// loop and ram disks). The flag table's row takes it from here because the
// diskstats collector depends on the value: like node_exporter, it drops the
// default exclude when only device-include is given.
inline constexpr char kDiskstatsDefaultDeviceExclude[] = "^(ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\\d+n\\d+p)\\d+$";

}  // namespace llmon::collector::flag
