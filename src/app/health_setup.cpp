#include "app/health_setup.h"

#include <filesystem>
#include <system_error>

#include "app/logwatch_setup.h"
#include "logwatch/kmsg_reader.h"

namespace llmon::app {

std::string health_state_dir(const config::Settings& s) {
  const std::string& dir = s.get(config::flag::kHealthStateDir);
  if (!dir.empty()) return dir;
  const std::string& storage = s.get(config::flag::kStoragePath);
  return storage.empty() ? std::string() : storage + "/health";
}

std::string boot_id(const config::Settings& s) {
  auto boot = logwatch::read_boot_id(boot_id_path(s));  // the file the log watcher reads
  return boot ? *boot : std::string();
}

std::shared_ptr<health::HealthTracker> make_health_tracker(const config::Settings& s, const base::Clock& clock,
                                                           base::Logger& log) {
  health::HealthOptions o;
  o.state_dir = health_state_dir(s);
  o.merge_window_ms = s.get(config::flag::kHealthMergeWindow);
  if (!o.state_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.state_dir, ec);
    if (ec) log.error("cannot create the GPU health state directory", {{"dir", o.state_dir}, {"err", ec.message()}});
  }
  o.boot_id = boot_id(s);
  auto t = std::make_shared<health::HealthTracker>(std::move(o), clock);
  if (Status st = t->load(); !st) log.error("GPU health state not loaded; starting empty", {{"err", st.message()}});
  return t;
}

void add_gpu_labels(const health::HealthTracker& t, logwatch::Event& e) {
  auto pci = e.labels.find("pci");
  if (pci == e.labels.end()) return;
  auto g = t.gpu_by_pci(pci->second);
  if (!g) return;
  e.labels.emplace("gpu", g->gpu);
  e.labels.emplace("UUID", g->uuid);
}

}  // namespace llmon::app
