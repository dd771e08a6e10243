// The `llmon top` screen: draws a summary::HostSummary, the GPU history and
// the view state into a Screen of any size. Pure: no terminal, no clock (the
// caller passes the time text), so golden tests draw hand-built summaries.
// Three width tiers: compact (< 100 columns), medium (< 160) and wide; the
// height decides how many GPU and process rows fit (80x24 shows 8 GPUs and
// 8 processes). Sections, top to bottom: title, GPU table with sparklines,
// host (CPU per core, memory/swap, network, disk), GPU processes, status
// line; the help overlay on top when asked for. docs/top.md shows them.
#pragma once

#include <string>
#include <vector>

#include "summary/host_summary.h"
#include "top/charts.h"
#include "top/history.h"
#include "top/screen.h"
#include "top/top_data.h"
#include "top/view_state.h"

namespace llmon::top {

struct DrawOptions {
  bool ascii = false;                       // ASCII glyphs only (charts, bars, boxes, markers)
  ChartStyle chart = ChartStyle::kBraille;  // UTF-8 sparklines; ASCII mode uses the ASCII ramp
  std::string clock;                        // the title's time ("12:34:56"); empty: none
  std::string message;                      // shown in the status line (collector errors), empty: none
};

// Clears `s` and draws everything; clamps v.scroll to the rows shown.
// Returns where the process rows are (mouse clicks, paging).
ProcessArea draw(Screen& s, const TopData& d, ViewState& v, const DrawOptions& o);
// The same without details, alerts or a source (a TopData of h and hist).
ProcessArea draw(Screen& s, const summary::HostSummary& h, const GpuHistory& hist, ViewState& v, const DrawOptions& o);

}  // namespace llmon::top
