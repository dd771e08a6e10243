// Pushes in the agent (--web.enable-push, docs/scrape.md "Pushes"): the
// scrape::PushIngest over the store, stored at --collect.interval, its groups
// kept across restarts in <--storage.path>/push-groups.json, and its metrics
// as a collector:
//   llmon_push_groups                     groups held
//   llmon_push_requests_total{code}       push-API requests by HTTP status
//   llmon_push_samples                    samples stored from the last page
//   llmon_push_rejected_samples_total     samples the store refused
//   llmon_push_persist_errors_total       failed saves of the groups file
#pragma once

#include <memory>

#include "base/clock.h"
#include "base/log.h"
#include "collector/collector.h"
#include "config/settings.h"
#include "scrape/push_ingest.h"
#include "storage/storage.h"

namespace llmon::app {

// Null when --web.enable-push is off. Not started.
std::unique_ptr<scrape::PushIngest> make_push_ingest(const config::Settings& s, storage::Storage& storage,
                                                     const base::Clock& clock, base::Logger& log);

// `push` must outlive the collector.
std::unique_ptr<collector::Collector> make_push_collector(const scrape::PushIngest& push);

}  // namespace llmon::app
