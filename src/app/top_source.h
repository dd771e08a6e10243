// Where `llmon top`'s data comes from, behind one interface so both modes
// share the layout (docs/top.md):
//  * collector_source: standalone, runs the collectors itself (like
//    `llmon snapshot`), keeps the history it saw since it started;
//  * agent_source: a running agent at --url, through its Prometheus query
//    API (instant queries at the moment shown and one collection interval
//    before it, summarised as the collectors' snapshots would be;
//    query_range for the charts, so they scroll back through the store),
//    its /api/v1/alerts and the top /api/v1/diagnosis findings.
// refresh() fills everything but the process detail, which the loop reads
// from /proc (top_procfs.h) where the processes are local.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "collector/scheduler.h"
#include "net/api_client.h"
#include "top/top_data.h"

namespace llmon::app {

// What the view needs of this refresh.
struct TopWants {
  std::string selected_pid;  // its GPU memory over time
  int history_offset_s = 0;  // agent mode: the moment shown, seconds before now
};

class TopSource {
 public:
  virtual ~TopSource() = default;
  // Fills d (keeping its detail) for now_ms; returns the status line's
  // message ("" when all is well).
  virtual std::string refresh(int64_t now_ms, const TopWants& w, top::TopData& d) = 0;
  // Whether process details can be read from this host's /proc.
  virtual bool local() const = 0;
};

std::unique_ptr<TopSource> collector_source(collector::Scheduler& sched, int64_t interval_ms);
// url: the agent (app/agent_client.h); base_url: its text for messages
// ("http://127.0.0.1:8747"); interval_ms: --top.interval.
std::unique_ptr<TopSource> agent_source(net::HttpUrl url, std::string base_url, int64_t interval_ms);

}  // namespace llmon::app
