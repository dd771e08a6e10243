#include "gpu/process_info.h"

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "procfs/cgroup.h"
#include "procfs/pid_stat.h"
#include "procfs/process_stat.h"

namespace llmon::gpu {

void process_label_values(const ProcessInfo& p, std::vector<std::string_view>& out) {
  out.clear();
  // One push_back each (GCC 12 warns falsely on insert(initializer_list) here).
  out.push_back(p.pid_text);
  out.push_back(p.command);
  out.push_back(p.user);
  out.push_back(p.container);
  out.push_back(p.pod);
  out.push_back(p.namespace_);
}

bool ProcessResolver::FileStamp::operator==(const FileStamp& o) const {
  return exists == o.exists && dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
         mtime.tv_nsec == o.mtime.tv_nsec;
}

ProcessResolver::ProcessResolver(procfs::Fs fs)
    : fs_(std::move(fs)), page_size_(static_cast<double>(::sysconf(_SC_PAGESIZE))) {}

const ProcessInfo& ProcessResolver::lookup(uint32_t pid) {
  std::string dir = std::to_string(pid);
  auto gone = [&]() -> const ProcessInfo& {
    entries_.erase(pid);
    gone_ = ProcessInfo{};
    gone_.pid = pid;
    gone_.pid_text = dir;
    return gone_;
  };
  // Known process: one pread of its open stat file.
  if (auto it = entries_.find(pid); it != entries_.end() && it->second.stat) {
    Entry& e = it->second;
    auto text = e.stat->read();
    auto st = text ? procfs::parse_process_stat(*text) : Expected<procfs::ProcessStat>(text.status());
    if (!st) return gone();
    if (st->starttime_ticks == e.starttime_ticks) {
      e.seen = true;
      e.info.alive = true;
      e.info.cpu_seconds = static_cast<double>(st->utime_ticks + st->stime_ticks) / 100.0;
      e.info.rss_bytes = static_cast<double>(st->rss_pages) * page_size_;
      return e.info;
    }
    // The pid was recycled: resolve the new process from scratch.
  }
  if (!base::read_file(fs_.proc(dir + "/stat"), buf_)) return gone();
  auto stat = procfs::parse_pid_stat(buf_);
  if (!stat) return gone();
  // status is what a process needs to have a user: without it (it exited
  // between the two reads), it is gone too.
  if (!base::read_file(fs_.proc(dir + "/status"), buf_)) return gone();
  auto status = procfs::parse_pid_status(buf_);
  if (!status) return gone();

  auto [it, inserted] = entries_.try_emplace(pid);
  Entry& e = it->second;
  if (inserted || e.starttime_ticks != stat->starttime_ticks) {  // new, or the pid was recycled
    e = Entry{};
    e.starttime_ticks = stat->starttime_ticks;
    ProcessInfo& info = e.info;
    info.pid = pid;
    info.pid_text = dir;
    info.command = stat->comm;
    if (info.command.empty() && base::read_file(fs_.proc(dir + "/cmdline"), buf_))
      info.command = procfs::cmdline_command(buf_);
    info.user = user_name(status->uid);
    if (!base::read_file(fs_.proc(dir + "/cgroup"), buf_)) buf_.clear();
    procfs::CgroupInfo cg = procfs::parse_cgroup(buf_);
    info.runtime = std::move(cg.runtime);
    info.container_id = std::move(cg.container_id);
    info.pod_uid = std::move(cg.pod_uid);
    resolve_names(info);
    e.stat = std::make_unique<base::CachedFile>(fs_.proc(dir + "/stat"));
  }
  e.seen = true;
  e.info.alive = true;
  e.info.cpu_seconds = static_cast<double>(stat->utime_ticks + stat->stime_ticks) / 100.0;
  e.info.rss_bytes = static_cast<double>(status->rss_bytes);
  return e.info;
}

void ProcessResolver::end_cycle() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (!it->second.seen) {
      it = entries_.erase(it);
    } else {
      it->second.seen = false;
      ++it;
    }
  }
  passwd_checked_ = false;
  container_logs_listed_ = false;
  pod_dirs_listed_ = false;
}

std::string ProcessResolver::user_name(uint32_t uid) {
  if (!passwd_checked_) {
    passwd_checked_ = true;
    std::string path = fs_.rooted("/etc/passwd");
    FileStamp now;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
      now.exists = true;
      now.dev = st.st_dev;
      now.ino = st.st_ino;
      now.size = st.st_size;
      now.mtime = st.st_mtim;
    }
    if (!(now == passwd_stamp_)) {
      passwd_stamp_ = now;
      users_.clear();
      if (now.exists && base::read_file(path, buf_)) users_ = procfs::parse_passwd(buf_);
    }
  }
  auto it = users_.find(uid);
  return it != users_.end() ? it->second : std::to_string(uid);
}

void ProcessResolver::resolve_names(ProcessInfo& info) {
  if (!info.container_id.empty()) {
    if (const procfs::ContainerLogName* c = find_container_log(info.container_id)) {
      info.pod = c->pod;
      info.namespace_ = c->namespace_;
      info.container = c->container;
      return;
    }
  }
  if (!info.pod_uid.empty()) {
    if (const procfs::PodLogDir* p = find_pod_dir(info.pod_uid)) {
      info.pod = p->pod;
      info.namespace_ = p->namespace_;
    }
  } else if (info.runtime == "docker") {
    info.container = docker_name(info.container_id);
  }
  if (info.container.empty()) info.container = info.container_id.substr(0, 12);
}

const procfs::ContainerLogName* ProcessResolver::find_container_log(const std::string& id) {
  auto it = container_logs_.find(id);
  if (it != container_logs_.end()) return &it->second;
  if (container_logs_listed_) return nullptr;
  container_logs_listed_ = true;
  container_logs_.clear();
  std::vector<base::DirEntry> entries;
  if (!base::list_dir(fs_.rooted("/var/log/containers"), entries)) return nullptr;
  for (const base::DirEntry& d : entries) {
    auto c = procfs::parse_container_log_name(d.name);
    if (c) container_logs_.try_emplace(c->container_id, std::move(*c));
  }
  it = container_logs_.find(id);
  return it != container_logs_.end() ? &it->second : nullptr;
}

const procfs::PodLogDir* ProcessResolver::find_pod_dir(const std::string& pod_uid) {
  auto it = pod_dirs_.find(pod_uid);
  if (it != pod_dirs_.end()) return &it->second;
  if (pod_dirs_listed_) return nullptr;
  pod_dirs_listed_ = true;
  pod_dirs_.clear();
  std::vector<base::DirEntry> entries;
  if (!base::list_dir(fs_.rooted("/var/log/pods"), entries)) return nullptr;
  for (const base::DirEntry& d : entries) {
    auto p = procfs::parse_pod_log_dir(d.name);
    if (p) pod_dirs_.try_emplace(p->pod_uid, std::move(*p));
  }
  it = pod_dirs_.find(pod_uid);
  return it != pod_dirs_.end() ? &it->second : nullptr;
}

std::string ProcessResolver::docker_name(const std::string& id) {
  if (!base::read_file(fs_.rooted("/var/lib/docker/containers/" + id + "/config.v2.json"), buf_)) return "";
  nlohmann::json j = nlohmann::json::parse(buf_, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return "";
  auto name = j.find("Name");
  if (name == j.end() || !name->is_string()) return "";
  std::string out = name->get<std::string>();
  if (!out.empty() && out.front() == '/') out.erase(0, 1);
  return out;
}

}  // namespace llmon::gpu
