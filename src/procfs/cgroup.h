// Parser for /proc/<pid>/cgroup: which container (and Kubernetes pod) a
// process runs in, read from the cgroup path names that container runtimes and
// the kubelet create. Pure; no I/O. It does not know container or pod names
// (see procfs/kubelet_logs.h and gpu/process_info.h for those).
//
// File format (man 7 cgroups): one line per hierarchy, "hierarchy-id:controllers:path";
// cgroup v2 has the single line "0::/path". A removed cgroup shows " (deleted)"
// after the path. Inside a cgroup namespace the path is relative to the reader's
// root and may start with "/../..".
//
// Path components recognised (searched from the deepest one up, so a process in
// a sub-cgroup of a container, like podman's ".../libpod-<id>.scope/container",
// still counts):
//   cri-containerd-<id>.scope   containerd (Kubernetes, systemd driver)
//   crio-<id>.scope, crio-<id>  CRI-O ("crio-conmon-<id>" is its monitor: no container)
//   docker-<id>.scope           Docker, systemd driver (also under kubepods: cri-dockerd)
//   libpod-<id>.scope, libpod-<id>  podman ("libpod-conmon-<id>" is its monitor)
//   nerdctl-<id>.scope          containerd via nerdctl
//   /docker/<id>                Docker, cgroupfs driver
//   /kubepods/.../<id>          Kubernetes, cgroupfs driver: runtime not named ("cri")
// where <id> is 64 hex digits. Pods:
//   kubepods[-<qos>]-pod<uid_with_underscores>.slice   systemd driver (also "kubelet-kubepods-…")
//   /kubepods[/<qos>]/pod<uid>                          cgroupfs driver
// A pod directly under kubepods (no burstable/besteffort level) is "guaranteed".
#pragma once

#include <string>
#include <string_view>

namespace llmon::procfs {

struct CgroupInfo {
  // "containerd", "cri-o", "docker", "podman"; "cri" for a Kubernetes container
  // whose runtime the path does not name (cgroupfs driver); "" outside a container.
  std::string runtime;
  std::string container_id;  // 64 lowercase hex digits; "" outside a container
  std::string pod_uid;       // "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901" (dashes); "" outside a pod
  std::string qos_class;     // "guaranteed", "burstable", "besteffort"; "" outside a pod

  bool in_container() const { return !container_id.empty(); }
};

// One cgroup path ("/kubepods.slice/…/cri-containerd-<id>.scope").
CgroupInfo parse_cgroup_path(std::string_view path);

// The whole file. Of several lines (cgroup v1), the first one that names a
// container wins; failing that, the first one that names a pod. Lines that are
// not "id:controllers:path" are skipped: any input, binary included, gives a
// (possibly empty) result, never an error, since "no container" is a normal answer.
CgroupInfo parse_cgroup(std::string_view text);

}  // namespace llmon::procfs
