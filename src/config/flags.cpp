#include "config/flags.h"

#include <cctype>

#include "base/strings.h"
#include "collector/registry.h"

namespace llmon::config {
namespace {

std::vector<FlagSpec> build_table() {
  using K = FlagKind;
  const std::vector<std::string> agent{"agent"};
  const std::vector<std::string> collect{"agent", "snapshot"};
  const std::vector<std::string> storage{"agent", "tsdb"};
  const std::vector<std::string> query{"query"};
  std::vector<FlagSpec> t = {
      {"config.file", K::kString, "", "YAML file with flag values (keys are flag names; nested maps join with '.').", {}},
      {"log.level", K::kString, "info", "Least severe log level to print: debug, info, warn, error.", {}},
      {"web.listen-address", K::kString, "127.0.0.1:8747",
       "Address to serve HTTP on. Loopback by default; use 0.0.0.0:8747 to expose it. `llmon query` calls the "
       "agent there unless --url is given.",
       {"agent", "query"}},
      {"web.telemetry-path", K::kString, "/metrics", "Path of the metrics page.", agent},
      {"web.max-requests", K::kInt, "40", "HTTP connections served at once (one thread each); further connections get 503.", agent},
      {"collect.interval", K::kDuration, "1s",
       "Collection interval; cycles are stamped on multiples of it (wall clock).", agent},
      {"path.procfs", K::kString, "/proc", "procfs mount point.", collect},
      {"path.sysfs", K::kString, "/sys", "sysfs mount point.", collect},
      {"path.rootfs", K::kString, "/", "Root of the host filesystem (stripped from mount points).", collect},
      {"path.udev.data", K::kString, "/run/udev/data", "udev data path (node_disk_info labels).", collect},
      {"collector.disable-defaults", K::kBool, "false",
       "Turn every collector off unless enabled explicitly with --collector.<name>.", collect},
      {"collector.filesystem.mount-points-exclude", K::kRegex,
       "^/(dev|proc|run/credentials/.+|sys|var/lib/docker/.+|var/lib/containers/storage/.+)($|/)",
       "Regexp of mount points to leave out (node_exporter's default).", collect},
      {"collector.filesystem.fs-types-exclude", K::kRegex,
       "^(autofs|binfmt_misc|bpf|cgroup2?|configfs|debugfs|devpts|devtmpfs|fusectl|hugetlbfs|iso9660|mqueue|"
       "nsfs|overlay|proc|procfs|pstore|rpc_pipefs|securityfs|selinuxfs|squashfs|sysfs|tracefs)$",
       "Regexp of filesystem types to leave out (node_exporter's default).", collect},
      {"collector.filesystem.mount-timeout", K::kDuration, "5s",
       "How long a statvfs may take before the mount is reported stuck (device_error) and skipped "
       "until it answers again.",
       collect},
      {"collector.diskstats.device-exclude", K::kRegex, "^(ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\\d+n\\d+p)\\d+$",
       "Regexp of block devices to leave out (node_exporter's default: partitions, loop and ram disks).", collect},
      {"collector.diskstats.device-include", K::kRegex, "",
       "Regexp of block devices to keep (empty: all); when set, the default device-exclude is dropped.", collect},
      {"collector.netdev.device-exclude", K::kRegex, "", "Regexp of network devices to leave out (empty: none).",
       collect},
      {"collector.netdev.device-include", K::kRegex, "",
       "Regexp of network devices to keep (empty: all); applied together with device-exclude.", collect},
      {"collector.netclass.ignored-devices", K::kRegex, "^$", "Regexp of net devices netclass ignores.", collect},
      {"collector.netclass.ignore-invalid-speed", K::kBool, "false",
       "Leave out node_network_speed_bytes when the speed is negative (unknown).", collect},
      {"collector.cpu.guest", K::kBool, "true", "Enables metric node_cpu_guest_seconds_total.", collect},
      {"collector.stat.softirq", K::kBool, "false", "Export softirq calls per vector (node_softirqs_total).",
       collect},
      {"collector.vmstat.fields", K::kRegex, "^(oom_kill|pgpg|pswp|pg.*fault).*",
       "Regexp of /proc/vmstat fields to export (node_exporter's default).", collect},
      {"nvml.library", K::kString, "libnvidia-ml.so.1",
       "NVML library the gpu collector loads (a path, or a soname searched the usual way).", collect},
      {"collector.gpu.hostname-label", K::kString, "Hostname",
       "Name of the host label on GPU series: Hostname (dcgm-exporter before 4.x), hostname, or none.", collect},
      {"collector.gpu.hostname", K::kString, "",
       "Value of the host label on GPU series (empty: the node name from uname).", collect},
      {"collector.gpu.timeout", K::kDuration, "2s",
       "Longest a cycle waits for NVML; a hung driver call skips GPU series instead of stalling the cycle.",
       collect},
      {"collector.gpu.processes", K::kBool, "true",
       "Per-process GPU metrics (llmon_gpu_process_*) with user, container, pod and namespace.", collect},
      {"collector.gpu.gpm", K::kBool, "true",
       "GPM profiling metrics (DCGM_FI_PROF_* SM, tensor and DRAM activity) on Hopper and newer GPUs. "
       "Turn off if another profiler (DCGM profiling, Nsight) needs the counters.",
       collect},
      {"collector.gpu.events", K::kBool, "true",
       "Watch NVML events for Xid and other critical errors (llmon_gpu_xid_errors_total).", collect},
      {"storage.path", K::kString, "llmon-data",
       "Directory of the time-series store (created if missing; one agent per directory). The systemd unit "
       "uses /var/lib/llmon.",
       storage},
      {"storage.retention.time", K::kDuration, "15d", "How long samples are kept; older data is deleted.", storage},
      {"storage.retention.size", K::kBytes, "0",
       "Most bytes the store may use on disk (e.g. 10GB); the oldest data goes first. 0: no size limit.", storage},
      {"storage.fsync-interval", K::kDuration, "1s",
       "How often the write-ahead log is fsync()ed: a power cut loses at most this much; a killed agent loses "
       "nothing. 0s: at every collection cycle.",
       agent},
      {"storage.min-free-space", K::kBytes, "256MB",
       "The store stops appending (logged, llmon_tsdb_writable 0) while its filesystem has less than this free, "
       "and resumes when space returns.",
       storage},
      {"web.enable-import", K::kBool, "false",
       "Serve POST /api/v1/import/prometheus (backfill into the store, docs/import.md). Off by default, like "
       "Prometheus's write endpoints: anyone who can reach the port could write history.",
       agent},
      {"storage.enabled", K::kBool, "true", "Record every collection cycle into the store at --storage.path.",
       agent},
      {"query.timeout", K::kDuration, "2m",
       "Longest a PromQL query may run (the API's `timeout` parameter can only shorten it); a slower query fails "
       "with errorType timeout.",
       agent},
      {"query.max-concurrency", K::kInt, "20",
       "PromQL queries evaluated at once; more wait for a slot, within their timeout.", agent},
      {"query.max-samples", K::kInt, "50000000",
       "Most samples one query may hold in memory at once; a query needing more fails (errorType execution) "
       "instead of growing the agent.",
       agent},
      {"query.lookback-delta", K::kDuration, "5m",
       "How far back an instant vector selector looks for a sample (the API's `lookback_delta` parameter overrides "
       "it per query).",
       agent},
      {"rules.defaults", K::kBool, "true",
       "Evaluate the built-in LLM rule pack (deploy/rules/, compiled in). --rules.defaults=false turns it off.",
       agent},
      {"rules.file", K::kString, "",
       "Comma-separated Prometheus rule files to evaluate besides the defaults (globs allowed; a directory means its "
       "*.yml and *.yaml, without *.test.yml). Re-read on SIGHUP and POST /-/reload; a broken file keeps the old "
       "rules running.",
       agent},
      {"rules.evaluation-interval", K::kDuration, "15s",
       "How often rule groups without their own `interval` are evaluated (Prometheus: global.evaluation_interval).",
       agent},
      {"rules.query-offset", K::kDuration, "0s",
       "How far in the past rule queries look by default (Prometheus: global.rule_query_offset).", agent},
      {"rules.alert.resend-delay", K::kDuration, "1m",
       "Minimum time between resending a still-firing alert to Alertmanager (as Prometheus's flag).", agent},
      {"rules.alert.for-outage-tolerance", K::kDuration, "1h",
       "Longest agent outage after which an alert's `for` state is still restored from ALERTS_FOR_STATE.", agent},
      {"rules.alert.for-grace-period", K::kDuration, "10m",
       "Shortest time an alert with a restored `for` state waits before firing after a restart.", agent},
      {"rules.external-labels", K::kString, "",
       "Comma-separated name=value labels added to alerts sent out and visible to templates as $externalLabels.",
       agent},
      {"web.external-url", K::kString, "",
       "URL under which users reach this agent (links in alerts and notifications; empty: http://<hostname>:<port>).",
       agent},
      {"alertmanager.url", K::kString, "",
       "Comma-separated Alertmanager base URLs; firing and resolved alerts are posted to each one's /api/v2/alerts "
       "(empty: none).",
       agent},
      {"notify.config", K::kString, "",
       "Routing and receivers for llmon's own notifications (email, webhook, exec), in alertmanager.yml's format "
       "(docs/alerting.md). Empty: alerts are only evaluated, shown in the API and sent to --alertmanager.url.",
       agent},
      {"notify.exec.allow", K::kString, "",
       "Comma-separated absolute paths of executables that exec_configs may run. Empty: exec actions are refused.",
       agent},
      {"time", K::kString, "", "`llmon query`: evaluation time, RFC 3339 or Unix seconds (empty: now).", query},
      {"start", K::kString, "",
       "`llmon query`: start of a range query, RFC 3339 or Unix seconds (with --end and --step).", query},
      {"end", K::kString, "", "`llmon query`: end of a range query, RFC 3339 or Unix seconds.", query},
      {"step", K::kString, "", "`llmon query`: step of a range query, seconds or a duration (15s, 1m).", query},
      {"url", K::kString, "",
       "`llmon query`: base URL of the agent's API, e.g. http://gpu01:8747 (empty: http://<--web.listen-address>).",
       query},
      {"snapshot.interval", K::kDuration, "1s", "Time between the two cycles `llmon snapshot` compares.",
       {"snapshot"}},
      {"json", K::kBool, "false",
       "Print as JSON: the snapshot (stable schema, see docs/snapshot.md), `tsdb inspect`'s report, or `llmon "
       "query`'s API response as received.",
       {"snapshot", "tsdb", "query"}},
  };
  for (const auto& c : collector::builtin_collectors()) {
    t.push_back({"collector." + std::string(c.name), K::kBool, c.enabled_by_default ? "true" : "false",
                 std::string(c.help) + " Use --no-collector." + std::string(c.name) + " to disable.", collect});
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
