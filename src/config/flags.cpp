#include "config/flags.h"

#include <cctype>

#include "base/strings.h"
#include "collector/registry.h"
#include "config/flag_names.h"

namespace llmon::config {
namespace {

// A static row: name and kind come from its flag_names.h constant.
struct Row {
  FlagRef flag;
  const char* default_value;
  const char* help;
  std::vector<std::string> commands;
  bool repeatable = false;
};

std::vector<FlagSpec> build_table() {
  const std::vector<std::string> agent{"agent"};
  const std::vector<std::string> collect{"agent", "snapshot", "top"};
  const std::vector<std::string> storage{"agent", "tsdb", "diagnose"};
  const std::vector<std::string> query{"query", "diagnose", "events"};
  const Row rows[] = {
      {flag::kConfigFile, "", "YAML file with flag values (keys are flag names; nested maps join with '.').", {}},
      {flag::kLogLevel, "info", "Least severe log level to print: debug, info, warn, error.", {}},
      {flag::kWebListenAddress,
       "127.0.0.1:8747",
       "Address to serve HTTP on. Loopback by default; use 0.0.0.0:8747 to expose it. `llmon query` calls the "
       "agent there unless --url is given.",
       {"agent", "query", "diagnose", "events", "health", "snapshot", "trace"}},
      {flag::kWebTelemetryPath, "/metrics", "Path of the metrics page.", agent},
      {flag::kWebMaxRequests, "40", "HTTP connections served at once (one thread each); further connections get 503.",
       agent},
      {flag::kWebConfigFile, "",
       "exporter-toolkit web config (TLS, client certificates, basic auth, headers; docs/security.md). Reread when "
       "it or its certificate files change.",
       agent},
      {flag::kWebAdminUsers, "",
       "Comma-separated basic_auth_users allowed the admin routes (reload, silences, import, push, deletes); the "
       "others may only read. Empty: every user is admin.",
       agent},
      {flag::kCollectInterval, "1s", "Collection interval; cycles are stamped on multiples of it (wall clock).", agent},
      {flag::kPathProcfs, "/proc", "procfs mount point.", collect},
      {flag::kPathSysfs, "/sys", "sysfs mount point.", collect},
      {flag::kPathRootfs, "/", "Root of the host filesystem (stripped from mount points).", collect},
      {flag::kPathUdevData, "/run/udev/data", "udev data path (node_disk_info labels).", collect},
      {flag::kCollectorDisableDefaults, "false",
       "Turn every collector off unless enabled explicitly with --collector.<name>.", collect},
      {flag::kCollectorFilesystemMountPointsExclude,
       "^/(dev|proc|run/credentials/.+|sys|var/lib/docker/.+|var/lib/containers/storage/.+)($|/)",
       "Regexp of mount points to leave out (node_exporter's default).", collect},
      {flag::kCollectorFilesystemFsTypesExclude,
       "^(autofs|binfmt_misc|bpf|cgroup2?|configfs|debugfs|devpts|devtmpfs|fusectl|hugetlbfs|iso9660|mqueue|"
       "nsfs|overlay|proc|procfs|pstore|rpc_pipefs|securityfs|selinuxfs|squashfs|sysfs|tracefs)$",
       "Regexp of filesystem types to leave out (node_exporter's default).", collect},
      {flag::kCollectorFilesystemMountTimeout, "5s",
       "How long a statvfs may take before the mount is reported stuck (device_error) and skipped "
       "until it answers again.",
       collect},
      {flag::kCollectorDiskstatsDeviceExclude, collector::flag::kDiskstatsDefaultDeviceExclude,
       "Regexp of block devices to leave out (node_exporter's default: partitions, loop and ram disks).", collect},
      {flag::kCollectorDiskstatsDeviceInclude, "",
       "Regexp of block devices to keep (empty: all); when set, the default device-exclude is dropped.", collect},
      {flag::kCollectorNetdevDeviceExclude, "", "Regexp of network devices to leave out (empty: none).", collect},
      {flag::kCollectorNetdevDeviceInclude, "",
       "Regexp of network devices to keep (empty: all); applied together with device-exclude.", collect},
      {flag::kCollectorNetclassIgnoredDevices, "^$", "Regexp of net devices netclass ignores.", collect},
      {flag::kCollectorNetclassIgnoreInvalidSpeed, "false",
       "Leave out node_network_speed_bytes when the speed is negative (unknown).", collect},
      {flag::kCollectorEthtoolDeviceInclude, "",
       "Regexp of ethtool devices to include (empty: all); applied together with device-exclude.", collect},
      {flag::kCollectorEthtoolDeviceExclude, "", "Regexp of ethtool devices to exclude (empty: none).", collect},
      {flag::kCollectorEthtoolMetricsInclude, ".*",
       "Regexp of ethtool stats to include, matched against the driver's names (`ethtool -S`).", collect},
      {flag::kCollectorArpDeviceInclude, "", "Regexp of arp devices to include (empty: all).", collect},
      {flag::kCollectorArpDeviceExclude, "", "Regexp of arp devices to exclude (empty: none).", collect},
      {flag::kCollectorRaplEnableZoneLabel, "false",
       "Export node_rapl_joules_total{rapl_zone} instead of one family per zone name.", collect},
      {flag::kCollectorPowersupplyIgnoredSupplies, "^$",
       "Regexp of power supplies to ignore for powersupplyclass collector.", collect},
      {flag::kCollectorTapestatsIgnoredDevices, "^$", "Regexp of devices to ignore for tapestats.", collect},
      {flag::kCollectorCpuGuest, "true", "Enables metric node_cpu_guest_seconds_total.", collect},
      {flag::kCollectorCpuInfo, "false", "Enables metric node_cpu_info (from /proc/cpuinfo).", collect},
      {flag::kCollectorCpuInfoFlagsInclude, "",
       "Regexp of /proc/cpuinfo flags to export as node_cpu_flag_info (empty: none); implies --collector.cpu.info.",
       collect},
      {flag::kCollectorCpuInfoBugsInclude, "",
       "Regexp of /proc/cpuinfo bugs to export as node_cpu_bug_info (empty: none); implies --collector.cpu.info.",
       collect},
      {flag::kCollectorStatSoftirq, "false", "Export softirq calls per vector (node_softirqs_total).", collect},
      {flag::kCollectorVmstatFields, "^(oom_kill|pgpg|pswp|pg.*fault).*",
       "Regexp of /proc/vmstat fields to export (node_exporter's default).", collect},
      {flag::kCollectorNetstatFields, collector::flag::kNetstatDefaultFields,
       "Regexp of netstat fields (<Protocol>_<Name> of /proc/net/{netstat,snmp,snmp6}) to export "
       "(node_exporter's default).",
       collect},
      {flag::kCollectorTextfileDirectory, "",
       "Directory to read text files with metrics from (*.prom; empty: none, node_exporter 1.5's upstream default).",
       collect},
      {flag::kCollectorIpvsBackendLabels, collector::flag::kIpvsDefaultBackendLabels,
       "Comma separated list for IPVS backend stats labels (of the default's; series that then share labels are "
       "summed).",
       collect},
      {flag::kCollectorBcachePriorityStats, "false",
       "Expose expensive priority stats (node_bcache_priority_stats_*: the kernel walks every bucket to print them).",
       collect},
      {flag::kCollectorSystemdUnitInclude, ".+",
       "Regexp of systemd units to include. Units must both match include and not match exclude to be included.",
       collect},
      {flag::kCollectorSystemdUnitExclude, collector::flag::kSystemdDefaultUnitExclude,
       "Regexp of systemd units to exclude. Units must both match include and not match exclude to be included.",
       collect},
      {flag::kCollectorSystemdPrivate, "false",
       "Establish a private, direct connection to systemd without dbus (/run/systemd/private; needs root).", collect},
      {flag::kCollectorSystemdEnableTaskMetrics, "false",
       "Enables service unit tasks metrics unit_tasks_current and unit_tasks_max", collect},
      {flag::kCollectorSystemdEnableRestartsMetrics, "false", "Enables service unit metric service_restart_total",
       collect},
      {flag::kCollectorSystemdEnableStartTimeMetrics, "false", "Enables service unit metric unit_start_time_seconds",
       collect},
      {flag::kNvmlLibrary, "libnvidia-ml.so.1",
       "NVML library the gpu collector loads (a path, or a soname searched the usual way).", collect},
      {flag::kCollectorGpuHostnameLabel, "Hostname",
       "Name of the host label on GPU series: Hostname (dcgm-exporter before 4.x), hostname, or none.", collect},
      {flag::kCollectorGpuHostname, "", "Value of the host label on GPU series (empty: the node name from uname).",
       collect},
      {flag::kCollectorGpuTimeout, "2s",
       "Longest a cycle waits for NVML; a hung driver call skips GPU series instead of stalling the cycle.", collect},
      {flag::kCollectorGpuProcesses, "true",
       "Per-process GPU metrics (llmon_gpu_process_*) with user, container, pod and namespace.", collect},
      {flag::kCollectorGpuGpm, "true",
       "GPM profiling metrics (DCGM_FI_PROF_* SM, tensor and DRAM activity) on Hopper and newer GPUs. "
       "Turn off if another profiler (DCGM profiling, Nsight) needs the counters.",
       collect},
      {flag::kCollectorGpuEvents, "true",
       "Watch NVML events for Xid and other critical errors (llmon_gpu_xid_errors_total).", collect},
      {flag::kCollectorGpuNames, "dcgm",
       "GPU metric name sets, comma separated: dcgm (dcgm-exporter's DCGM_FI_*), nvidia_smi "
       "(utkuozdemir/nvidia_gpu_exporter's nvidia_smi_*), or both. llmon_gpu_* are always exposed.",
       collect},
      {flag::kCollectorGpuPodResourcesSocket, "/var/lib/kubelet/pod-resources/kubelet.sock",
       "The kubelet's pod-resources gRPC socket: which pod and container each GPU is allocated to (pod, namespace "
       "and container labels on the per-GPU series). A missing socket is normal (no Kubernetes): the GPU's processes' "
       "cgroups are used instead. Empty: never asked.",
       collect},
      {flag::kStoragePath, "llmon-data",
       "Directory of the time-series store (created if missing; one agent per directory). The systemd unit "
       "uses /var/lib/llmon.",
       storage},
      {flag::kStorageRetentionTime, "15d", "How long samples are kept; older data is deleted.", storage},
      {flag::kStorageRetentionSize, "0",
       "Most bytes the store may use on disk (e.g. 10GB); the oldest data goes first. 0: no size limit.", storage},
      {flag::kStorageFsyncInterval, "1s",
       "How often the write-ahead log is fsync()ed: a power cut loses at most this much; a killed agent loses "
       "nothing. 0s: at every collection cycle.",
       agent},
      {flag::kStorageMinFreeSpace, "256MB",
       "The store stops appending (logged, llmon_tsdb_writable 0) while its filesystem has less than this free, "
       "and resumes when space returns.",
       storage},
      {flag::kWebEnableImport, "false",
       "Serve POST /api/v1/import/prometheus (backfill into the store, docs/import.md). Off by default, like "
       "Prometheus's write endpoints: anyone who can reach the port could write history.",
       agent},
      {flag::kStorageEnabled, "true", "Record every collection cycle into the store at --storage.path.", agent},
      {flag::kStorageSelfJob, "llmon",
       "job label of the series the agent stores from its own collection, as if Prometheus scraped it.", agent},
      {flag::kStorageSelfInstance, "",
       "instance label of the series the agent stores from its own collection (empty: <hostname>:<port of "
       "--web.listen-address>).",
       agent},
      {flag::kQueryTimeout, "2m",
       "Longest a PromQL query may run (the API's `timeout` parameter can only shorten it); a slower query fails "
       "with errorType timeout.",
       agent},
      {flag::kQueryMaxConcurrency, "20",
       "PromQL queries evaluated at once; more wait for a slot, within their timeout.", agent},
      {flag::kQueryMaxSamples, "50000000",
       "Most samples one query may hold in memory at once; a query needing more fails (errorType execution) "
       "instead of growing the agent.",
       agent},
      {flag::kQueryLookbackDelta, "5m",
       "How far back an instant vector selector looks for a sample (the API's `lookback_delta` parameter overrides "
       "it per query).",
       agent},
      {flag::kRulesDefaults, "true",
       "Evaluate the built-in LLM rule pack (deploy/rules/, compiled in). --rules.defaults=false turns it off.", agent},
      {flag::kRulesFile, "",
       "Comma-separated Prometheus rule files to evaluate besides the defaults (globs allowed; a directory means its "
       "*.yml and *.yaml, without *.test.yml). Re-read on SIGHUP and POST /-/reload; a broken file keeps the old "
       "rules running.",
       agent},
      {flag::kRulesEvaluationInterval, "15s",
       "How often rule groups without their own `interval` are evaluated (Prometheus: global.evaluation_interval).",
       agent},
      {flag::kRulesQueryOffset, "0s",
       "How far in the past rule queries look by default (Prometheus: global.rule_query_offset).", agent},
      {flag::kRulesAlertResendDelay, "1m",
       "Minimum time between resending a still-firing alert to Alertmanager (as Prometheus's flag).", agent},
      {flag::kRulesAlertForOutageTolerance, "1h",
       "Longest agent outage after which an alert's `for` state is still restored from ALERTS_FOR_STATE.", agent},
      {flag::kRulesAlertForGracePeriod, "10m",
       "Shortest time an alert with a restored `for` state waits before firing after a restart.", agent},
      {flag::kRulesExternalLabels, "",
       "Comma-separated name=value labels added to alerts sent out and visible to templates as $externalLabels.",
       agent},
      {flag::kWebExternalUrl, "",
       "URL under which users reach this agent (links in alerts and notifications; empty: http://<hostname>:<port>).",
       agent},
      {flag::kAlertmanagerUrl, "",
       "Comma-separated Alertmanager base URLs; firing and resolved alerts are posted to each one's /api/v2/alerts "
       "(empty: none).",
       agent},
      {flag::kNotifyConfig, "",
       "Routing and receivers for llmon's own notifications (email, webhook, exec), in alertmanager.yml's format "
       "(docs/alerting.md). Empty: alerts are only evaluated, shown in the API and sent to --alertmanager.url.",
       agent},
      {flag::kNotifyExecAllow, "",
       "Comma-separated absolute paths of executables that exec_configs may run. Empty: exec actions are refused.",
       agent},
      {flag::kTime, "", "`llmon query`: evaluation time, RFC 3339 or Unix seconds (empty: now).", query},
      {flag::kStart, "",
       "`llmon query`: start of a range query, RFC 3339 or Unix seconds (with --end and --step); `llmon events`: "
       "the earliest event time.",
       query},
      {flag::kEnd, "",
       "`llmon query`: end of a range query, RFC 3339 or Unix seconds; `llmon events`: the latest event time.", query},
      {flag::kStep, "", "`llmon query`: step of a range query, seconds or a duration (15s, 1m).", query},
      {flag::kUrl,
       "",
       "`llmon query`: base URL of the agent's API, e.g. http://gpu01:8747 (empty: http://<--web.listen-address>). "
       "`llmon snapshot` takes its diagnosis findings from there; `llmon top --url` shows that agent's data, history, "
       "alerts and findings instead of running the collectors (docs/top.md).",
       {"query", "diagnose", "events", "health", "snapshot", "trace", "top"}},
      {flag::kHttpConfigFile,
       "",
       "Client commands that call an agent (query, alerts, events, health, diagnose, snapshot, trace capture, top "
       "--url): "
       "a file in Prometheus's HTTP client format, as promtool's --http.config.file (basic_auth with password_file, "
       "authorization, bearer_token_file, tls_config with ca_file, cert_file, key_file, server_name, "
       "insecure_skip_verify), for an agent behind --web.config.file; use an https:// --url (docs/security.md).",
       {"query", "diagnose", "events", "health", "snapshot", "trace", "top"}},
      {flag::kSnapshotInterval, "1s", "Time between the two cycles `llmon snapshot` compares.", {"snapshot"}},
      {flag::kTopInterval,
       "1s",
       "`llmon top`: time between refreshes (one collection cycle each, or one round of queries to --url).",
       {"top"}},
      {flag::kTopAscii,
       "false",
       "`llmon top`: ASCII characters only (charts, bars, boxes), for terminals or fonts without UTF-8.",
       {"top"}},
      {flag::kTopColors,
       "auto",
       "`llmon top`: 256, 16 or none; auto: none when NO_COLOR is set or TERM is dumb, 256 when TERM or "
       "COLORTERM says so, else 16.",
       {"top"}},
      {flag::kJson,
       "false",
       "Print as JSON: the snapshot (stable schema, see docs/snapshot.md), `tsdb inspect`'s report, or `llmon "
       "query`'s API response as received.",
       {"snapshot", "tsdb", "query", "diagnose", "events", "health", "trace"}},
      {flag::kWindow,
       "15m",
       "`llmon diagnose` (and /api/v1/diagnosis by default): the window diagnosed, ending at --time; "
       "`llmon snapshot`: the window of the agent's findings it shows.",
       {"agent", "diagnose", "snapshot"}},
      {flag::kDiagnoseSelector,
       "",
       "Matchers added to every query of a diagnosis, e.g. instance=\"gpu01:8747\" (empty: the agent's own "
       "job and instance in the agent; every series for `llmon diagnose --storage.path`).",
       {"agent", "diagnose", "snapshot"}},
      {flag::kExplain,
       "false",
       "`llmon diagnose`: also ask the model at --diagnose.llm.url to explain the findings in prose (sends the "
       "findings and their evidence there; nothing is sent without this flag).",
       {"diagnose"}},
      {flag::kDiagnoseLlmUrl,
       "",
       "OpenAI-compatible chat-completions server for --explain, e.g. a local vLLM or llama.cpp server: "
       "http://127.0.0.1:8000 (/v1/chat/completions is added) or the full .../chat/completions URL. Empty: off.",
       {"diagnose"}},
      {flag::kDiagnoseLlmModel,
       "",
       "Model name sent to --diagnose.llm.url (empty: the first of its /v1/models).",
       {"diagnose"}},
      {flag::kDiagnoseLlmApiKeyFile,
       "",
       "File holding a bearer token for --diagnose.llm.url (empty: none).",
       {"diagnose"}},
      {flag::kDiagnoseGpuPrice,
       "",
       "$ per GPU-hour by model, for idle-GPU cost: MODEL=PRICE,... matched as a substring of modelName "
       "(H100=2.5,A100=1.8); replaces the documented defaults for those models (docs/diagnosis.md).",
       {"agent", "diagnose"}},
      {flag::kDiagnoseInterval, "15s",
       "How often the agent diagnoses its own series over --window and stores the findings as "
       "llmon_diagnosis_finding{kind,severity,...} (0: never).",
       agent},
      {flag::kDiagnoseAnomaly, "true",
       "With --diagnose.interval: score the curated series against their learned baselines and store "
       "llmon_anomaly_score{...,metric}, llmon_anomaly_baseline_ready and llmon_anomaly_node_rate "
       "(docs/diagnosis.md, \"Baselines and anomalies\"); false turns it off.",
       agent},
      {flag::kHealthStateDir, "",
       "Directory of the GPU health state (Xid occurrences, the boots they were seen in, operator overrides; "
       "empty: <--storage.path>/health).",
       agent},
      {flag::kHealthMergeWindow, "1m",
       "The same Xid on the same GPU from NVML and from the kernel log within this window is one error.", agent},
      // Application metrics (docs/scrape.md)
      {flag::kScrapeConfig, "",
       "Scrape configuration in Prometheus's format (global and scrape_configs: static and file discovery, "
       "relabelling, limits, auth, TLS; docs/scrape.md). The targets' samples go to the store beside the "
       "agent's own; SIGHUP rereads it. `llmon snapshot` scrapes the targets twice and shows their headline "
       "numbers. Empty: no scraping.",
       collect},
      {flag::kScrapeDiscover, "",
       "Comma-separated automatic target discovery: gpu-processes (every process using a GPU whose listening "
       "port answers GET /metrics with Prometheus text, labelled with its pid, command, container and pod), "
       "kubelet-pods (this node's pods annotated prometheus.io/scrape: \"true\", from --scrape.kubelet-url). "
       "Empty: none.",
       collect},
      {flag::kScrapeKubeletUrl, "https://127.0.0.1:10250/pods",
       "The kubelet's pod list for --scrape.discover=kubelet-pods (the read-only port: http://127.0.0.1:10255/pods).",
       collect},
      {flag::kScrapeKubeletTokenFile, "/var/run/secrets/kubernetes.io/serviceaccount/token",
       "Bearer token for the kubelet (reread on every request; empty or missing: none).", collect},
      {flag::kScrapeKubeletCaFile, "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt",
       "CA bundle that signs the kubelet's certificate (missing: the system store).", collect},
      {flag::kWebEnablePush, "false",
       "Accept Pushgateway-style pushes at /metrics/job/<job>{/<label>/<value>} (PUT, POST, DELETE) and store "
       "them beside the agent's series (docs/scrape.md).",
       agent},
      // The dashboard's fleet mode (docs/dashboard.md)
      {flag::kUiDatasource, "",
       "Fleet view: the dashboard reads its data from this Prometheus-API server (the fleet's Prometheus, "
       "VictoriaMetrics, ...: http[s]://host:port[/prefix]) through the agent at /ui/datasource/, with a node "
       "picker; alerts, diagnosis and health stay this agent's. Empty: this agent's own store.",
       agent},
      {flag::kUiDatasourceNodeLabel, "instance",
       "Fleet view: the label that names a node in the data source's series (the node picker's values).", agent},
      {flag::kUiDatasourceHttpConfigFile, "",
       "Fleet view: auth and TLS for the data source, in Prometheus's HTTP client format (as --http.config.file).",
       agent},
      // Log watching (docs/logwatch.md)
      {flag::kLogwatchEnabled, "true",
       "Watch the kernel log (--logwatch.kmsg-path) and the files of --logwatch.path with the log rules; matches "
       "count in llmon_log_matches_total and are kept as events (/api/v1/events, `llmon events`).",
       agent},
      {flag::kLogwatchPath, "",
       "Log file or glob to watch (repeatable, or comma-separated); new files matching a glob are picked up, "
       "rotation and truncation are followed. Empty: only the kernel log.",
       agent, true},
      {flag::kLogwatchKmsgPath, "/dev/kmsg",
       "The kernel log: /dev/kmsg, or a regular file of kmsg records (prio,seq,usec,flags;text per line) read as "
       "it grows. Empty: not read. Reading /dev/kmsg needs root or CAP_SYSLOG where dmesg_restrict is set.",
       agent},
      {flag::kLogwatchRules, "",
       "Comma-separated log rule files (YAML, docs/logwatch.md; globs allowed) used besides the built-in packs.",
       agent},
      {flag::kLogwatchDefaultRules, "true",
       "Use the built-in log rule packs (deploy/logwatch/: training and kernel, compiled in).", agent},
      {flag::kLogwatchFromBeginning, "false",
       "Read files found at the first start (with no saved position) from their beginning instead of their end.",
       agent},
      {flag::kLogwatchReadGz, "false", "Also read rotated generations compressed as BASE.N.gz (each once).", agent},
      {flag::kLogwatchMaxLineSize, "64KB", "Longer log lines are cut at this size (and counted).", agent},
      {flag::kLogwatchPollInterval, "1s",
       "Files are polled at least this often besides inotify's wake-ups (which catch most changes at once).", agent},
      {flag::kLogwatchForwardSyslog, "",
       "Also send every log event as RFC 5424 syslog over TCP (RFC 6587 octet counting) to tcp://HOST:PORT, "
       "e.g. a local rsyslog's imtcp (docs/logwatch-forward.md). Empty: off.",
       agent},
      {flag::kLogwatchForwardSyslogFacility, "local0", "Syslog facility of forwarded events (a name or 0-23).", agent},
      {flag::kLogwatchForwardLoki, "",
       "Also push every log event to Grafana Loki at this push URL (http://HOST:3100/loki/api/v1/push). Empty: off.",
       agent},
      {flag::kLogwatchForwardLokiFormat, "protobuf", "Loki push body: protobuf (snappy-compressed) or json.", agent},
      {flag::kLogwatchForwardLokiLabels, "",
       "Comma-separated k=v stream labels added to Loki pushes (besides job, host, rule, severity, source).", agent},
      {flag::kRemoteWriteConfig, "",
       "remote_write configuration in Prometheus's format (a remote_write: list: url, headers, basic_auth, "
       "authorization, tls_config, write_relabel_configs, queue_config (shards), metadata_config, "
       "protobuf_message: prometheus.WriteRequest or io.prometheus.write.v2.Request; global.external_labels). "
       "Each endpoint is fed from the store's WAL with a durable read position, so restarts and outages lose "
       "nothing (docs/remote_write.md). Empty: off.",
       agent},
      {flag::kEventsPath,
       "",
       "Directory of the log events journal (empty: <--storage.path>/events).",
       {"agent", "events"}},
      {flag::kEventsRetention, "7d", "How long log events are kept.", agent},
      {flag::kEventsMaxSize, "256MB", "Most bytes the log events journal may use; the oldest go first.", agent},
      {flag::kRule, "", "`llmon events`: only events of this rule.", {"events"}},
      {flag::kSeverity,
       "",
       "`llmon events`: only events of at least this severity (info, warning, error, critical).",
       {"events"}},
      {flag::kSource, "", "`llmon events`: only events of this source (kmsg, a file's path, or a glob).", {"events"}},
      {flag::kLimit, "100", "`llmon events`: at most this many events, newest first.", {"events"}},
      {flag::kTraceThreshold,
       "30",
       "`llmon trace analyze`: flag a kernel or CPU operator whose share of the time is at least this many percent.",
       {"trace"}},
      {flag::kTraceTop, "10", "`llmon trace analyze`: rows in the top kernels and top operators lists.", {"trace"}},
      {flag::kHtml,
       "",
       "`llmon trace analyze`: also write the report as one self-contained HTML file here (charts and tables drawn "
       "from the --json document embedded in it; nothing fetched).",
       {"trace"}},
      {flag::kTraceCaptureDir, "",
       "Directory for on-demand PyTorch profiler traces (docs/trace.md#capture). Set: the agent answers Kineto's "
       "daemon protocol (KINETO_USE_DAEMON=1 jobs) on --trace.ipc-socket and serves POST /api/v1/trace/capture. "
       "Empty: off, no socket is opened.",
       agent},
      {flag::kTraceIpcSocket, "dynolog",
       "Abstract Unix socket name Kineto sends to (dynolog's; with --trace.capture-dir only). Another name keeps "
       "real jobs away, e.g. in tests.",
       agent},
      {flag::kTraceCaptureTimeout,
       "60s",
       "`llmon trace capture`: how long the agent waits for a trace file after a process took its config (on top "
       "of --duration-ms).",
       {"trace"}},
      {flag::kPid,
       "-1",
       "`llmon trace capture`: capture the process with this pid and every registered process it is an "
       "ancestor of (-1: any).",
       {"trace"}},
      {flag::kJob,
       "-1",
       "`llmon trace capture`: capture the processes of this job id (SLURM_JOB_ID; -1: any).",
       {"trace"}},
      {flag::kGpu,
       "-1",
       "`llmon trace capture`: capture the processes registered on this GPU index (-1: any).",
       {"trace"}},
      {flag::kDurationMs,
       "500",
       "`llmon trace capture`: trace for this many milliseconds (ACTIVITIES_DURATION_MSECS).",
       {"trace"}},
      {flag::kIterations,
       "0",
       "`llmon trace capture`: trace this many iterations (ProfilerStep) instead of a duration (0: use "
       "--duration-ms).",
       {"trace"}},
  };
  std::vector<FlagSpec> t;
  for (const Row& r : rows)
    t.push_back({std::string(r.flag.name), r.flag.kind, r.default_value, r.help, r.commands, r.repeatable});
  for (const auto& c : collector::builtin_collectors()) {
    t.push_back({collector_switch_name(c.name), FlagKind::kBool, c.enabled_by_default ? "true" : "false",
                 std::string(c.help) + " Use --no-" + collector_switch_name(c.name) + " to disable.", collect});
  }
  return t;
}

}  // namespace

std::string env_name(std::string_view flag) {
  std::string out = "LLMON_";
  for (char c : flag) {
    if (c == '.' || c == '-')
      out += '_';
    else
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

const std::vector<FlagSpec>& flag_table() {
  static const std::vector<FlagSpec> kTable = build_table();  // immutable after first use
  return kTable;
}

const FlagSpec* find_flag(std::string_view name) {
  for (const auto& f : flag_table())
    if (f.name == name) return &f;
  return nullptr;
}

Expected<FlagRef> checked_flag(std::string_view name, FlagKind kind) {
  const FlagSpec* f = find_flag(name);
  if (!f) return Status::error("unknown flag --" + std::string(name));
  if (f->kind != kind)
    return Status::error("flag --" + f->name + " is a " + std::string(kind_name(f->kind)) + ", not a " +
                         std::string(kind_name(kind)));
  return FlagRef{f->name, f->kind};
}

std::string collector_switch_name(std::string_view collector) { return "collector." + std::string(collector); }

Expected<int64_t> parse_duration_ms(std::string_view s) { return base::parse_duration_ms(s); }

Expected<uint64_t> parse_bytes(std::string_view s) {
  std::string_view num = s;
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0) return Status::error("invalid byte size \"" + std::string(s) + "\" (use e.g. 512MB, 10GB)");
  num = s.substr(0, i);
  std::string unit(s.substr(i));
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  static const std::pair<const char*, int> kUnits[] = {{"", 0},   {"B", 0},   {"KB", 1},  {"KIB", 1}, {"MB", 2},
                                                        {"MIB", 2}, {"GB", 3},  {"GIB", 3}, {"TB", 4},  {"TIB", 4},
                                                        {"PB", 5},  {"PIB", 5}, {"EB", 6},  {"EIB", 6}};
  int shift = -1;
  for (const auto& [name, pow] : kUnits) {
    if (unit == name) shift = pow;
  }
  if (shift < 0) return Status::error("invalid byte size \"" + std::string(s) + "\": unknown unit (B, KB, MB, GB, TB, PB, EB)");
  uint64_t v = 0;
  for (char c : num) {
    if (v > (UINT64_MAX - 9) / 10) return Status::error("byte size \"" + std::string(s) + "\" is too large");
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  for (int k = 0; k < shift; ++k) {
    if (v > (UINT64_MAX >> 10)) return Status::error("byte size \"" + std::string(s) + "\" is too large");
    v <<= 10;
  }
  return v;
}

Expected<bool> parse_bool(std::string_view s) {
  if (auto b = base::parse_bool_word(s)) return *b;
  return Status::error("invalid boolean \"" + std::string(s) + "\" (use true or false)");
}

}  // namespace llmon::config
