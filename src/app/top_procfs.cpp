#include "app/top_procfs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

#include "base/file_reader.h"
#include "procfs/passwd.h"
#include "procfs/pid_stat.h"

namespace llmon::app {

top::ProcessDetail read_process_detail(const std::string& procfs, const std::string& pid) {
  top::ProcessDetail d;
  d.pid = pid;
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) return d;
  const std::string dir = procfs + "/" + pid;
  auto stat = base::read_file(dir + "/stat");
  if (!stat || !top::parse_stat(*stat, d)) return d;
  if (auto st = base::read_file(dir + "/status")) top::parse_status_uids(*st, d);
  if (auto c = base::read_file(dir + "/cmdline")) d.cmdline = top::join_cmdline(*c);
  if (auto c = base::read_file(dir + "/cgroup")) d.cgroup = top::pick_cgroup(*c);
  if (auto up = base::read_file(procfs + "/uptime"); up && d.start_ticks)
    d.elapsed_s = top::elapsed_seconds(*d.start_ticks, std::strtod(up->c_str(), nullptr), ::sysconf(_SC_CLK_TCK));
  std::string env;
  int fd = ::open((dir + "/environ").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    d.env_note = std::string("not readable: ") + std::strerror(errno);
    return d;
  }
  errno = 0;
  Status st = base::pread_to_end(fd, dir + "/environ", env);
  int read_errno = errno;
  ::close(fd);
  if (!st.ok())
    d.env_note = std::string("not readable: ") + (read_errno ? std::strerror(read_errno) : "read failed");
  else if (env.empty())
    d.env_note = "not readable (empty: a kernel thread, or not permitted)";
  else
    d.env = top::pick_env(env);
  return d;
}

std::map<std::string, std::string> read_parent_pids(const std::string& procfs, const std::vector<std::string>& pids) {
  std::map<std::string, std::string> out;
  for (const std::string& pid : pids) {
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    top::ProcessDetail d;
    auto stat = base::read_file(procfs + "/" + pid + "/stat");
    if (stat && top::parse_stat(*stat, d)) out[pid] = d.ppid;
  }
  return out;
}

std::vector<summary::GpuProcess> read_launchers(const std::string& procfs, const std::string& passwd,
                                                const std::vector<std::string>& gpu_pids,
                                                std::map<std::string, std::string>& ppid) {
  std::vector<summary::GpuProcess> out;
  const std::set<std::string> gpu(gpu_pids.begin(), gpu_pids.end());
  std::set<std::string> wanted;
  for (const auto& [pid, parent] : ppid)
    if (!gpu.count(parent) && parent != "0" && parent != "1" && parent != "2") wanted.insert(parent);
  if (wanted.empty()) return out;
  procfs::UserNames users;
  if (auto pw = base::read_file(passwd)) users = procfs::parse_passwd(*pw);
  for (const std::string& pid : wanted) {
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    top::ProcessDetail d;
    auto stat = base::read_file(procfs + "/" + pid + "/stat");
    if (!stat || !top::parse_stat(*stat, d)) continue;
    summary::GpuProcess l;
    l.pid = pid;
    l.command = d.comm;
    if (auto st = base::read_file(procfs + "/" + pid + "/status")) {
      if (auto s = procfs::parse_pid_status(*st)) {
        auto it = users.find(s->uid);
        l.user = it != users.end() ? it->second : std::to_string(s->uid);
        l.rss_bytes = static_cast<double>(s->rss_bytes);
      }
    }
    ppid[pid] = d.ppid;
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace llmon::app
