// Registered Kineto processes (process_table.h).
#include "trace/capture/process_table.h"

#include <algorithm>

namespace llmon::trace::capture {

std::string Selector::describe() const {
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (pid) add("pid " + std::to_string(*pid));
  if (gpu) add("gpu " + std::to_string(*gpu));
  if (job_id) add("job " + std::to_string(*job_id));
  return s.empty() ? "all processes" : s;
}

std::string ProcessInfo::describe() const {
  std::string s = "pid " + std::to_string(pid) + " (";
  s += gpu ? "gpu " + std::to_string(*gpu) : "gpu unknown";
  s += ", job " + std::to_string(job_id);
  if (chain.size() > 1) {
    s += ", ancestors";
    for (size_t i = 1; i < chain.size(); ++i) s += " " + std::to_string(chain[i]);
  }
  s += polls ? ", " + std::to_string(polls) + " polls" : ", never polled";
  return s + ")";
}

void ProcessTable::gc(int64_t now_ms) {
  for (auto it = procs_.begin(); it != procs_.end();) {
    const ProcessInfo& p = it->second.info;
    int64_t seen = std::max(p.last_poll_ms, p.first_seen_ms);
    if (now_ms - seen > kForgetAfterMs)
      it = procs_.erase(it);
    else
      ++it;
  }
}

int32_t ProcessTable::on_context(const Context& c, int32_t peer_pid, int64_t now_ms) {
  std::lock_guard<std::mutex> g(mu_);
  gc(now_ms);
  auto [it, fresh] = procs_.try_emplace(c.pid);
  ProcessInfo& p = it->second.info;
  if (fresh) {
    p.pid = c.pid;
    p.chain = {c.pid};
    p.first_seen_ms = now_ms;
  }
  p.gpu = c.gpu;
  p.job_id = c.job_id;
  if (peer_pid) p.peer_pid = peer_pid;
  int32_t n = 0;
  for (const auto& [pid, e] : procs_)
    if (e.info.job_id == c.job_id && e.info.gpu == c.gpu) ++n;
  return n;
}

std::string ProcessTable::on_request(const Request& r, int32_t peer_pid, int64_t now_ms) {
  std::lock_guard<std::mutex> g(mu_);
  gc(now_ms);
  auto [it, fresh] = procs_.try_emplace(r.pids[0]);
  Entry& e = it->second;
  if (fresh) {
    e.info.pid = r.pids[0];
    e.info.first_seen_ms = now_ms;
  }
  e.info.chain = r.pids;
  e.info.job_id = r.job_id;
  if (peer_pid) e.info.peer_pid = peer_pid;
  e.info.last_poll_ms = now_ms;
  ++e.info.polls;
  if (!(r.type & kConfigActivities) || e.config.empty()) return {};
  std::string c = std::move(e.config);
  e.config.clear();
  e.info.config_pending = false;
  return c;
}

std::vector<ProcessInfo> ProcessTable::list(int64_t now_ms) {
  std::lock_guard<std::mutex> g(mu_);
  gc(now_ms);
  std::vector<ProcessInfo> out;
  for (const auto& [pid, e] : procs_) out.push_back(e.info);
  return out;
}

std::vector<ProcessInfo> ProcessTable::match(const Selector& s, int64_t now_ms) {
  std::vector<ProcessInfo> out;
  for (ProcessInfo& p : list(now_ms)) {
    if (s.pid && std::find(p.chain.begin(), p.chain.end(), *s.pid) == p.chain.end()) continue;
    if (s.gpu && p.gpu != s.gpu) continue;
    if (s.job_id && p.job_id != *s.job_id) continue;
    out.push_back(std::move(p));
  }
  return out;
}

bool ProcessTable::install(int32_t pid, std::string config) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = procs_.find(pid);
  if (it == procs_.end() || !it->second.config.empty()) return false;
  it->second.config = std::move(config);
  it->second.info.config_pending = true;
  return true;
}

bool ProcessTable::pending(int32_t pid) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = procs_.find(pid);
  return it != procs_.end() && !it->second.config.empty();
}

void ProcessTable::cancel(int32_t pid) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = procs_.find(pid);
  if (it == procs_.end()) return;
  it->second.config.clear();
  it->second.info.config_pending = false;
}

}  // namespace llmon::trace::capture
