// One constant per static row of the flag table (flags.cpp), in table order:
// Settings::get(flag::kStoragePath) instead of a name typed out, so that a
// misspelt flag does not compile and the value comes back as the flag's type.
// kAll lists every constant; names are unique (static_assert below) and
// tests/config/flag_names_test.cpp checks that constants and table rows match
// one to one, name and kind. The options the collectors read are declared
// in the collector layer (collector/options.h, below config) and taken over
// here by using-declarations: one constant, one spelling. The
// --collector.<name> switches come from the collector registry and have no
// constant: see collector_switch() (flags.h).
#pragma once

#include <cstddef>
#include <span>

#include "collector/options.h"
#include "config/flag.h"

namespace llmon::config::flag {

inline constexpr StringFlag kConfigFile{"config.file"};
inline constexpr StringFlag kLogLevel{"log.level"};
inline constexpr StringFlag kWebListenAddress{"web.listen-address"};
inline constexpr StringFlag kWebTelemetryPath{"web.telemetry-path"};
inline constexpr IntFlag kWebMaxRequests{"web.max-requests"};
inline constexpr StringFlag kWebConfigFile{"web.config.file"};
inline constexpr StringFlag kWebAdminUsers{"web.admin-users"};
inline constexpr DurationFlag kCollectInterval{"collect.interval"};
inline constexpr StringFlag kPathProcfs{"path.procfs"};
inline constexpr StringFlag kPathSysfs{"path.sysfs"};
inline constexpr StringFlag kPathRootfs{"path.rootfs"};
using collector::flag::kPathUdevData;
inline constexpr BoolFlag kCollectorDisableDefaults{"collector.disable-defaults"};
// In table order, not sorted:
// clang-format off
using collector::flag::kCollectorFilesystemMountPointsExclude;
using collector::flag::kCollectorFilesystemFsTypesExclude;
using collector::flag::kCollectorFilesystemMountTimeout;
using collector::flag::kCollectorDiskstatsDeviceExclude;
using collector::flag::kCollectorDiskstatsDeviceInclude;
using collector::flag::kCollectorNetdevDeviceExclude;
using collector::flag::kCollectorNetdevDeviceInclude;
using collector::flag::kCollectorNetclassIgnoredDevices;
using collector::flag::kCollectorNetclassIgnoreInvalidSpeed;
using collector::flag::kCollectorEthtoolDeviceInclude;
using collector::flag::kCollectorEthtoolDeviceExclude;
using collector::flag::kCollectorEthtoolMetricsInclude;
using collector::flag::kCollectorArpDeviceInclude;
using collector::flag::kCollectorArpDeviceExclude;
using collector::flag::kCollectorRaplEnableZoneLabel;
using collector::flag::kCollectorPowersupplyIgnoredSupplies;
using collector::flag::kCollectorTapestatsIgnoredDevices;
using collector::flag::kCollectorCpuGuest;
using collector::flag::kCollectorCpuInfo;
using collector::flag::kCollectorCpuInfoFlagsInclude;
using collector::flag::kCollectorCpuInfoBugsInclude;
using collector::flag::kCollectorStatSoftirq;
using collector::flag::kCollectorVmstatFields;
using collector::flag::kCollectorNetstatFields;
using collector::flag::kCollectorTextfileDirectory;
using collector::flag::kCollectorIpvsBackendLabels;
using collector::flag::kCollectorBcachePriorityStats;
using collector::flag::kCollectorSystemdUnitInclude;
using collector::flag::kCollectorSystemdUnitExclude;
using collector::flag::kCollectorSystemdPrivate;
using collector::flag::kCollectorSystemdEnableTaskMetrics;
using collector::flag::kCollectorSystemdEnableRestartsMetrics;
using collector::flag::kCollectorSystemdEnableStartTimeMetrics;
using collector::flag::kNvmlLibrary;
using collector::flag::kCollectorGpuHostnameLabel;
using collector::flag::kCollectorGpuHostname;
using collector::flag::kCollectorGpuTimeout;
using collector::flag::kCollectorGpuProcesses;
using collector::flag::kCollectorGpuGpm;
using collector::flag::kCollectorGpuEvents;
using collector::flag::kCollectorGpuNames;
using collector::flag::kCollectorGpuPodResourcesSocket;
// clang-format on
inline constexpr StringFlag kStoragePath{"storage.path"};
inline constexpr DurationFlag kStorageRetentionTime{"storage.retention.time"};
inline constexpr BytesFlag kStorageRetentionSize{"storage.retention.size"};
inline constexpr DurationFlag kStorageFsyncInterval{"storage.fsync-interval"};
inline constexpr BytesFlag kStorageMinFreeSpace{"storage.min-free-space"};
inline constexpr BoolFlag kWebEnableImport{"web.enable-import"};
inline constexpr BoolFlag kStorageEnabled{"storage.enabled"};
inline constexpr StringFlag kStorageSelfJob{"storage.self.job"};
inline constexpr StringFlag kStorageSelfInstance{"storage.self.instance"};
inline constexpr DurationFlag kQueryTimeout{"query.timeout"};
inline constexpr IntFlag kQueryMaxConcurrency{"query.max-concurrency"};
inline constexpr IntFlag kQueryMaxSamples{"query.max-samples"};
inline constexpr DurationFlag kQueryLookbackDelta{"query.lookback-delta"};
inline constexpr BoolFlag kRulesDefaults{"rules.defaults"};
inline constexpr StringFlag kRulesFile{"rules.file"};
inline constexpr DurationFlag kRulesEvaluationInterval{"rules.evaluation-interval"};
inline constexpr DurationFlag kRulesQueryOffset{"rules.query-offset"};
inline constexpr DurationFlag kRulesAlertResendDelay{"rules.alert.resend-delay"};
inline constexpr DurationFlag kRulesAlertForOutageTolerance{"rules.alert.for-outage-tolerance"};
inline constexpr DurationFlag kRulesAlertForGracePeriod{"rules.alert.for-grace-period"};
inline constexpr StringFlag kRulesExternalLabels{"rules.external-labels"};
inline constexpr StringFlag kWebExternalUrl{"web.external-url"};
inline constexpr StringFlag kAlertmanagerUrl{"alertmanager.url"};
inline constexpr StringFlag kNotifyConfig{"notify.config"};
inline constexpr StringFlag kNotifyExecAllow{"notify.exec.allow"};
inline constexpr StringFlag kTime{"time"};
inline constexpr StringFlag kStart{"start"};
inline constexpr StringFlag kEnd{"end"};
inline constexpr StringFlag kStep{"step"};
inline constexpr StringFlag kUrl{"url"};
inline constexpr StringFlag kHttpConfigFile{"http.config.file"};
inline constexpr DurationFlag kSnapshotInterval{"snapshot.interval"};
inline constexpr BoolFlag kJson{"json"};
// llmon top (docs/top.md)
inline constexpr DurationFlag kTopInterval{"top.interval"};
inline constexpr BoolFlag kTopAscii{"top.ascii"};
inline constexpr StringFlag kTopColors{"top.colors"};
inline constexpr BoolFlag kExplain{"explain"};
inline constexpr StringFlag kDiagnoseLlmUrl{"diagnose.llm.url"};
inline constexpr StringFlag kDiagnoseLlmModel{"diagnose.llm.model"};
inline constexpr StringFlag kDiagnoseLlmApiKeyFile{"diagnose.llm.api-key-file"};
inline constexpr DurationFlag kWindow{"window"};
inline constexpr StringFlag kDiagnoseSelector{"diagnose.selector"};
inline constexpr StringFlag kDiagnoseGpuPrice{"diagnose.gpu-price"};
inline constexpr DurationFlag kDiagnoseInterval{"diagnose.interval"};
inline constexpr BoolFlag kDiagnoseAnomaly{"diagnose.anomaly"};
// GPU health
inline constexpr StringFlag kHealthStateDir{"health.state-dir"};
inline constexpr DurationFlag kHealthMergeWindow{"health.merge-window"};
inline constexpr BoolFlag kLogwatchEnabled{"logwatch.enabled"};
inline constexpr StringFlag kLogwatchPath{"logwatch.path"};
inline constexpr StringFlag kLogwatchKmsgPath{"logwatch.kmsg-path"};
inline constexpr StringFlag kLogwatchRules{"logwatch.rules"};
inline constexpr BoolFlag kLogwatchDefaultRules{"logwatch.default-rules"};
inline constexpr BoolFlag kLogwatchFromBeginning{"logwatch.from-beginning"};
inline constexpr BoolFlag kLogwatchReadGz{"logwatch.read-gz"};
inline constexpr BytesFlag kLogwatchMaxLineSize{"logwatch.max-line-size"};
inline constexpr DurationFlag kLogwatchPollInterval{"logwatch.poll-interval"};
inline constexpr StringFlag kScrapeConfig{"scrape.config"};
inline constexpr StringFlag kScrapeDiscover{"scrape.discover"};
inline constexpr StringFlag kScrapeKubeletUrl{"scrape.kubelet-url"};
inline constexpr StringFlag kScrapeKubeletTokenFile{"scrape.kubelet-token-file"};
inline constexpr StringFlag kScrapeKubeletCaFile{"scrape.kubelet-ca-file"};
inline constexpr BoolFlag kWebEnablePush{"web.enable-push"};
inline constexpr StringFlag kUiDatasource{"ui.datasource"};
inline constexpr StringFlag kUiDatasourceNodeLabel{"ui.datasource.node-label"};
inline constexpr StringFlag kUiDatasourceHttpConfigFile{"ui.datasource.http-config-file"};
inline constexpr StringFlag kLogwatchForwardSyslog{"logwatch.forward.syslog"};
inline constexpr StringFlag kLogwatchForwardSyslogFacility{"logwatch.forward.syslog-facility"};
inline constexpr StringFlag kLogwatchForwardLoki{"logwatch.forward.loki"};
inline constexpr StringFlag kLogwatchForwardLokiFormat{"logwatch.forward.loki-format"};
inline constexpr StringFlag kLogwatchForwardLokiLabels{"logwatch.forward.loki-labels"};
inline constexpr StringFlag kRemoteWriteConfig{"remote-write.config"};
inline constexpr StringFlag kEventsPath{"events.path"};
inline constexpr DurationFlag kEventsRetention{"events.retention"};
inline constexpr BytesFlag kEventsMaxSize{"events.max-size"};
inline constexpr StringFlag kRule{"rule"};
inline constexpr StringFlag kSeverity{"severity"};
inline constexpr StringFlag kSource{"source"};
inline constexpr IntFlag kLimit{"limit"};
// llmon trace
inline constexpr IntFlag kTraceThreshold{"trace.threshold"};
inline constexpr IntFlag kTraceTop{"trace.top"};
inline constexpr StringFlag kHtml{"html"};
inline constexpr StringFlag kTraceCaptureDir{"trace.capture-dir"};
inline constexpr StringFlag kTraceIpcSocket{"trace.ipc-socket"};
inline constexpr DurationFlag kTraceCaptureTimeout{"trace.capture-timeout"};
inline constexpr IntFlag kPid{"pid"};
inline constexpr IntFlag kJob{"job"};
inline constexpr IntFlag kGpu{"gpu"};
inline constexpr IntFlag kDurationMs{"duration-ms"};
inline constexpr IntFlag kIterations{"iterations"};

// Every constant above, in the same order.
// clang-format off
inline constexpr FlagRef kAll[] = {
    kConfigFile, kLogLevel, kWebListenAddress, kWebTelemetryPath, kWebMaxRequests, kWebConfigFile, kWebAdminUsers, kCollectInterval,
    kPathProcfs, kPathSysfs, kPathRootfs, kPathUdevData, kCollectorDisableDefaults,
    kCollectorFilesystemMountPointsExclude, kCollectorFilesystemFsTypesExclude,
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
    kCollectorGpuGpm, kCollectorGpuEvents, kCollectorGpuNames, kCollectorGpuPodResourcesSocket, kStoragePath,
    kStorageRetentionTime,
    kStorageRetentionSize, kStorageFsyncInterval, kStorageMinFreeSpace, kWebEnableImport, kStorageEnabled,
    kStorageSelfJob, kStorageSelfInstance, kQueryTimeout, kQueryMaxConcurrency, kQueryMaxSamples,
    kQueryLookbackDelta, kRulesDefaults, kRulesFile,
    kRulesEvaluationInterval, kRulesQueryOffset, kRulesAlertResendDelay, kRulesAlertForOutageTolerance,
    kRulesAlertForGracePeriod, kRulesExternalLabels, kWebExternalUrl, kAlertmanagerUrl, kNotifyConfig,
    kNotifyExecAllow, kTime, kStart, kEnd, kStep, kUrl, kHttpConfigFile, kSnapshotInterval, kJson, kTopInterval, kTopAscii, kTopColors,
    kWindow, kDiagnoseSelector, kDiagnoseGpuPrice, kDiagnoseInterval, kDiagnoseAnomaly, kExplain, kDiagnoseLlmUrl,
    kDiagnoseLlmModel, kDiagnoseLlmApiKeyFile,
    kHealthStateDir, kHealthMergeWindow,
    kLogwatchEnabled, kLogwatchPath, kLogwatchKmsgPath, kLogwatchRules, kLogwatchDefaultRules,
    kLogwatchFromBeginning, kLogwatchReadGz, kLogwatchMaxLineSize, kLogwatchPollInterval,
    kLogwatchForwardSyslog, kLogwatchForwardSyslogFacility, kLogwatchForwardLoki, kLogwatchForwardLokiFormat,
    kLogwatchForwardLokiLabels, kScrapeConfig, kScrapeDiscover, kScrapeKubeletUrl,
    kScrapeKubeletTokenFile, kScrapeKubeletCaFile, kWebEnablePush, kUiDatasource, kUiDatasourceNodeLabel,
    kUiDatasourceHttpConfigFile,
    kRemoteWriteConfig, kEventsPath, kEventsRetention, kEventsMaxSize, kRule, kSeverity, kSource, kLimit, kTraceThreshold, kTraceTop, kHtml,
    kTraceCaptureDir, kTraceIpcSocket, kTraceCaptureTimeout, kPid, kJob, kGpu, kDurationMs, kIterations,
};
// clang-format on

constexpr bool names_unique(std::span<const FlagRef> flags) {
  for (size_t i = 0; i < flags.size(); ++i)
    for (size_t j = i + 1; j < flags.size(); ++j)
      if (flags[i].name == flags[j].name) return false;
  return true;
}
static_assert(names_unique(kAll), "two flag constants share a name");

}  // namespace llmon::config::flag
