// The agent's notification wiring: notify::Pipeline's options from the
// flags (--storage.path, --alertmanager.url, --notify.config,
// --notify.exec.allow) and the collector of its llmon_notifications_* and
// llmon_alert* self-metrics. The pipeline is notify/pipeline.h, its HTTP
// routes api/notify_routes.h.
#pragma once

#include <memory>
#include <string>

#include "collector/collector.h"
#include "config/settings.h"
#include "notify/alert.h"
#include "notify/pipeline.h"

namespace llmon::app {

notify::PipelineOptions notify_setup_options(const config::Settings& s, std::string external_url,
                                             notify::LabelPairs external_labels);

// Reads `pipeline`'s counters at each collection; `pipeline` must outlive it.
std::unique_ptr<collector::Collector> make_notify_collector(const notify::Pipeline& pipeline);

}  // namespace llmon::app
