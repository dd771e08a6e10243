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
  std::vector<FlagSpec> t = {
      {"config.file", K::kString, "", "YAML file with flag values (keys are flag names; nested maps join with '.').", {}},
      {"log.level", K::kString, "info", "Least severe log level to print: debug, info, warn, error.", {}},
      {"web.listen-address", K::kString, "127.0.0.1:8747",
       "Address to serve HTTP on. Loopback by default; use 0.0.0.0:8747 to expose it.", agent},
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
      {"snapshot.interval", K::kDuration, "1s", "Time between the two cycles `llmon snapshot` compares.",
       {"snapshot"}},
      {"json", K::kBool, "false", "Print the snapshot as JSON (stable schema, see docs/snapshot.md).",
       {"snapshot"}},
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

Expected<int64_t> parse_duration_ms(std::string_view s) {
  if (s.empty()) return Status::error("empty duration");
  if (s == "0") return int64_t{0};
  int64_t total = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (start == i) return Status::error("invalid duration \"" + std::string(s) + "\": expected a number");
    auto n = base::parse_i64(s.substr(start, i - start));
    size_t ustart = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    std::string_view unit = s.substr(ustart, i - ustart);
    int64_t mult = 0;
    if (unit == "ms") mult = 1;
    else if (unit == "s") mult = 1000;
    else if (unit == "m") mult = 60'000;
    else if (unit == "h") mult = 3'600'000;
    else if (unit == "d") mult = 86'400'000;
    else if (unit == "w") mult = 7 * 86'400'000LL;
    else if (unit == "y") mult = 365 * 86'400'000LL;
    else
      return Status::error("invalid duration \"" + std::string(s) + "\": unknown unit \"" + std::string(unit) +
                           "\" (use ms, s, m, h, d, w, y)");
    int64_t part = 0;
    if (!n || __builtin_mul_overflow(*n, mult, &part) || __builtin_add_overflow(total, part, &total))
      return Status::error("invalid duration \"" + std::string(s) + "\": out of range");
  }
  return total;
}

Expected<bool> parse_bool(std::string_view s) {
  if (auto b = base::parse_bool_word(s)) return *b;
  return Status::error("invalid boolean \"" + std::string(s) + "\" (use true or false)");
}

}  // namespace llmon::config
