// One-shot scraping for commands that run once (`llmon snapshot`): the
// active targets of a scrape configuration and of discoverers, built as the
// scrape manager builds them (static_configs, file_sd files read now,
// relabel_configs), and their pages fetched in parallel, each with its job's
// settings (auth, TLS, timeout). Nothing is stored. Errors (a file_sd file
// that fails, a target that cannot be built) are returned as lines.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scrape/fetcher.h"
#include "scrape/manager.h"
#include "scrape/scrape_config.h"
#include "scrape/target.h"

namespace llmon::scrape {

struct OneShotTarget {
  Target target;
  std::shared_ptr<const ScrapeConfig> job;
};

struct OneShotJob {
  ScrapeConfig config;
  std::vector<TargetGroup> extra_groups;  // a discoverer's groups()
};

// Jobs of `file` (may be null) and `extra`, their targets in job order.
std::vector<OneShotTarget> oneshot_targets(const ScrapeFile* file, const std::vector<OneShotJob>& extra, int64_t now_ms,
                                           std::vector<std::string>& errors);

// Fetches every target's page at once (a thread each, at most `parallel`
// at a time), each bounded by its job's scrape timeout (capped at
// `max_timeout_ms`).
std::vector<Expected<Page>> fetch_pages(const std::vector<OneShotTarget>& targets, const std::string& user_agent,
                                        int64_t max_timeout_ms, size_t parallel = 16);

}  // namespace llmon::scrape
