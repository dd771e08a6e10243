// The applications of `llmon snapshot` (docs/scrape.md "In llmon
// snapshot"): with --scrape.config and/or --scrape.discover, the targets are
// built once after the first cycle (file_sd files read then; discoverers
// refreshed once, so GPU processes' ports are probed), each page is fetched
// after each of the two cycles, and the two pages give the headline numbers
// (scrape/app_headline.h). Without either flag nothing is done. Problems
// (a config that does not parse, a discoverer that fails) are returned as
// lines for stderr; the snapshot goes on without them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/settings.h"
#include "model/metric.h"
#include "scrape/oneshot.h"
#include "summary/app_summary.h"

namespace llmon::app {

class SnapshotApps {
 public:
  // Null when neither flag is set. `first` is the first cycle (its GPU processes).
  static std::unique_ptr<SnapshotApps> create(const config::Settings& s, const model::Snapshot& first, int64_t now_ms,
                                              std::vector<std::string>& problems);

  // Fetches every target's page: call after each cycle.
  void fetch_first();
  void fetch_second();
  // Rows for the summary (attach_gpus not yet applied); `seconds_apart`
  // between the two fetches.
  std::vector<summary::AppRow> rows(double seconds_apart) const;

 private:
  std::vector<scrape::OneShotTarget> targets_;
  std::vector<Expected<scrape::Page>> first_, second_;
  int64_t timeout_ms_ = 2000;
};

}  // namespace llmon::app
