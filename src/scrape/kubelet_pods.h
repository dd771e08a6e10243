// --scrape.discover=kubelet-pods: the pods of this node that ask to be
// scraped, read from the kubelet's pod list (GET /pods, a v1 PodList), with
// the annotations the Prometheus community charts use:
//   prometheus.io/scrape: "true"   required
//   prometheus.io/port:   "8000"   the port (else every declared TCP
//                                  containerPort named "metrics", else the
//                                  pod's first declared TCP port)
//   prometheus.io/path:   "/metrics" (default)
//   prometheus.io/scheme: "http" (default) or "https"
// Only Running pods with an IP count. Targets carry namespace, pod,
// container (of the port) and node, the names llmon_gpu_process_* uses, so
// a pod's application series join its GPU processes on (namespace, pod).
// The address is the pod's IP (hostNetwork pods: the node's), which the
// kubelet lists only for pods on this node.
//
// How to reach the kubelet (docs/scrape.md "Kubernetes pods"): the default
// is https://127.0.0.1:10250/pods with the pod's service-account token
// (/var/run/secrets/kubernetes.io/serviceaccount/token, reread each time)
// and its CA; the service account needs get on nodes/proxy (the read-only
// port 10255, where still enabled, needs neither: --scrape.kubelet-url=
// http://127.0.0.1:10255/pods).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "scrape/manager.h"

namespace llmon::scrape {

// Pure: the PodList JSON to target groups (one per pod and port).
// `source` names the list in errors.
Expected<std::vector<TargetGroup>> parse_kubelet_pods(std::string_view json, std::string_view source);

struct KubeletDiscoveryOptions {
  std::string url = "https://127.0.0.1:10250/pods";
  std::string token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  bool insecure_skip_verify = false;
  int64_t refresh_ms = 30'000;
  int64_t timeout_ms = 5'000;
};

class KubeletDiscovery final : public Discoverer {
 public:
  explicit KubeletDiscovery(KubeletDiscoveryOptions opts) : opts_(std::move(opts)) {}
  bool refresh(int64_t now_ms) override;
  std::vector<TargetGroup> groups() const override;
  std::vector<std::string> errors() const override;

 private:
  KubeletDiscoveryOptions opts_;
  int64_t last_ms_ = INT64_MIN;
  mutable std::mutex mu_;
  std::vector<TargetGroup> groups_;
  std::string error_;
};

}  // namespace llmon::scrape
