#include "top/layout.h"

#include <algorithm>
#include <cstdio>

#include "top/format.h"
#include "top/layout_parts.h"
#include "top/palette.h"

namespace llmon::top {
namespace {

void draw_title(Screen& s, const summary::HostSummary& h, const DrawOptions& o) {
  s.fill(0, 0, s.width(), 1, U' ', palette::kTitle);
  char load[64];
  std::snprintf(load, sizeof load, "load %.2f %.2f %.2f", h.load1, h.load5, h.load15);
  std::string t = " llmon top  " + (h.hostname.empty() ? std::string("-") : h.hostname) + "  " + load + "  " +
                  std::to_string(h.gpus.gpus.size()) + " GPU" + (h.gpus.gpus.size() == 1 ? "" : "s");
  if (h.interval_s > 0) t += "  every " + fmt1(h.interval_s, "%gs");
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
    const char* keys = o.ascii ? " q quit  ? help  s/</> sort  r reverse  / filter  Up/Down select"
                               : " q quit  ? help  s/</> sort  r reverse  / filter  ↑↓ select";
    s.text(0, y, keys, palette::kHeader, left_w);
  }
  if (rw < w) s.text(w - rw, y, right, palette::kHeader);
}

}  // namespace

ProcessArea draw(Screen& s, const summary::HostSummary& h, const GpuHistory& hist, ViewState& v, const DrawOptions& o) {
  s.clear();
  const int w = s.width(), hgt = s.height();
  if (w <= 0 || hgt <= 0) return {};
  draw_title(s, h, o);
  if (hgt < 3) return {};
  const int status_y = hgt - 1;
  const int avail = hgt - 2;  // between title and status line
  const int host = detail::host_rows(h, w);
  const int gpu_want = 1 + std::max<int>(1, static_cast<int>(h.gpus.gpus.size()) + detail::mig_rows(h.gpus));
  // Processes keep at least a header and three rows; then the host panel;
  // the GPUs get the rest (at least their header and one row).
  int gpu_rows = std::clamp(avail - host - 4, 2, gpu_want);
  bool show_host = avail - gpu_rows - host >= 2;
  int y = 1;
  y = detail::draw_gpus(s, y, std::min(status_y, y + gpu_rows), h.gpus, hist, o);
  if (show_host) y = detail::draw_host(s, y, std::min(status_y, y + host), h, o);
  std::vector<const summary::GpuProcess*> shown = visible_processes(h.gpus, v);
  ProcessArea area = detail::draw_processes(s, y, status_y, shown, v, o);
  draw_status(s, status_y, v, shown.size(), h.gpus.processes.size(), o);
  if (v.help) detail::draw_help(s, o);
  return area;
}

namespace detail {

Tier tier_of(int width) {
  return width < 100 ? Tier::kCompact : width < 160 ? Tier::kMedium : Tier::kWide;
}

}  // namespace detail

}  // namespace llmon::top
