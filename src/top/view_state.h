// ViewState: what the user chose in `llmon top` (sort column and order,
// process filter, selected process, help overlay, quit) and how a key
// changes it. Pure: apply_key() takes the key and the process list as shown
// and returns whether anything changed; the I/O loop owns the state. The
// selection follows a pid, not a row, so it stays on its process when the
// list re-sorts. Sending signals to the selected process is not done yet.
#pragma once

#include <string>
#include <vector>

#include "summary/gpu_summary.h"
#include "top/keys.h"

namespace llmon::top {

// The process table's columns, in display (and `s`/`>` cycling) order.
enum class SortKey { kGpu, kPid, kUser, kGpuMem, kSm, kCpu, kRss, kContainer, kCommand };
inline constexpr int kSortKeys = 9;

const char* sort_key_name(SortKey k);  // the column header: "GPU-MEM"

struct ViewState {
  SortKey sort = SortKey::kGpuMem;
  bool descending = true;
  std::string filter;  // case-insensitive substring of user, container, pod, namespace, command
  bool editing_filter = false;
  std::string selected_pid;  // empty: none
  int scroll = 0;            // first process row shown
  bool help = false;
  bool quit = false;
  bool redraw = false;  // Ctrl-L: the caller repaints the whole terminal
};

// Where the layout put the process rows (for mouse clicks and paging).
struct ProcessArea {
  int first_y = -1;  // screen row of the first process row; -1: none shown
  int rows = 0;      // rows available for processes
};

// The processes the table shows, filtered and sorted (stable: ties keep the
// summary's GPU/pid order).
std::vector<const summary::GpuProcess*> visible_processes(const summary::GpuSummary& g, const ViewState& v);

// Applies one key or mouse event; returns true when the screen must change.
bool apply_key(ViewState& v, const KeyEvent& e, const std::vector<const summary::GpuProcess*>& shown,
               const ProcessArea& area);

// Keeps scroll such that the selected row is inside the area.
void clamp_scroll(ViewState& v, const std::vector<const summary::GpuProcess*>& shown, int rows);

}  // namespace llmon::top
