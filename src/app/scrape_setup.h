// Application scraping in the agent (--scrape.config, --scrape.discover):
// the scrape::Manager over the store, the configuration file read at start
// and on SIGHUP, and its metrics as a collector:
//   llmon_scrape_targets{job,health}            targets by health (up, down, unknown)
//   llmon_scrape_config_last_reload_successful  1 when the last read of the file worked
//   llmon_scrape_config_last_reload_success_timestamp_seconds
//   llmon_scrape_discovery_errors               files or discoverers that currently fail
// --scrape.discover=gpu-processes adds the job "gpu-processes"
// (scrape/gpu_process_discovery.h): every 10 s, 5 s timeout, honor_labels
// false, the processes taken from the latest cycle's llmon_gpu_process_memory_bytes;
// --scrape.discover=kubelet-pods the job "kubelet-pods" (scrape/kubelet_pods.h).
// A file that fails to parse keeps the previous configuration running (as
// Prometheus keeps its last good one) and is logged with FILE:LINE.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "base/clock.h"
#include "base/log.h"
#include "collector/collector.h"
#include "config/settings.h"
#include "model/metric.h"
#include "scrape/gpu_process_discovery.h"
#include "scrape/manager.h"
#include "storage/storage.h"

namespace llmon::app {

class ScrapeService {
 public:
  // Null when neither --scrape.config nor --scrape.discover is set.
  // `snapshots` gives the latest collection cycle (GPU processes for
  // --scrape.discover=gpu-processes); `own_port` is never probed.
  static Expected<std::unique_ptr<ScrapeService>> create(const config::Settings& s, storage::Storage& storage,
                                                         const base::Clock& clock, base::Logger& log,
                                                         std::function<model::SnapshotPtr()> snapshots,
                                                         uint16_t own_port);
  ~ScrapeService();

  // Rereads --scrape.config; the error (also logged) names FILE:LINE.
  Status reload();
  scrape::Manager& manager() { return *manager_; }
  // The manager must outlive the collector (the service owns it).
  std::unique_ptr<collector::Collector> make_collector();
  void stop();

 private:
  ScrapeService(std::string path, storage::Storage& storage, const base::Clock& clock, base::Logger& log);

  std::string path_;
  const base::Clock& clock_;
  base::Logger& log_;
  std::unique_ptr<scrape::Manager> manager_;
  std::atomic<bool> last_ok_{true};
  std::atomic<int64_t> last_ok_ms_{0};
};

// The discoverers --scrape.discover names, each with its job's settings
// (10 s interval, 5 s timeout); the error names an unknown one.
struct DiscoveryJob {
  scrape::ScrapeConfig config;
  std::shared_ptr<scrape::Discoverer> discoverer;
};
Expected<std::vector<DiscoveryJob>> make_discoverers(const config::Settings& s,
                                                     std::function<model::SnapshotPtr()> snapshots, uint16_t own_port);

// The GPU processes of a cycle (llmon_gpu_process_memory_bytes rows, NVIDIA
// or AMD), with their process labels; one entry per row (a process on two
// GPUs appears twice; discovery takes each pid once).
std::vector<scrape::GpuProcess> gpu_processes(const model::SnapshotPtr& snap);

}  // namespace llmon::app
