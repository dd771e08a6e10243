#include "top/layout.h"

#include <algorithm>
#include <cstdio>

#include "top/format.h"
#include "top/layout_parts.h"
#include "top/palette.h"

namespace llmon::top {
namespace {

void draw_title(Screen& s, const TopData& d, const DrawOptions& o) {
  const summary::HostSummary& h = d.sum;
  s.fill(0, 0, s.width(), 1, U' ', palette::kTitle);
  char load[64];
  std::snprintf(load, sizeof load, "load %.2f %.2f %.2f", h.load1, h.load5, h.load15);
  std::string t = " llmon top  " + (h.hostname.empty() ? std::string("-") : h.hostname) + "  " + load + "  " +
                  std::to_string(h.gpus.gpus.size()) + " GPU" + (h.gpus.gpus.size() == 1 ? "" : "s");
  if (h.interval_s > 0) t += "  every " + fmt1(h.interval_s, "%gs");
  // The source and the moment shown when they fit (the moment first).
  const int room = s.width() - (o.clock.empty() ? 0 : text_width(o.clock) + 1) - 1;
  for (const std::string* extra : {&d.history_at, &d.source})
    if (!extra->empty() && text_width(t) + 2 + text_width(*extra) <= room) t += "  " + *extra;
  int clock_w = o.clock.empty() ? 0 : text_width(o.clock) + 1;
  s.text(0, 0, t, palette::kTitle, s.width() - clock_w - 1);
  if (clock_w) s.text(s.width() - clock_w, 0, o.clock, palette::kTitle);
}

void draw_status(Screen& s, int y, const ViewState& v, size_t shown, size_t total, const DrawOptions& o) {
  const int w = s.width();
  s.fill(0, y, w, 1, U' ', palette::kHeader);
  std::string right = std::string("sort ") + sort_key_name(v.sort) + (v.descending ? " desc" : " asc");
  if (!v.filter.empty() && !v.editing_filter) right += "  filter \"" + v.filter + "\"";
  right += "  " + std::to_string(shown) + "/" + std::to_string(total) + " procs ";
  int rw = text_width(right);
  int left_w = std::max(0, w - rw - 1);
  if (v.editing_filter) {
    int n = s.text(0, y, " filter: ", palette::kHeader, left_w);
    n += s.text(n, y, v.filter, Style{palette::kPrompt.fg, palette::kHeader.bg, kBold}, left_w - n);
    s.text(n, y, "_", Style{palette::kPrompt.fg, palette::kHeader.bg, kBold}, left_w - n);
    s.text(left_w + 1, y, "Enter keep  Esc clear ", palette::kHeader, w - left_w - 1);
    return;
  }
  if (!o.message.empty()) {
    s.text(0, y, " " + o.message, Style{palette::kWarn.fg, palette::kHeader.bg, kBold}, left_w);
  } else {
    const char* keys = v.detail ? " Esc/Enter close  k signal  q quit"
                       : v.can_scroll_history
                           ? " q quit  ? help  s sort  / filter  Enter detail  t tree  k signal  [ ] history"
                           : " q quit  ? help  s/</> sort  r reverse  / filter  Enter detail  t tree  k signal";
    s.text(0, y, keys, palette::kHeader, left_w);
  }
  if (rw < w) s.text(w - rw, y, right, palette::kHeader);
}

}  // namespace

ProcessArea draw(Screen& s, const summary::HostSummary& h, const GpuHistory& hist, ViewState& v, const DrawOptions& o) {
  TopData d;
  d.sum = h;
  d.hist = hist;
  return draw(s, d, v, o);
}

ProcessArea draw(Screen& s, const TopData& d, ViewState& v, const DrawOptions& o) {
  const summary::HostSummary& h = d.sum;
  const GpuHistory& hist = d.hist;
  s.clear();
  const int w = s.width(), hgt = s.height();
  if (w <= 0 || hgt <= 0) return {};
  draw_title(s, d, o);
  if (hgt < 3) return {};
  const int status_y = hgt - 1;
  const int avail = hgt - 2;  // between title and status line
  std::vector<const summary::GpuProcess*> shown = visible_processes(h.gpus, v);
  const size_t shown_gpu = shown.size();  // the status line counts GPU processes, not launchers
  std::vector<int> depth;
  if (v.tree) depth = arrange_tree(shown, d.ppid, d.launchers);
  const summary::GpuProcess* sel = nullptr;
  for (const auto* p : shown)
    if (!v.selected_pid.empty() && p->pid == v.selected_pid) sel = p;
  if (!sel) v.detail = false;
  const int gpu_want = 1 + std::max<int>(1, static_cast<int>(h.gpus.gpus.size()) + detail::mig_rows(h.gpus));
  const int alerts = detail::alert_rows_wanted(d);
  int y = 1;
  ProcessArea area;
  if (v.detail) {
    // Detail: GPUs, the table around the selection (header and 3 rows), the pane.
    const int pane = detail::detail_rows_wanted(d);
    int gpu_rows = std::clamp(avail - pane - 4, 2, gpu_want);
    y = detail::draw_gpus(s, y, std::min(status_y, y + gpu_rows), h.gpus, hist, o);
    int table_rows = std::clamp(avail - gpu_rows - pane, 2, 4);
    area = detail::draw_processes(s, y, std::min(status_y, y + table_rows), shown, depth, v, o);
    y = std::min(status_y, y + table_rows);
    detail::draw_detail(s, y, status_y, d, *sel, o);
  } else {
    const int host = detail::host_rows(h, w);
    // Processes keep at least a header and three rows; then the host panel;
    // the GPUs get the rest (at least their header and one row); the alerts
    // panel when it leaves the processes their rows.
    int gpu_rows = std::clamp(avail - host - 4 - alerts, 2, gpu_want);
    bool show_host = avail - gpu_rows - host >= 2;
    y = detail::draw_gpus(s, y, std::min(status_y, y + gpu_rows), h.gpus, hist, o);
    if (show_host) y = detail::draw_host(s, y, std::min(status_y, y + host), h, o);
    if (alerts && status_y - y - alerts >= 4) y = detail::draw_alerts(s, y, std::min(status_y, y + alerts), d, o);
    area = detail::draw_processes(s, y, status_y, shown, depth, v, o);
  }
  draw_status(s, status_y, v, shown_gpu, h.gpus.processes.size(), o);
  if (v.help) detail::draw_help(s, o);
  if (v.signal_menu >= 0) detail::draw_signal_menu(s, v, d, sel, o);
  return area;
}

namespace detail {

Tier tier_of(int width) {
  return width < 100 ? Tier::kCompact : width < 160 ? Tier::kMedium : Tier::kWide;
}

}  // namespace detail

}  // namespace llmon::top
