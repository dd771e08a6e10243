// --scrape.discover=gpu-processes: scrape targets found from the processes
// that use a GPU, with no configuration (docs/scrape.md "Discovery").
//
// Every refresh (at most every `rescan_ms`), for each GPU process the agent
// sees (llmon_gpu_process_* rows, handed in by `processes`) and for its
// parent (the API server or launcher of a worker that holds the GPU):
//   * its listening TCP sockets: the socket inodes of /proc/<pid>/fd matched
//     against /proc/<pid>/net/tcp and tcp6 in state LISTEN;
//   * each (pid, port) is probed once: GET http://127.0.0.1:PORT/metrics
//     (or [::1] for an IPv6-only loopback listener) with a short timeout;
//     it becomes a target when it answers 200 with a page that parses as
//     Prometheus text or OpenMetrics and has at least one sample.
// Never probed, with the reason kept for /api/v1/targets:
//   * a listener on an address other than loopback or the wildcard (the
//     agent never connects off the host);
//   * a process in another network namespace (its loopback is not ours);
//   * ports in the kernel's ephemeral range (ip_local_port_range): what
//     bind(0) hands out, i.e. NCCL and Gloo bootstrap sockets and
//     torch.distributed stores, which must not see an HTTP request;
//   * the deny list: 22 (ssh), 111 (rpcbind), 2049 (nfs), 6379 (redis, Ray's
//     GCS), 29400 (torchelastic rendezvous), 29500 (torch.distributed's
//     default MASTER_PORT), the process's own MASTER_PORT, and the agent's
//     own port.
// Targets carry the process's labels (pid, command, user, container, pod,
// namespace), the same as llmon_gpu_process_* so PromQL joins them; a
// parent gets its own pid and command and its child's container and pod.
// Probes run on the discovery thread (one at a time, bounded by the
// timeout); results are kept until the process exits.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "model/labels.h"
#include "scrape/manager.h"

namespace llmon::scrape {

struct GpuProcess {
  uint32_t pid = 0;
  std::vector<model::Label> labels;  // pid, command, user, container, pod, namespace (empty values absent)
};

// The result of probing one port: true when it serves a metrics page.
using Prober = std::function<bool(const std::string& host_port, std::string& why_not)>;

struct GpuProcessDiscoveryOptions {
  std::string proc_root = "/proc";
  std::function<std::vector<GpuProcess>()> processes;
  Prober probe;  // empty: HTTP GET /metrics with probe_timeout_ms
  int64_t probe_timeout_ms = 1000;
  int64_t rescan_ms = 10'000;
  std::set<uint16_t> deny_ports = {22, 111, 2049, 6379, 29400, 29500};
  uint16_t own_port = 0;  // the agent's, never probed
};

class GpuProcessDiscovery final : public Discoverer {
 public:
  explicit GpuProcessDiscovery(GpuProcessDiscoveryOptions opts);

  bool refresh(int64_t now_ms) override;
  std::vector<TargetGroup> groups() const override;
  // One line per candidate socket that is not a target, with the reason.
  std::vector<std::string> notes() const override;

  // The default prober: GET http://HOST_PORT/metrics, 200, parses, >= 1 sample.
  static bool probe_http(const std::string& host_port, int64_t timeout_ms, std::string& why_not);

 private:
  struct Candidate {
    std::vector<model::Label> labels;
    std::string host_port;  // to scrape; empty when not probed
    bool is_target = false;
    std::string why_not;
  };
  void scan_process(uint32_t pid, const std::vector<model::Label>& labels, const std::string& self_netns,
                    std::map<std::pair<uint32_t, uint16_t>, Candidate>& next);

  GpuProcessDiscoveryOptions opts_;
  uint16_t eph_lo_ = 32768, eph_hi_ = 60999;
  int64_t last_scan_ms_ = INT64_MIN;
  mutable std::mutex mu_;
  std::map<std::pair<uint32_t, uint16_t>, Candidate> candidates_;  // (pid, port)
};

}  // namespace llmon::scrape
