// The GPU process table: sortable columns, the selection, scrolling.
#include <algorithm>

#include "top/format.h"
#include "top/layout_parts.h"
#include "top/palette.h"

namespace llmon::top::detail {
namespace {

using summary::GpuProcess;

struct ProcCol {
  SortKey key;
  int width;  // 0: the rest
  bool right;
};

std::vector<ProcCol> proc_columns(Tier t) {
  int user = t == Tier::kCompact ? 8 : t == Tier::kMedium ? 10 : 12;
  int cont = t == Tier::kCompact ? 12 : t == Tier::kMedium ? 20 : 32;
  return {{SortKey::kGpu, 4, false},     {SortKey::kPid, 7, true},
          {SortKey::kUser, user, false}, {SortKey::kGpuMem, 8, true},
          {SortKey::kSm, 4, true},       {SortKey::kCpu, 6, true},
          {SortKey::kRss, 6, true},      {SortKey::kContainer, cont, false},
          {SortKey::kCommand, 0, false}};
}

std::string container_text(const GpuProcess& p) {
  if (!p.pod.empty()) return p.namespace_.empty() ? p.pod : p.namespace_ + "/" + p.pod;
  if (p.container.empty()) return "-";
  return p.container.size() > 12 && p.container.find_first_not_of("0123456789abcdef") == std::string::npos
             ? p.container.substr(0, 12)  // a container id: docker's short form
             : p.container;
}

std::string cell_text(const GpuProcess& p, SortKey k) {
  switch (k) {
    case SortKey::kGpu:
      return (p.gpu.empty() ? "-" : p.gpu) + (p.mig_instance_id.empty() ? "" : "/" + p.mig_instance_id);
    case SortKey::kPid:
      return p.pid.empty() ? "-" : p.pid;
    case SortKey::kUser:
      return p.user.empty() ? "-" : p.user;
    case SortKey::kGpuMem:
      return bytes_short(p.gpu_mem_bytes);
    case SortKey::kSm:
      return percent(p.sm_pct);
    case SortKey::kCpu:
      return fmt1(p.cpu_pct, "%.1f");
    case SortKey::kRss:
      return bytes_short(p.rss_bytes);
    case SortKey::kContainer:
      return container_text(p);
    case SortKey::kCommand:
      return p.command.empty() ? "-" : p.command;
  }
  return "";
}

}  // namespace

ProcessArea draw_processes(Screen& s, int y, int max_y, const std::vector<const GpuProcess*>& shown,
                           const std::vector<int>& depth, ViewState& v, const DrawOptions& o) {
  ProcessArea area;
  if (y >= max_y) return area;
  area.header_y = y;
  const int w = s.width();
  const auto cols = proc_columns(tier_of(w));
  const char* ell = o.ascii ? "~" : "…";
  // Header, the sorted column marked.
  s.fill(0, y, w, 1, U' ', palette::kHeader);
  int x = 0;
  std::vector<int> xs, ws;
  for (const ProcCol& c : cols) {
    int cw = c.width ? c.width : std::max(0, w - x);
    xs.push_back(x);
    ws.push_back(cw);
    area.header_cols.emplace_back(x, std::min(w, x + cw));
    std::string title = sort_key_name(c.key);
    Style st = palette::kHeader;
    if (c.key == v.sort) {
      title += v.descending ? (o.ascii ? "v" : "▼") : (o.ascii ? "^" : "▲");
      st.attrs |= kUnderline;
    }
    if (x < w) s.text(x, y, c.right ? fit_right(title, cw) : fit(title, cw), st, std::min(cw, w - x));
    x += cw + 1;
  }
  ++y;
  area.first_y = y;
  area.rows = std::max(0, max_y - y);
  clamp_scroll(v, shown, area.rows);
  if (shown.empty() && y < max_y) {
    s.text(1, y, v.filter.empty() ? "no GPU processes" : "no GPU process matches \"" + v.filter + "\"",
           palette::kDimText, w - 1);
    return area;
  }
  for (int r = 0; r < area.rows; ++r) {
    size_t i = static_cast<size_t>(v.scroll + r);
    if (i >= shown.size()) break;
    const GpuProcess& p = *shown[i];
    const bool sel = p.pid == v.selected_pid && !v.selected_pid.empty();
    for (size_t c = 0; c < cols.size(); ++c) {
      if (xs[c] >= w) break;
      int cw = std::min(ws[c], w - xs[c]);
      std::string t = cell_text(p, cols[c].key);
      if (cols[c].key == SortKey::kCommand && i < depth.size() && depth[i] > 0) {
        std::string pre;
        for (int d = 1; d < depth[i]; ++d) pre += "  ";
        size_t j = i + 1;
        while (j < depth.size() && depth[j] > depth[i]) ++j;
        bool last = j >= depth.size() || depth[j] < depth[i];
        pre += o.ascii ? (last ? "`- " : "|- ") : (last ? "└─ " : "├─ ");
        t = pre + t;
      }
      t = cols[c].right ? fit_right(t, cw) : fit(t, cw, ell);
      Style st = cols[c].key == SortKey::kGpu ? palette::kLabel : palette::kText;
      if (p.gpu.empty()) st = palette::kDimText;  // a launcher (tree view): no GPU of its own
      if (cols[c].key == SortKey::kContainer && t.find_first_not_of(' ') != std::string::npos && t[0] == '-')
        st = palette::kDimText;
      s.text(xs[c], y + r, t, st, cw);
    }
    if (sel) s.restyle(0, y + r, w, palette::kSelected);
  }
  return area;
}

}  // namespace llmon::top::detail
