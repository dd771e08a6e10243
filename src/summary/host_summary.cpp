#include "summary/host_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

namespace llmon::summary {
namespace {

using model::Family;
using model::Snapshot;

int label_index(const Family& f, std::string_view name) {
  for (size_t i = 0; i < f.label_names.size(); ++i)
    if (f.label_names[i] == name) return static_cast<int>(i);
  return -1;
}

// Map from one label's value to the series value, for series matching `where`.
std::map<std::string, double> by_label(const Snapshot& s, std::string_view metric, std::string_view key,
                                       std::string_view where_label = {}, std::string_view where_value = {}) {
  std::map<std::string, double> out;
  const Family* f = s.find(metric);
  if (!f) return out;
  int k = label_index(*f, key);
  int w = where_label.empty() ? -1 : label_index(*f, where_label);
  if (k < 0 || (!where_label.empty() && w < 0)) return out;
  for (const auto& ser : f->series) {
    if (w >= 0 && ser.label_values[w] != where_value) continue;
    out[ser.label_values[k]] += ser.value;
  }
  return out;
}

double scalar(const Snapshot& s, std::string_view metric) {
  const Family* f = s.find(metric);
  return f && !f->series.empty() ? f->series[0].value : 0;
}

double rate(double before, double after, double dt) {
  if (dt <= 0 || after < before) return 0;
  return (after - before) / dt;
}

bool numeric_less(const std::string& a, const std::string& b) {
  char* ea = nullptr;
  char* eb = nullptr;
  long na = std::strtol(a.c_str(), &ea, 10), nb = std::strtol(b.c_str(), &eb, 10);
  if (*ea == 0 && *eb == 0) return na < nb;
  return a < b;
}

void cpu_usage(const Snapshot& a, const Snapshot& b, HostSummary& out) {
  static const char* kModes[] = {"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"};
  const Family* fa = a.find("node_cpu_seconds_total");
  const Family* fb = b.find("node_cpu_seconds_total");
  if (!fa || !fb) return;
  // cpu -> mode -> delta seconds
  std::map<std::string, std::map<std::string, double>> d;
  int ca = label_index(*fa, "cpu"), ma = label_index(*fa, "mode");
  int cb = label_index(*fb, "cpu"), mb = label_index(*fb, "mode");
  if (ca < 0 || ma < 0 || cb < 0 || mb < 0) return;
  std::map<std::pair<std::string, std::string>, double> before;
  for (const auto& s : fa->series) before[{s.label_values[ca], s.label_values[ma]}] = s.value;
  for (const auto& s : fb->series) {
    auto it = before.find({s.label_values[cb], s.label_values[mb]});
    if (it == before.end()) continue;
    d[s.label_values[cb]][s.label_values[mb]] = std::max(0.0, s.value - it->second);
  }
  std::map<std::string, double> all;
  std::vector<std::string> cpus;
  for (const auto& [cpu, modes] : d) {
    cpus.push_back(cpu);
    for (const auto& [m, v] : modes) all[m] += v;
  }
  std::sort(cpus.begin(), cpus.end(), numeric_less);
  auto make = [&](const std::string& name, const std::map<std::string, double>& modes) {
    double total = 0;
    for (const char* m : kModes) {
      auto it = modes.find(m);
      if (it != modes.end()) total += it->second;
    }
    auto get = [&](const char* m) {
      auto it = modes.find(m);
      return it == modes.end() || total <= 0 ? 0.0 : 100.0 * it->second / total;
    };
    CpuUsage u;
    u.cpu = name;
    u.user_pct = get("user") + get("nice");
    u.system_pct = get("system") + get("irq") + get("softirq");
    u.iowait_pct = get("iowait");
    u.steal_pct = get("steal");
    u.busy_pct = total <= 0 ? 0 : 100.0 - get("idle") - get("iowait");
    return u;
  };
  if (cpus.empty()) return;
  out.cpus.push_back(make("all", all));
  for (const auto& c : cpus) out.cpus.push_back(make(c, d[c]));
}

}  // namespace

HostSummary summarize(const Snapshot& a, const Snapshot& b) {
  HostSummary out;
  out.timestamp_ms = b.timestamp_ms;
  double dt = (b.timestamp_ms - a.timestamp_ms) / 1000.0;
  out.interval_s = dt;
  if (const Family* u = b.find("node_uname_info"); u && !u->series.empty()) {
    int i = label_index(*u, "nodename");
    if (i >= 0) out.hostname = u->series[0].label_values[i];
  }
  out.load1 = scalar(b, "node_load1");
  out.load5 = scalar(b, "node_load5");
  out.load15 = scalar(b, "node_load15");
  cpu_usage(a, b, out);

  out.mem_total_bytes = scalar(b, "node_memory_MemTotal_bytes");
  out.mem_available_bytes = scalar(b, "node_memory_MemAvailable_bytes");
  out.mem_used_bytes = std::max(0.0, out.mem_total_bytes - out.mem_available_bytes);
  out.mem_used_pct = out.mem_total_bytes > 0 ? 100.0 * out.mem_used_bytes / out.mem_total_bytes : 0;
  out.swap_total_bytes = scalar(b, "node_memory_SwapTotal_bytes");
  out.swap_used_bytes = std::max(0.0, out.swap_total_bytes - scalar(b, "node_memory_SwapFree_bytes"));

  auto net_rate = [&](const char* metric) {
    auto x = by_label(a, metric, "device"), y = by_label(b, metric, "device");
    std::map<std::string, double> r;
    for (const auto& [dev, v] : y)
      if (auto it = x.find(dev); it != x.end()) r[dev] = rate(it->second, v, dt);
    return r;
  };
  auto rx = net_rate("node_network_receive_bytes_total"), tx = net_rate("node_network_transmit_bytes_total");
  auto rxp = net_rate("node_network_receive_packets_total"), txp = net_rate("node_network_transmit_packets_total");
  auto rxe = net_rate("node_network_receive_errs_total"), txe = net_rate("node_network_transmit_errs_total");
  auto rxd = net_rate("node_network_receive_drop_total"), txd = net_rate("node_network_transmit_drop_total");
  for (const auto& [dev, v] : rx) {
    NetRate n;
    n.device = dev;
    n.rx_bytes_per_s = v;
    n.tx_bytes_per_s = tx[dev];
    n.rx_packets_per_s = rxp[dev];
    n.tx_packets_per_s = txp[dev];
    n.errors_per_s = rxe[dev] + txe[dev];
    n.drops_per_s = rxd[dev] + txd[dev];
    out.net.push_back(n);
  }

  auto disk_rate = [&](const char* metric) {
    auto x = by_label(a, metric, "device"), y = by_label(b, metric, "device");
    std::map<std::string, double> r;
    for (const auto& [dev, v] : y)
      if (auto it = x.find(dev); it != x.end()) r[dev] = rate(it->second, v, dt);
    return r;
  };
  auto rd = disk_rate("node_disk_read_bytes_total"), wr = disk_rate("node_disk_written_bytes_total");
  auto rdo = disk_rate("node_disk_reads_completed_total"), wro = disk_rate("node_disk_writes_completed_total");
  auto busy = disk_rate("node_disk_io_time_seconds_total");
  for (const auto& [dev, v] : rd) {
    DiskRate d;
    d.device = dev;
    d.read_bytes_per_s = v;
    d.write_bytes_per_s = wr[dev];
    d.reads_per_s = rdo[dev];
    d.writes_per_s = wro[dev];
    d.util_pct = std::min(100.0, 100.0 * busy[dev]);
    out.disks.push_back(d);
  }

  if (const Family* size = b.find("node_filesystem_size_bytes")) {
    int mp = label_index(*size, "mountpoint"), dev = label_index(*size, "device"), ft = label_index(*size, "fstype");
    if (mp >= 0 && dev >= 0 && ft >= 0) {
      auto avail = by_label(b, "node_filesystem_avail_bytes", "mountpoint");
      auto free_b = by_label(b, "node_filesystem_free_bytes", "mountpoint");
      auto ro = by_label(b, "node_filesystem_readonly", "mountpoint");
      auto err = by_label(b, "node_filesystem_device_error", "mountpoint");
      for (const auto& s : size->series) {
        FsUsage f;
        f.mountpoint = s.label_values[mp];
        f.device = s.label_values[dev];
        f.fstype = s.label_values[ft];
        f.size_bytes = s.value;
        f.avail_bytes = avail[f.mountpoint];
        f.used_bytes = std::max(0.0, f.size_bytes - free_b[f.mountpoint]);
        // df's Use%: used / (used + avail), rounded up.
        double denom = f.used_bytes + f.avail_bytes;
        f.used_pct = denom > 0 ? 100.0 * f.used_bytes / denom : 0;
        f.readonly = ro[f.mountpoint] > 0;
        f.device_error = err[f.mountpoint] > 0;
        out.filesystems.push_back(f);
      }
    }
  }
  out.gpus = summarize_gpus(a, b, dt);
  for (const auto& [name, ok] : by_label(b, "node_scrape_collector_success", "collector"))
    if (ok == 0) out.failed_collectors.push_back(name);
  return out;
}

namespace {

std::string human_bytes(double v) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (std::fabs(v) >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, kUnits[u]);
  return buf;
}

std::string iso8601(int64_t ms) {
  std::time_t t = ms / 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void appendf(std::string& out, const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  out += buf;
}

}  // namespace

std::string format_text(const HostSummary& s) {
  std::string out;
  appendf(out, "llmon snapshot  %s  %s  (rates over %.2f s)\n\n", s.hostname.empty() ? "-" : s.hostname.c_str(),
          iso8601(s.timestamp_ms).c_str(), s.interval_s);
  if (!s.cpus.empty()) {
    appendf(out, "CPU   %5.1f%% busy on %zu cores   load %.2f %.2f %.2f\n", s.cpus[0].busy_pct, s.cpus.size() - 1,
            s.load1, s.load5, s.load15);
    appendf(out, "  %-6s %6s %6s %6s %6s %6s\n", "cpu", "busy%", "user%", "sys%", "iowt%", "steal%");
    for (size_t i = 1; i < s.cpus.size(); ++i) {
      const auto& c = s.cpus[i];
      appendf(out, "  %-6s %6.1f %6.1f %6.1f %6.1f %6.1f\n", c.cpu.c_str(), c.busy_pct, c.user_pct, c.system_pct,
              c.iowait_pct, c.steal_pct);
    }
  } else {
    appendf(out, "CPU   (no cpu data)   load %.2f %.2f %.2f\n", s.load1, s.load5, s.load15);
  }
  appendf(out, "\nMEM   used %s of %s (%.1f%%), available %s   swap used %s of %s\n",
          human_bytes(s.mem_used_bytes).c_str(), human_bytes(s.mem_total_bytes).c_str(), s.mem_used_pct,
          human_bytes(s.mem_available_bytes).c_str(), human_bytes(s.swap_used_bytes).c_str(),
          human_bytes(s.swap_total_bytes).c_str());
  format_gpu_text(s.gpus, out);
  format_apps_text(s.apps, s.gpus, out);
  if (!s.findings_source.empty()) {
    appendf(out, "\nFINDINGS  from the agent at %s over the last %lld s", s.findings_source.c_str(),
            static_cast<long long>(s.findings_window_ms / 1000));
    if (s.findings.empty())
      out += ": none, healthy\n";
    else
      out += "\n";
    const size_t shown = std::min<size_t>(s.findings.size(), 5);
    for (size_t i = 0; i < shown; ++i)
      appendf(out, "  %-8s %-20s %s\n", s.findings[i].severity.c_str(), s.findings[i].kind.c_str(),
              s.findings[i].summary.c_str());
    if (s.findings.size() > shown)
      appendf(out, "  ... %zu more: llmon diagnose --url=%s\n", s.findings.size() - shown, s.findings_source.c_str());
  } else if (!s.findings_note.empty()) {
    appendf(out, "\nFINDINGS  %s\n", s.findings_note.c_str());
  }
  if (!s.net.empty()) {
    appendf(out, "\nNET   %-16s %12s %12s %10s %10s %8s\n", "device", "rx/s", "tx/s", "rx pkt/s", "tx pkt/s", "err+drop");
    for (const auto& n : s.net)
      appendf(out, "      %-16s %12s %12s %10.0f %10.0f %8.0f\n", n.device.c_str(),
              human_bytes(n.rx_bytes_per_s).c_str(), human_bytes(n.tx_bytes_per_s).c_str(), n.rx_packets_per_s,
              n.tx_packets_per_s, n.errors_per_s + n.drops_per_s);
  }
  if (!s.disks.empty()) {
    appendf(out, "\nDISK  %-16s %12s %12s %8s %8s %6s\n", "device", "read/s", "write/s", "r/s", "w/s", "util%");
    for (const auto& d : s.disks)
      appendf(out, "      %-16s %12s %12s %8.0f %8.0f %6.1f\n", d.device.c_str(),
              human_bytes(d.read_bytes_per_s).c_str(), human_bytes(d.write_bytes_per_s).c_str(), d.reads_per_s,
              d.writes_per_s, d.util_pct);
  }
  if (!s.filesystems.empty()) {
    appendf(out, "\nFS    %-24s %-8s %10s %10s %10s %5s\n", "mountpoint", "fstype", "size", "used", "avail", "use%");
    for (const auto& f : s.filesystems) {
      appendf(out, "      %-24s %-8s %10s %10s %10s %4.0f%%%s\n", f.mountpoint.c_str(), f.fstype.c_str(),
              human_bytes(f.size_bytes).c_str(), human_bytes(f.used_bytes).c_str(),
              human_bytes(f.avail_bytes).c_str(), std::ceil(f.used_pct),
              f.device_error ? "  (stat failed or timed out)" : (f.readonly ? "  (ro)" : ""));
    }
  }
  if (!s.failed_collectors.empty()) {
    out += "\nfailed collectors:";
    for (const auto& c : s.failed_collectors) out += " " + c;
    out += "\n";
  }
  if (!s.no_data_collectors.empty()) {
    out += "\nno data (hardware or kernel module absent):";
    for (const auto& c : s.no_data_collectors) out += " " + c;
    out += "\n";
  }
  return out;
}

void mark_no_data(HostSummary& s, const std::vector<std::string>& no_data) {
  std::vector<std::string> failed;
  for (auto& c : s.failed_collectors) {
    if (std::find(no_data.begin(), no_data.end(), c) != no_data.end())
      s.no_data_collectors.push_back(std::move(c));
    else
      failed.push_back(std::move(c));
  }
  s.failed_collectors = std::move(failed);
}

std::string format_json(const HostSummary& s) {
  using nlohmann::json;
  json j;
  j["schema"] = "llmon.snapshot.v1";
  j["timestamp"] = iso8601(s.timestamp_ms);
  j["timestamp_ms"] = s.timestamp_ms;
  j["interval_seconds"] = s.interval_s;
  j["hostname"] = s.hostname;
  j["load"] = {{"load1", s.load1}, {"load5", s.load5}, {"load15", s.load15}};
  json cpus = json::array();
  for (const auto& c : s.cpus)
    cpus.push_back({{"cpu", c.cpu},
                    {"busy_percent", c.busy_pct},
                    {"user_percent", c.user_pct},
                    {"system_percent", c.system_pct},
                    {"iowait_percent", c.iowait_pct},
                    {"steal_percent", c.steal_pct}});
  j["cpu"] = cpus;
  j["memory"] = {{"total_bytes", s.mem_total_bytes},
                 {"available_bytes", s.mem_available_bytes},
                 {"used_bytes", s.mem_used_bytes},
                 {"used_percent", s.mem_used_pct},
                 {"swap_total_bytes", s.swap_total_bytes},
                 {"swap_used_bytes", s.swap_used_bytes}};
  json net = json::array();
  for (const auto& n : s.net)
    net.push_back({{"device", n.device},
                   {"receive_bytes_per_second", n.rx_bytes_per_s},
                   {"transmit_bytes_per_second", n.tx_bytes_per_s},
                   {"receive_packets_per_second", n.rx_packets_per_s},
                   {"transmit_packets_per_second", n.tx_packets_per_s},
                   {"errors_per_second", n.errors_per_s},
                   {"drops_per_second", n.drops_per_s}});
  j["network"] = net;
  json disks = json::array();
  for (const auto& d : s.disks)
    disks.push_back({{"device", d.device},
                     {"read_bytes_per_second", d.read_bytes_per_s},
                     {"written_bytes_per_second", d.write_bytes_per_s},
                     {"reads_per_second", d.reads_per_s},
                     {"writes_per_second", d.writes_per_s},
                     {"utilization_percent", d.util_pct}});
  j["disks"] = disks;
  json fss = json::array();
  for (const auto& f : s.filesystems)
    fss.push_back({{"mountpoint", f.mountpoint},
                   {"device", f.device},
                   {"fstype", f.fstype},
                   {"size_bytes", f.size_bytes},
                   {"used_bytes", f.used_bytes},
                   {"avail_bytes", f.avail_bytes},
                   {"used_percent", f.used_pct},
                   {"readonly", f.readonly},
                   {"device_error", f.device_error}});
  j["filesystems"] = fss;
  add_gpu_json(s.gpus, j);
  add_apps_json(s.apps, j);
  json findings = json::array();
  for (const auto& f : s.findings)
    findings.push_back({{"severity", f.severity}, {"kind", f.kind}, {"summary", f.summary}, {"subject", f.subject}});
  j["findings"] = findings;
  j["findings_source"] = s.findings_source;
  j["findings_window_seconds"] = s.findings_window_ms / 1000;
  j["failed_collectors"] = s.failed_collectors;
  j["no_data_collectors"] = s.no_data_collectors;
  return j.dump(2) + "\n";
}

}  // namespace llmon::summary
