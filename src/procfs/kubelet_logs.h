// Parsers for the names of the kubelet's log files, the one place on a node's
// filesystem that ties a container id to its Kubernetes pod, namespace and
// container name without asking the API server. Pure; names only, no I/O.
//
// The kubelet (pkg/kubelet/kuberuntime: logSymlink, BuildPodLogsDirectory) makes
//   /var/log/containers/<pod>_<namespace>_<container>-<container-id>.log   (symlinks)
//   /var/log/pods/<namespace>_<pod>_<pod-uid>/                           (directories)
// Pod, namespace and container names are DNS names: never an '_'. The kubelet
// cuts a container log name longer than 255 bytes, losing the id; such names
// do not parse.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct ContainerLogName {
  std::string pod;
  std::string namespace_;
  std::string container;
  std::string container_id;  // 64 lowercase hex digits
};

// A file name (not a path) in /var/log/containers.
Expected<ContainerLogName> parse_container_log_name(std::string_view file_name);

struct PodLogDir {
  std::string namespace_;
  std::string pod;
  std::string pod_uid;  // as in the name: "7f3c2a91-4b6e-…", or a 32-digit hash (static pods)
};

// A directory name (not a path) in /var/log/pods.
Expected<PodLogDir> parse_pod_log_dir(std::string_view dir_name);

}  // namespace llmon::procfs
