#include "scrape/gpu_process_discovery.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "base/file_reader.h"
#include "base/strings.h"
#include "net/http_client.h"
#include "procfs/net_tcp.h"
#include "procfs/pid_stat.h"
#include "scrape/fetcher.h"
#include "scrape/page_parser.h"

namespace llmon::scrape {
namespace {

std::string read_link(const std::string& path) {
  char buf[256];
  const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::set<uint64_t> socket_inodes(const std::string& proc, uint32_t pid) {
  std::set<uint64_t> out;
  const std::string dir = proc + "/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    if (uint64_t ino = procfs::socket_inode(read_link(dir + "/" + e->d_name)); ino != 0) out.insert(ino);
  }
  ::closedir(d);
  return out;
}

// MASTER_PORT from the process's environment (0 when unset or unreadable).
uint16_t master_port(const std::string& proc, uint32_t pid) {
  auto env = base::read_file(proc + "/" + std::to_string(pid) + "/environ");
  if (!env) return 0;
  std::string_view rest = *env;
  while (!rest.empty()) {
    const size_t nul = rest.find('\0');
    const std::string_view kv = rest.substr(0, nul);
    rest.remove_prefix(nul == std::string_view::npos ? rest.size() : nul + 1);
    if (kv.substr(0, 12) == "MASTER_PORT=") {
      auto v = base::parse_i64(kv.substr(12));
      return v && *v > 0 && *v < 65536 ? static_cast<uint16_t>(*v) : 0;
    }
  }
  return 0;
}

bool parent_of(const std::string& proc, uint32_t pid, uint32_t& ppid, std::string& comm) {
  auto text = base::read_file(proc + "/" + std::to_string(pid) + "/stat");
  if (!text) return false;
  std::string_view c;
  std::vector<std::string_view> fields;
  if (!procfs::split_stat(*text, c, fields) || fields.size() < 2) return false;
  auto p = base::parse_i64(fields[1]);
  if (!p || *p <= 1) return false;
  ppid = static_cast<uint32_t>(*p);
  auto parent = base::read_file(proc + "/" + std::to_string(ppid) + "/stat");
  if (!parent) return false;
  std::vector<std::string_view> pf;
  std::string_view pc;
  if (!procfs::split_stat(*parent, pc, pf)) return false;
  comm = std::string(pc);
  return true;
}

bool loopback_or_any(const procfs::TcpSocket& s) {
  if (!s.v6) return s.local_address == "0.0.0.0" || s.local_address.rfind("127.", 0) == 0;
  return s.local_address == "::" || s.local_address == "::1" || s.local_address == "::ffff:127.0.0.1";
}

void set_label(std::vector<model::Label>& ls, const std::string& name, const std::string& value) {
  for (auto& l : ls)
    if (l.name == name) {
      l.value = value;
      return;
    }
  ls.push_back({name, value});
}

}  // namespace

GpuProcessDiscovery::GpuProcessDiscovery(GpuProcessDiscoveryOptions opts) : opts_(std::move(opts)) {
  auto range = base::read_file(opts_.proc_root + "/sys/net/ipv4/ip_local_port_range");
  uint16_t lo = 0, hi = 0;
  if (range && procfs::parse_port_range(*range, lo, hi)) {
    eph_lo_ = lo;
    eph_hi_ = hi;
  }
  if (!opts_.probe) {
    const int64_t timeout = opts_.probe_timeout_ms;
    opts_.probe = [timeout](const std::string& hp, std::string& why) { return probe_http(hp, timeout, why); };
  }
}

bool GpuProcessDiscovery::probe_http(const std::string& host_port, int64_t timeout_ms, std::string& why_not) {
  scrape::ScrapeConfig cfg;
  cfg.body_size_limit = 16u << 20;
  Fetcher f(cfg, "llmon-discovery");
  auto page = f.fetch("http://" + host_port + "/metrics", timeout_ms);
  if (!page) {
    why_not = "GET /metrics: " + page.error();
    return false;
  }
  PageParser p(page->body, page_format(page->content_type));
  size_t samples = 0;
  for (auto k = p.next(); k != PageParser::Next::kEnd; k = p.next()) {
    if (k == PageParser::Next::kError) {
      why_not = "GET /metrics is not a Prometheus page: " + p.error();
      return false;
    }
    ++samples;
  }
  if (samples == 0) {
    why_not = "GET /metrics answered a page without samples";
    return false;
  }
  return true;
}

void GpuProcessDiscovery::scan_process(uint32_t pid, const std::vector<model::Label>& labels,
                                       const std::string& self_netns,
                                       std::map<std::pair<uint32_t, uint16_t>, Candidate>& next) {
  const std::string base = opts_.proc_root + "/" + std::to_string(pid);
  const std::set<uint64_t> inodes = socket_inodes(opts_.proc_root, pid);
  if (inodes.empty()) return;
  const std::string netns = read_link(base + "/ns/net");
  std::vector<procfs::TcpSocket> sockets;
  for (const bool v6 : {false, true}) {
    auto text = base::read_file(base + (v6 ? "/net/tcp6" : "/net/tcp"));
    if (!text) continue;
    for (auto& s : procfs::parse_net_tcp(*text, v6))
      if (s.state == procfs::kTcpListen && inodes.count(s.inode) != 0) sockets.push_back(std::move(s));
  }
  const uint16_t mport = master_port(opts_.proc_root, pid);
  for (const auto& s : sockets) {
    const auto key = std::make_pair(pid, s.local_port);
    if (next.count(key) != 0) continue;  // IPv4 and IPv6 listeners on one port: one candidate
    if (auto it = candidates_.find(key); it != candidates_.end()) {
      next.emplace(key, it->second);  // probed once
      continue;
    }
    Candidate c;
    c.labels = labels;
    const std::string where = s.local_address + ":" + std::to_string(s.local_port);
    if (!netns.empty() && !self_netns.empty() && netns != self_netns) {
      c.why_not = where + ": in another network namespace, not probed";
    } else if (!loopback_or_any(s)) {
      c.why_not = where + ": not a loopback or wildcard address, not probed";
    } else if (s.local_port >= eph_lo_ && s.local_port <= eph_hi_) {
      c.why_not = where + ": an ephemeral port (NCCL, Gloo, torch.distributed), not probed";
    } else if (opts_.deny_ports.count(s.local_port) != 0 || s.local_port == mport || s.local_port == opts_.own_port) {
      c.why_not = where + ": on the deny list, not probed";
    } else {
      const bool v6_only = s.v6 && s.local_address == "::1";
      c.host_port = (v6_only ? "[::1]:" : "127.0.0.1:") + std::to_string(s.local_port);
      c.is_target = opts_.probe(c.host_port, c.why_not);
      if (!c.is_target) c.why_not = where + ": " + c.why_not;
    }
    next.emplace(key, std::move(c));
  }
}

bool GpuProcessDiscovery::refresh(int64_t now_ms) {
  if (last_scan_ms_ != INT64_MIN && now_ms - last_scan_ms_ < opts_.rescan_ms) return false;
  last_scan_ms_ = now_ms;
  const std::vector<GpuProcess> procs = opts_.processes ? opts_.processes() : std::vector<GpuProcess>();
  const std::string self_netns = read_link(opts_.proc_root + "/self/ns/net");
  std::map<std::pair<uint32_t, uint16_t>, Candidate> next;
  std::set<uint32_t> seen;
  for (const GpuProcess& p : procs) {
    if (p.pid == 0 || !seen.insert(p.pid).second) continue;
    scan_process(p.pid, p.labels, self_netns, next);
    uint32_t ppid = 0;
    std::string comm;
    if (parent_of(opts_.proc_root, p.pid, ppid, comm) && seen.insert(ppid).second) {
      std::vector<model::Label> labels = p.labels;
      set_label(labels, "pid", std::to_string(ppid));
      set_label(labels, "command", comm);
      scan_process(ppid, labels, self_netns, next);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  bool changed = next.size() != candidates_.size();
  for (auto a = next.begin(), b = candidates_.begin(); !changed && a != next.end(); ++a, ++b)
    changed = a->first != b->first || a->second.is_target != b->second.is_target;
  candidates_ = std::move(next);
  return changed;
}

std::vector<TargetGroup> GpuProcessDiscovery::groups() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TargetGroup> out;
  for (const auto& [key, c] : candidates_) {
    if (!c.is_target) continue;
    TargetGroup g;
    g.targets.push_back(c.host_port);
    for (const auto& l : c.labels)
      if (!l.value.empty()) g.labels.push_back(l);
    g.source = "gpu-process:" + std::to_string(key.first) + ":" + std::to_string(key.second);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<std::string> GpuProcessDiscovery::notes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [key, c] : candidates_) {
    if (c.is_target) continue;
    std::string who = "pid " + std::to_string(key.first);
    for (const auto& l : c.labels)
      if (l.name == "command" && !l.value.empty()) who += " (" + l.value + ")";
    out.push_back(who + " " + c.why_not);
  }
  return out;
}

}  // namespace llmon::scrape
