#include "scrape/oneshot.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "scrape/file_sd.h"
#include "scrape/relabel.h"

namespace llmon::scrape {
namespace {

void add_job(const ScrapeConfig& cfg, std::vector<TargetGroup> groups, std::vector<OneShotTarget>& out,
             std::vector<std::string>& errors) {
  auto relabel = Relabeler::compile(cfg.relabel_configs);
  if (!relabel) {
    errors.push_back(cfg.job_name + ": " + relabel.error());
    return;
  }
  auto job = std::make_shared<const ScrapeConfig>(cfg);
  for (const TargetGroup& g : groups)
    for (const std::string& addr : g.targets) {
      TargetOutcome o = build_target(cfg, *relabel, g, addr);
      if (o.kind == TargetOutcome::Kind::kError) errors.push_back(cfg.job_name + ": " + addr + ": " + o.error);
      if (o.kind == TargetOutcome::Kind::kActive) out.push_back({std::move(o.target), job});
    }
}

}  // namespace

std::vector<OneShotTarget> oneshot_targets(const ScrapeFile* file, const std::vector<OneShotJob>& extra, int64_t now_ms,
                                           std::vector<std::string>& errors) {
  std::vector<OneShotTarget> out;
  if (file) {
    for (const ScrapeConfig& cfg : file->scrape_configs) {
      std::vector<TargetGroup> groups = cfg.static_configs;
      if (!cfg.file_sd_configs.empty()) {
        FileSd sd(cfg.file_sd_configs);
        (void)sd.refresh(now_ms);
        for (auto& g : sd.groups()) groups.push_back(std::move(g));
        for (auto& e : sd.errors()) errors.push_back(cfg.job_name + ": " + e);
      }
      add_job(cfg, std::move(groups), out, errors);
    }
  }
  for (const OneShotJob& j : extra) add_job(j.config, j.extra_groups, out, errors);
  return out;
}

std::vector<Expected<Page>> fetch_pages(const std::vector<OneShotTarget>& targets, const std::string& user_agent,
                                        int64_t max_timeout_ms, size_t parallel) {
  std::vector<Expected<Page>> out(targets.size(), Expected<Page>(Status::error("not fetched")));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < targets.size();) {
      const OneShotTarget& t = targets[i];
      Fetcher f(*t.job, user_agent);
      int64_t timeout = t.target.timeout_ms > 0 ? std::min(t.target.timeout_ms, max_timeout_ms) : max_timeout_ms;
      out[i] = f.fetch(t.target.scrape_url, timeout);
    }
  };
  std::vector<std::thread> threads;
  const size_t n = std::min(parallel == 0 ? size_t{1} : parallel, targets.size());
  for (size_t i = 0; i < n; ++i) threads.emplace_back(work);
  for (auto& th : threads) th.join();
  return out;
}

}  // namespace llmon::scrape
