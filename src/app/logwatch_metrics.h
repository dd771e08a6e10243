// The log watcher's metrics (llmon_log_*, llmon_kmsg_*), as a collector the
// agent adds when --logwatch.enabled: rule matches by rule, source and
// severity (plus the rule's counter_labels), lines and bytes read, cut
// lines, rotations, read errors, events and the journal, and the kernel-log
// reader's records, drops and liveness; and the rules' own metrics
// (log_rule_metrics.h). Reads logwatch::Watcher::stats()
// only (thread-safe).
#pragma once

#include <memory>

#include "collector/collector.h"
#include "logwatch/forwarder.h"
#include "logwatch/watcher.h"

namespace llmon::app {

// The watcher must outlive the collector.
std::unique_ptr<collector::Collector> make_logwatch_collector(const logwatch::Watcher& watcher);
// llmon_log_forward_{sent,dropped,errors}_total{forwarder} and
// llmon_log_forward_queue_length{forwarder}; the forwarders must outlive it.
std::unique_ptr<collector::Collector> make_forward_collector(std::vector<const logwatch::Forwarder*> forwarders);

}  // namespace llmon::app
