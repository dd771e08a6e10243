// TopData: everything one `llmon top` frame draws, whichever source filled
// it (standalone: the collectors and /proc; agent: the agent's query API,
// alerts and diagnosis, app/top_source.h). Pure data for the layout.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "summary/host_summary.h"
#include "top/history.h"
#include "top/proc_detail.h"

namespace llmon::top {

// A firing (or pending) alert of the agent.
struct AlertRow {
  std::string name, state, severity, summary, since;
};

struct TopData {
  summary::HostSummary sum;
  GpuHistory hist;
  // Tree view: the parent pid of each GPU process and launcher (empty when
  // unknown), and the launchers: parents of GPU processes that hold no GPU
  // themselves (a torchrun, a shell), drawn dim without GPU numbers (gpu
  // empty marks them).
  std::map<std::string, std::string> ppid;
  std::vector<summary::GpuProcess> launchers;
  // The selected process's details and GPU memory over time (bytes).
  ProcessDetail detail;
  Ring detail_mem{300};
  std::vector<AlertRow> alerts;
  bool agent = false;  // alerts/findings panels only make sense with an agent
  std::string source;  // the title's "agent 127.0.0.1:9400"; empty: standalone
  std::string history_at;
  // Who runs `llmon top` (the signal prompt says whether kill(2) may work).
  uint32_t my_ruid = 0, my_euid = 0;  // "at -10m (11:50:00)" when the agent view is scrolled back
};

}  // namespace llmon::top
