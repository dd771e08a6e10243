// The scrape targets and their metadata, in Prometheus 2.42's JSON:
//   GET /api/v1/targets?state=active|dropped|any&scrapePool=JOB
//       {"activeTargets":[{discoveredLabels, labels, scrapePool, scrapeUrl,
//        globalUrl, lastError, lastScrape, lastScrapeDuration, health,
//        scrapeInterval, scrapeTimeout}], "droppedTargets":[{discoveredLabels}],
//        "discoveryNotes":[...], "discoveryErrors":[...]}   (the last two are
//        llmon's: what discovery found and did not scrape, and why)
//   GET /api/v1/targets/metadata?match_target={job="x"}&metric=NAME&limit=N
//       [{"target":{labels},"metric":..., "type":..., "help":..., "unit":...}]
// and, for /api/v1/metadata (query_api.h), the targets' metadata.
// Without a scrape manager (no --scrape.config / --scrape.discover) the
// answers are empty, as Prometheus's are with no scrape configs.
// globalUrl is the scrape URL (the host's own name would need a lookup
// Prometheus does and llmon skips: targets are local).
#pragma once

#include "api/query_api.h"
#include "base/status.h"
#include "http/server.h"
#include "scrape/manager.h"

namespace llmon::api {

// `manager` may be null; it must outlive the server's routes.
Status register_targets_routes(http::Server& server, const scrape::Manager* manager);

// Every active target's metadata, for QueryApiOptions::extra_metadata.
std::vector<QueryApiOptions::MetadataEntry> scraped_metadata(const scrape::Manager& manager);

}  // namespace llmon::api
