#include "top/proc_detail.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace llmon::top {
namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

}  // namespace

bool env_matters(std::string_view n) {
  static constexpr std::string_view kPrefixes[] = {"CUDA_", "NCCL_",        "NVIDIA_",
                                                   "TORCH", "SLURM_JOB_ID", "SLURM_PROCID"};
  static constexpr std::string_view kNames[] = {
      "OMP_NUM_THREADS",     "LOCAL_RANK",           "RANK",
      "WORLD_SIZE",          "LOCAL_WORLD_SIZE",     "GROUP_RANK",
      "NODE_RANK",           "MASTER_ADDR",          "MASTER_PORT",
      "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "PYTORCH_CUDA_ALLOC_CONF"};
  for (auto p : kPrefixes)
    if (starts_with(n, p)) return true;
  for (auto k : kNames)
    if (n == k) return true;
  return false;
}

std::vector<std::pair<std::string, std::string>> pick_env(std::string_view environ) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!environ.empty()) {
    size_t end = environ.find('\0');
    std::string_view e = environ.substr(0, end);
    environ = end == std::string_view::npos ? std::string_view{} : environ.substr(end + 1);
    size_t eq = e.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    if (env_matters(e.substr(0, eq))) out.emplace_back(std::string(e.substr(0, eq)), std::string(e.substr(eq + 1)));
  }
  return out;
}

std::string join_cmdline(std::string_view raw) {
  while (!raw.empty() && raw.back() == '\0') raw.remove_suffix(1);
  std::string out(raw);
  for (char& c : out)
    if (c == '\0') c = ' ';
  return out;
}

bool parse_stat(std::string_view stat, ProcessDetail& d) {
  size_t open = stat.find('('), close = stat.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
  d.comm = std::string(stat.substr(open + 1, close - open - 1));
  std::string rest(stat.substr(close + 1));
  // Fields from 3 (state) on, space-separated.
  std::vector<std::string> f;
  size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    size_t j = rest.find(' ', i);
    if (j == std::string::npos) j = rest.size();
    if (j > i) f.push_back(rest.substr(i, j - i));
    i = j;
  }
  if (f.size() < 20) return false;
  d.state = f[0];                                             // field 3
  d.ppid = f[1];                                              // field 4
  d.threads = std::strtod(f[17].c_str(), nullptr);            // field 20
  d.start_ticks = std::strtoull(f[19].c_str(), nullptr, 10);  // field 22
  d.found = true;
  return true;
}

void parse_status_uids(std::string_view status, ProcessDetail& d) {
  size_t p = status.find("\nUid:");
  if (p == std::string_view::npos) return;
  std::string line(status.substr(p + 5, status.find('\n', p + 1) - p - 5));
  unsigned r = 0, e = 0, s = 0;
  if (std::sscanf(line.c_str(), "%u %u %u", &r, &e, &s) == 3) {
    d.ruid = r;
    d.suid = s;
  }
}

std::string pick_cgroup(std::string_view cg) {
  std::string first;
  while (!cg.empty()) {
    size_t nl = cg.find('\n');
    std::string_view l = cg.substr(0, nl);
    cg = nl == std::string_view::npos ? std::string_view{} : cg.substr(nl + 1);
    if (l.empty()) continue;
    if (starts_with(l, "0::")) return std::string(l.substr(3));
    if (first.empty()) {
      size_t c = l.find(':', l.find(':') + 1);
      first = std::string(c == std::string_view::npos ? l : l.substr(c + 1));
    }
  }
  return first;
}

std::optional<double> elapsed_seconds(uint64_t start_ticks, double uptime_s, long ticks_per_s) {
  if (ticks_per_s <= 0) return std::nullopt;
  double e = uptime_s - static_cast<double>(start_ticks) / static_cast<double>(ticks_per_s);
  return e < 0 ? 0 : e;
}

std::string elapsed_text(double s) {
  long t = static_cast<long>(s);
  char buf[32];
  if (t >= 86400)
    std::snprintf(buf, sizeof buf, "%ldd%02ldh", t / 86400, t % 86400 / 3600);
  else if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t % 3600 / 60);
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

std::string may_signal(uint32_t my_ruid, uint32_t my_euid, const ProcessDetail& t) {
  if (my_euid == 0) return "";
  if (!t.found) return "pid " + t.pid + " is gone";
  if (!t.ruid) return "pid " + t.pid + ": owner unknown";
  for (uint32_t mine : {my_ruid, my_euid})
    if (mine == *t.ruid || (t.suid && mine == *t.suid)) return "";
  return "not allowed: pid " + t.pid + " belongs to uid " + std::to_string(*t.ruid) + ", you are uid " +
         std::to_string(my_euid) + " (only its owner or root may signal it)";
}

const std::vector<SignalChoice>& signal_choices() {
  static const std::vector<SignalChoice> kChoices = {
      {SIGTERM, "TERM", "ask to terminate"}, {SIGINT, "INT", "interrupt (Ctrl-C)"}, {SIGHUP, "HUP", "hang up / reload"},
      {SIGKILL, "KILL", "kill at once"},     {SIGUSR1, "USR1", "user signal 1"},    {SIGUSR2, "USR2", "user signal 2"},
      {SIGSTOP, "STOP", "stop (pause)"},     {SIGCONT, "CONT", "continue"},
  };
  return kChoices;
}

}  // namespace llmon::top
