// The kubelet's pod-resources API (k8s.io/kubelet/pkg/apis/podresources/v1,
// api.proto; docs/kubernetes.md "GPU to pod mapping"): which pod and
// container each device was allocated to. parse_list_pod_resources decodes
// ListPodResourcesResponse by hand (field numbers below; unknown fields such
// as cpu_ids, memory, topology and dynamic_resources are skipped), and
// gpu_holders keeps the NVIDIA devices of it, by device ID. Pure.
// PodResourcesSource adds the I/O: one List call over the kubelet's socket
// per refresh, a missing socket quiet, a broken one logged once per
// breakage with its path. It is used from the collection thread only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "base/status.h"

namespace llmon::kube {

inline constexpr std::string_view kPodResourcesListPath = "/v1.PodResourcesLister/List";
inline constexpr std::string_view kDefaultPodResourcesSocket = "/var/lib/kubelet/pod-resources/kubelet.sock";

// ListPodResourcesResponse { repeated PodResources pod_resources = 1; }
// PodResources       { string name = 1; string namespace = 2; repeated ContainerResources containers = 3; }
// ContainerResources { string name = 1; repeated ContainerDevices devices = 2; }
// ContainerDevices   { string resource_name = 1; repeated string device_ids = 2; }
struct ContainerDevices {
  std::string resource_name;
  std::vector<std::string> device_ids;
};
struct ContainerResources {
  std::string name;
  std::vector<ContainerDevices> devices;
};
struct PodResources {
  std::string name, namespace_;
  std::vector<ContainerResources> containers;
};

// Errors name the byte offset in the message.
Expected<std::vector<PodResources>> parse_list_pod_resources(std::string_view message);

// Who holds a device.
struct PodRef {
  std::string pod, namespace_, container;
  bool operator==(const PodRef&) const = default;
  auto operator<=>(const PodRef&) const = default;
};

// The NVIDIA devices of a pod list, by device ID as the device plugin names
// them (a GPU UUID "GPU-…" or a MIG UUID "MIG-…"). Resources kept:
// "nvidia.com/gpu", "nvidia.com/mig-*" and the names in `extra_resources`.
// A time-sliced GPU ("GPU-…::2", one ID per replica) is listed under its
// UUID; when several containers share a device the smallest
// (pod, namespace, container) is kept, so the answer does not depend on the
// kubelet's order.
std::map<std::string, PodRef, std::less<>> gpu_holders(const std::vector<PodResources>& pods,
                                                       const std::vector<std::string>& extra_resources = {});

class PodResourcesSource {
 public:
  enum class State { kMissing, kOk, kBroken };

  // An empty path turns the source off (always kMissing, no I/O).
  PodResourcesSource(std::string socket_path, base::Logger* log, int64_t timeout_ms = 1000)
      : path_(std::move(socket_path)), log_(log), timeout_ms_(timeout_ms) {}

  // Asks the kubelet once. kMissing (no socket) and kBroken (logged once
  // until it answers again) leave holders() empty.
  State refresh();
  State state() const { return state_; }
  const std::map<std::string, PodRef, std::less<>>& holders() const { return holders_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  base::Logger* log_;
  int64_t timeout_ms_;
  State state_ = State::kMissing;
  bool reported_ = false;
  std::map<std::string, PodRef, std::less<>> holders_;
};

}  // namespace llmon::kube
