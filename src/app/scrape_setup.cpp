#include "app/scrape_setup.h"

#include <unistd.h>

#include <algorithm>
#include <map>

#include "app/commands.h"
#include "base/file_reader.h"
#include "base/hash.h"
#include "base/strings.h"
#include "config/flag_names.h"
#include "model/snapshot_builder.h"
#include "scrape/gpu_process_discovery.h"
#include "scrape/kubelet_pods.h"
#include "scrape/scrape_config.h"

namespace llmon::app {
namespace {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

class ScrapeCollector final : public collector::Collector {
 public:
  ScrapeCollector(const scrape::Manager& m, const std::atomic<bool>& ok, const std::atomic<int64_t>& ok_ms)
      : m_(m), ok_(ok), ok_ms_(ok_ms) {}

  Status collect(model::SnapshotBuilder& out) override {
    const scrape::ManagerStatus st = m_.status(false);
    std::map<std::pair<std::string, std::string>, double> counts;
    for (const auto& t : st.active) counts[{t.job, t.health}] += 1;
    auto targets = out.family("llmon_scrape_targets", "Scrape targets of each job by health (up, down, unknown).",
                              model::MetricType::kGauge, {"job", "health"});
    for (const auto& [key, n] : counts) targets.add({key.first, key.second}, n);
    out.family("llmon_scrape_config_last_reload_successful", "Whether the last read of --scrape.config succeeded.",
               model::MetricType::kGauge, {})
        .add({}, ok_.load() ? 1 : 0);
    out.family("llmon_scrape_config_last_reload_success_timestamp_seconds",
               "When --scrape.config was last read successfully.", model::MetricType::kGauge, {})
        .add({}, static_cast<double>(ok_ms_.load()) / 1000.0);
    out.family("llmon_scrape_discovery_errors", "Discovery files or sources that currently fail.",
               model::MetricType::kGauge, {})
        .add({}, static_cast<double>(st.discovery_errors.size()));
    return Status::ok();
  }

 private:
  const scrape::Manager& m_;
  const std::atomic<bool>& ok_;
  const std::atomic<int64_t>& ok_ms_;
};

}  // namespace

ScrapeService::ScrapeService(std::string path, storage::Storage& storage, const base::Clock& clock, base::Logger& log)
    : path_(std::move(path)), clock_(clock), log_(log) {
  scrape::ManagerOptions o;
  o.user_agent = std::string("llmon/") + kVersion;
  o.seed = base::fnv1a(base::kFnv1aOffset, host_name());
  manager_ = std::make_unique<scrape::Manager>(storage, clock, std::move(o));
}

ScrapeService::~ScrapeService() {
  stop();
}

Expected<std::vector<DiscoveryJob>> make_discoverers(const config::Settings& s,
                                                     std::function<model::SnapshotPtr()> snapshots, uint16_t own_port) {
  std::vector<DiscoveryJob> out;
  for (std::string_view item : base::split(s.get(config::flag::kScrapeDiscover), ',')) {
    item = base::trim(item);
    if (item.empty()) continue;
    DiscoveryJob j;
    j.config.scrape_interval_ms = 10'000;
    j.config.scrape_timeout_ms = 5'000;
    if (item == "kubelet-pods") {
      scrape::KubeletDiscoveryOptions k;
      k.url = s.get(config::flag::kScrapeKubeletUrl);
      k.token_file = s.get(config::flag::kScrapeKubeletTokenFile);
      k.ca_file = s.get(config::flag::kScrapeKubeletCaFile);
      j.config.job_name = "kubelet-pods";
      j.discoverer = std::make_shared<scrape::KubeletDiscovery>(std::move(k));
    } else if (item == "gpu-processes") {
      scrape::GpuProcessDiscoveryOptions o;
      o.processes = [snapshots] { return gpu_processes(snapshots ? snapshots() : nullptr); };
      o.own_port = own_port;
      o.proc_root = s.get(config::flag::kPathProcfs);
      j.config.job_name = "gpu-processes";
      j.discoverer = std::make_shared<scrape::GpuProcessDiscovery>(std::move(o));
    } else {
      return Status::error("--scrape.discover: unknown discovery \"" + std::string(item) +
                           "\" (gpu-processes, kubelet-pods)");
    }
    out.push_back(std::move(j));
  }
  return out;
}

Expected<std::unique_ptr<ScrapeService>> ScrapeService::create(const config::Settings& s, storage::Storage& storage,
                                                               const base::Clock& clock, base::Logger& log,
                                                               std::function<model::SnapshotPtr()> snapshots,
                                                               uint16_t own_port) {
  const std::string path = s.get(config::flag::kScrapeConfig);
  if (path.empty() && s.get(config::flag::kScrapeDiscover).empty()) return std::unique_ptr<ScrapeService>();
  auto jobs = make_discoverers(s, std::move(snapshots), own_port);
  if (!jobs) return jobs.status();
  auto svc = std::unique_ptr<ScrapeService>(new ScrapeService(path, storage, clock, log));
  for (DiscoveryJob& j : *jobs) svc->manager_->add_discoverer(j.config, std::move(j.discoverer));
  return svc;
}

std::vector<scrape::GpuProcess> gpu_processes(const model::SnapshotPtr& snap) {
  std::vector<scrape::GpuProcess> out;
  if (!snap) return out;
  static constexpr std::string_view kKeep[] = {"pid", "command", "user", "container", "pod", "namespace"};
  for (const model::Family& f : snap->families) {
    if (f.name != "llmon_gpu_process_memory_bytes") continue;
    for (const model::Series& row : f.series) {
      scrape::GpuProcess p;
      for (size_t i = 0; i < f.label_names.size() && i < row.label_values.size(); ++i) {
        const std::string& name = f.label_names[i];
        if (std::find(std::begin(kKeep), std::end(kKeep), name) == std::end(kKeep)) continue;
        if (!row.label_values[i].empty()) p.labels.push_back({name, row.label_values[i]});
        if (name == "pid") p.pid = static_cast<uint32_t>(base::parse_i64(row.label_values[i]).value_or(0));
      }
      if (p.pid != 0) out.push_back(std::move(p));
    }
  }
  return out;
}

Status ScrapeService::reload() {
  if (path_.empty()) return Status::ok();
  auto fail = [&](const std::string& msg) {
    last_ok_.store(false);
    log_.error("scrape config not loaded; the previous one stays", {{"err", msg}});
    return Status::error(msg);
  };
  auto text = base::read_file(path_);
  if (!text) return fail(path_ + ": " + text.error());
  auto parsed = scrape::parse_scrape_config(*text, path_);
  if (!parsed) return fail(parsed.error());
  if (Status st = manager_->apply(*parsed); !st) return fail(st.message());
  last_ok_.store(true);
  last_ok_ms_.store(clock_.now_ms());
  log_.info("scrape config loaded", {{"file", path_}, {"jobs", std::to_string(parsed->scrape_configs.size())}});
  return Status::ok();
}

std::unique_ptr<collector::Collector> ScrapeService::make_collector() {
  return std::make_unique<ScrapeCollector>(*manager_, last_ok_, last_ok_ms_);
}

void ScrapeService::stop() {
  if (manager_) manager_->stop();
}

}  // namespace llmon::app
