// The sections of layout.cpp's screen, one file each (layout_gpu.cpp,
// layout_host.cpp, layout_procs.cpp, layout_help.cpp). Internal to top/.
#pragma once

#include <string>
#include <vector>

#include "summary/host_summary.h"
#include "top/history.h"
#include "top/layout.h"
#include "top/screen.h"
#include "top/top_data.h"
#include "top/view_state.h"

namespace llmon::top::detail {

enum class Tier { kCompact, kMedium, kWide };
Tier tier_of(int width);

// A short flag with its style ("XID79", "PWR", "LOST").
struct Badge {
  std::string text;
  Style style;
};
std::vector<Badge> gpu_badges(const summary::GpuRow& g);
// The code shown for an active clock event reason ("sw_power_cap" -> "PWR");
// empty for reasons not worth a badge (gpu_idle).
std::string throttle_code(const std::string& reason);

// Each draws rows from y on and returns the next free row; none draws past max_y.
int draw_gpus(Screen& s, int y, int max_y, const summary::GpuSummary& g, const GpuHistory& hist, const DrawOptions& o);
int draw_host(Screen& s, int y, int max_y, const summary::HostSummary& h, const DrawOptions& o);
// The table fills [y, max_y); returns where its rows are.
// depth: tree depth per shown row (empty: no tree view).
ProcessArea draw_processes(Screen& s, int y, int max_y, const std::vector<const summary::GpuProcess*>& shown,
                           const std::vector<int>& depth, ViewState& v, const DrawOptions& o);
// The detail pane of the selected process; returns the next free row.
int detail_rows_wanted(const TopData& d);
int draw_detail(Screen& s, int y, int max_y, const TopData& d, const summary::GpuProcess& p, const DrawOptions& o);
// The agent's alerts and findings (rows 0 without an agent or with none).
int alert_rows_wanted(const TopData& d);
int draw_alerts(Screen& s, int y, int max_y, const TopData& d, const DrawOptions& o);
// The `k` menu or its confirmation prompt, centred.
void draw_signal_menu(Screen& s, const ViewState& v, const TopData& d, const summary::GpuProcess* p,
                      const DrawOptions& o);
void draw_help(Screen& s, const DrawOptions& o);

// MIG instances of all GPUs (each a row under its GPU when there is room).
int mig_rows(const summary::GpuSummary& g);
// Rows the host section takes at this width.
int host_rows(const summary::HostSummary& h, int width);

}  // namespace llmon::top::detail
