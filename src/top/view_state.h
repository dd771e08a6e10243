// ViewState: what the user chose in `llmon top` (sort column and order,
// process filter, selected process, help overlay, quit) and how a key
// changes it. Pure: apply_key() takes the key and the process list as shown
// and returns whether anything changed; the I/O loop owns the state. The
// selection follows a pid, not a row, so it stays on its process when the
// list re-sorts. Signals: `k` opens a menu, Enter asks for confirmation,
// `y` sets signal_request, which the I/O loop carries out (kill(2), after
// checking the user may) and clears; nothing here sends anything.
#pragma once

#include <map>
#include <string>
#include <utility>
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
  bool detail = false;  // Enter: the selected process's detail pane
  bool tree = false;    // t: children under their parents
  // k: the signal menu (index into signal_choices(), -1 closed), then the
  // confirmation prompt; y sets signal_request (the signal number) and
  // signal_pid for the caller.
  int signal_menu = -1;
  bool confirm = false;
  int signal_request = 0;
  std::string signal_pid;
  // Agent mode: how far back the screen shows ([ and ], Left and Right).
  bool can_scroll_history = false;
  int history_offset_s = 0;
};

inline constexpr int kHistoryStepS = 60;
inline constexpr int kHistoryMaxS = 3600 - 300;  // the last hour, less the chart window

// Where the layout put the process rows (for mouse clicks and paging).
struct ProcessArea {
  int first_y = -1;  // screen row of the first process row; -1: none shown
  int rows = 0;      // rows available for processes
  int header_y = -1;                             // the column header row (a click sorts)
  std::vector<std::pair<int, int>> header_cols;  // [x, x+w) per SortKey, display order
};

// The processes the table shows, filtered and sorted (stable: ties keep the
// summary's GPU/pid order).
std::vector<const summary::GpuProcess*> visible_processes(const summary::GpuSummary& g, const ViewState& v);

// Tree view: reorders `shown` depth-first (children right after their
// parent, siblings in the sorted order) by the parent pids; returns each
// row's depth. A process whose parent is not shown is a root. A launcher
// (a non-GPU parent, TopData::launchers) is inserted above its shown
// children, and above the launcher of that launcher; one with no shown
// descendant is left out (a filter hides it with its children).
std::vector<int> arrange_tree(std::vector<const summary::GpuProcess*>& shown,
                              const std::map<std::string, std::string>& ppid,
                              const std::vector<summary::GpuProcess>& launchers = {});

// Applies one key or mouse event; returns true when the screen must change.
bool apply_key(ViewState& v, const KeyEvent& e, const std::vector<const summary::GpuProcess*>& shown,
               const ProcessArea& area);

// Keeps scroll such that the selected row is inside the area.
void clamp_scroll(ViewState& v, const std::vector<const summary::GpuProcess*>& shown, int rows);

}  // namespace llmon::top
