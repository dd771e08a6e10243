// ProcessResolver: who a GPU process is. Given a PID reported by NVML or by
// /proc/<pid>/fdinfo, it answers the command, the user, its host CPU time and
// RSS, and which container / Kubernetes pod / namespace it runs in, derived
// from /proc/<pid>/cgroup (cgroup v1 and v2; Docker, containerd, CRI-O and
// podman layouts, systemd and cgroupfs drivers; see procfs/cgroup.h).
//
// Sources, all re-rooted through procfs::Fs (so tests use fixture trees):
//   <proc>/<pid>/stat     command (the comm field, same text as <pid>/comm),
//                         utime+stime (USER_HZ = 100), starttime (cache key)
//   <proc>/<pid>/cmdline  argv[0]'s basename, only when comm is empty
//   <proc>/<pid>/status   Uid (real), VmRSS
//   <proc>/<pid>/cgroup   container runtime, container id, pod UID
//   <rootfs>/etc/passwd   uid -> user name (numeric uid when not found)
//   <rootfs>/var/log/containers/<pod>_<namespace>_<container>-<id>.log
//                         the kubelet's symlinks: container id -> pod, namespace, container name
//   <rootfs>/var/log/pods/<namespace>_<pod>_<pod-uid>/   pod UID -> namespace, pod
//                         (when the container's own symlink is missing; container = short id)
//   <rootfs>/var/lib/docker/containers/<id>/config.v2.json  "Name" of a plain Docker container
//
// What is static for a process (command, user, container identity) is
// cached per (pid, starttime), so a recycled PID is never confused with the
// old process; CPU and RSS are re-read on every lookup. An exited or
// unreadable process gives alive=false and empty fields (pid and pid_text
// still set), never an error and never a log line.
//
// Directory listings and passwd are cached too. /var/log/containers and
// /var/log/pods are listed again at most once per cycle (between two
// end_cycle() calls), and only when an id is not in the cached listing.
// /etc/passwd is stat()ed at most once per cycle, when a new process needs a
// user name, and re-read only when its mtime, size or inode changed. So a
// steady set of GPU processes costs two small reads per process per cycle
// (stat, status) and no directory scans. One thread at a time.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/file_reader.h"
#include "procfs/fs.h"
#include "procfs/kubelet_logs.h"
#include "procfs/passwd.h"

namespace llmon::gpu {

struct ProcessInfo {
  uint32_t pid = 0;
  std::string pid_text;      // pid in decimal, set by ProcessResolver (label storage)
  bool alive = false;        // /proc/<pid>/stat was readable this lookup
  std::string command;       // "python3"
  std::string user;          // "alice", or "1000" when not in passwd
  double cpu_seconds = 0;    // utime + stime, seconds
  double rss_bytes = 0;      // VmRSS
  std::string runtime;       // "docker", "containerd", "cri-o", "podman", "cri" (k8s, runtime unnamed), ""
  std::string container_id;  // full 64-hex id, "" outside a container
  std::string container;     // k8s container name, docker name, else the 12-char short id; "" outside
  std::string pod;           // Kubernetes pod name ("" when not in a pod or unknown)
  std::string pod_uid;       // from the cgroup path
  std::string namespace_;    // Kubernetes namespace
};

// Extra label names of per-process GPU series, after the device labels
// (LabelScheme::names(mig, ...)); values from process_label_values().
inline constexpr std::array<std::string_view, 6> kProcessLabelNames = {"pid",       "command", "user",
                                                                       "container", "pod",     "namespace"};

// The values for kProcessLabelNames, in that order: pid (p.pid_text), command,
// user, container, pod, namespace. `out` is cleared first; the views point into
// `p` and live as long as it is unchanged.
void process_label_values(const ProcessInfo& p, std::vector<std::string_view>& out);

class ProcessResolver {
 public:
  explicit ProcessResolver(procfs::Fs fs);

  // Information about `pid` now. For a live process (alive == true) the
  // reference stays valid until the same pid is looked up again or an
  // end_cycle() that does not follow a lookup of it; for an exited one, only
  // until the next call.
  const ProcessInfo& lookup(uint32_t pid);
  // Forgets cached processes not looked up since the previous end_cycle(), and
  // allows the cached listings to be refreshed once more on a miss.
  void end_cycle();

 private:
  struct Entry {
    uint64_t starttime_ticks = 0;
    bool seen = false;  // looked up since the previous end_cycle()
    ProcessInfo info;
    // /proc/<pid>/stat kept open: a known process costs one pread per cycle
    // (CPU and RSS both come from it); reading it fails once the process exits.
    std::unique_ptr<base::CachedFile> stat;
  };
  struct FileStamp {
    bool exists = false;
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = 0;
    timespec mtime{};
    bool operator==(const FileStamp& o) const;
  };

  std::string user_name(uint32_t uid);
  void resolve_names(ProcessInfo& info);
  const procfs::ContainerLogName* find_container_log(const std::string& id);
  const procfs::PodLogDir* find_pod_dir(const std::string& pod_uid);
  std::string docker_name(const std::string& id);

  procfs::Fs fs_;
  std::unordered_map<uint32_t, Entry> entries_;
  ProcessInfo gone_;  // returned for exited processes
  double page_size_ = 4096;
  std::string buf_;  // file read buffer, reused

  procfs::UserNames users_;
  FileStamp passwd_stamp_;
  bool passwd_checked_ = false;  // this cycle

  std::unordered_map<std::string, procfs::ContainerLogName> container_logs_;  // by container id
  bool container_logs_listed_ = false;                                        // this cycle
  std::unordered_map<std::string, procfs::PodLogDir> pod_dirs_;               // by pod uid
  bool pod_dirs_listed_ = false;                                              // this cycle
};

}  // namespace llmon::gpu
