// The process detail pane (Enter), the signal menu and its confirmation
// (k), and the agent's alerts and findings panel.
#include <algorithm>
#include <cmath>

#include "top/format.h"
#include "top/layout_parts.h"
#include "top/palette.h"

namespace llmon::top::detail {
namespace {

const summary::GpuRow* gpu_of(const summary::GpuSummary& g, const summary::GpuProcess& p) {
  for (const auto& r : g.gpus)
    if (r.index == p.gpu) return &r;
  return nullptr;
}

// "label  value" on one row; returns the next row.
int field(Screen& s, int y, const std::string& label, const std::string& value, Style vs = palette::kText) {
  s.text(1, y, label, palette::kLabel, 10);
  s.text(11, y, value, vs, s.width() - 12);
  return y + 1;
}

}  // namespace

int detail_rows_wanted(const TopData& d) {
  return 6 + std::max<int>(1, static_cast<int>(d.detail.env.size())) + 1;
}

int draw_detail(Screen& s, int y, int max_y, const TopData& d, const summary::GpuProcess& p, const DrawOptions& o) {
  if (y >= max_y) return y;
  const ProcessDetail& pd = d.detail;
  const int w = s.width();
  s.fill(0, y, w, 1, U' ', palette::kHeader);
  std::string head = " PROCESS " + p.pid + " " + (pd.comm.empty() ? std::string("?") : pd.comm) + "  user " +
                     (p.user.empty() ? "-" : p.user);
  if (!pd.ppid.empty()) head += "  ppid " + pd.ppid;
  if (pd.threads) head += "  threads " + fmt1(pd.threads, "%.0f");
  if (pd.elapsed_s) head += "  up " + elapsed_text(*pd.elapsed_s);
  if (!pd.state.empty() && w >= 100) head += "  state " + pd.state;
  if (!pd.found) head += "  (not in /proc)";
  s.text(0, y, head, palette::kHeader, w - 10);
  s.text(std::max(0, w - 10), y, " Esc close", palette::kHeader, 10);
  ++y;
  const std::string cmd = !pd.cmdline.empty() ? pd.cmdline : p.command.empty() ? "-" : p.command;
  // The command line may take two rows.
  const int cw = std::max(1, w - 12);
  const auto cmd32 = decode_utf8(cmd);
  if (y < max_y) y = field(s, y, "command", cmd);
  if (y<max_y&& static_cast<int>(cmd32.size())> cw && max_y - y > 4) {
    std::string rest;
    for (size_t i = static_cast<size_t>(cw); i < cmd32.size(); ++i) append_utf8(rest, cmd32[i]);
    y = field(s, y, "", rest);
  }
  if (y < max_y) y = field(s, y, "cgroup", pd.cgroup.empty() ? "-" : pd.cgroup, palette::kDimText);
  if (y < max_y) {
    std::string c = p.container.empty() ? "-" : p.container;
    if (!p.pod.empty()) c += "  pod " + (p.namespace_.empty() ? p.pod : p.namespace_ + "/" + p.pod);
    y = field(s, y, "container", c);
  }
  const summary::GpuRow* g = gpu_of(d.sum.gpus, p);
  if (y < max_y) {
    std::string u = "gpu " + (p.gpu.empty() ? "-" : p.gpu) +
                    (p.mig_instance_id.empty() ? "" : "/" + p.mig_instance_id) + "  mem " +
                    bytes_short(p.gpu_mem_bytes) + "  sm " + percent(p.sm_pct) + "  cpu " + fmt1(p.cpu_pct, "%.1f%%") +
                    "  rss " + bytes_short(p.rss_bytes);
    y = field(s, y, "usage", u);
  }
  // The GPU memory chart takes the last row.
  const int env_end = max_y - 1;
  if (pd.env.empty()) {
    if (y < env_end)
      y = field(s, y, "env", pd.env_note.empty() ? "none of the variables that matter" : pd.env_note,
                palette::kDimText);
  } else {
    for (size_t i = 0; i < pd.env.size() && y < env_end; ++i) {
      bool last_row = y == env_end - 1 && i + 1 < pd.env.size();
      std::string e = pd.env[i].first + "=" + pd.env[i].second;
      if (last_row) e = "(+" + std::to_string(pd.env.size() - i) + " more)";
      y = field(s, y, i == 0 ? "env" : "", e, last_row ? palette::kDimText : palette::kText);
      if (last_row) break;
    }
  }
  if (y < max_y) {
    double mx = g && g->mem_total_bytes ? *g->mem_total_bytes : 0;
    for (size_t i = 0; i < d.detail_mem.size(); ++i)
      if (std::isfinite(d.detail_mem.at(i))) mx = std::max(mx, d.detail_mem.at(i));
    s.text(1, y, "gpu mem", palette::kLabel, 10);
    std::string scale = " of " + bytes_short(mx > 0 ? std::optional<double>(mx) : std::nullopt);
    const int chart_w = std::max(0, w - 12 - text_width(scale) - 1);
    ChartStyle st = o.ascii ? ChartStyle::kAscii : o.chart;
    s.text(11, y, sparkline(d.detail_mem, chart_w, mx > 0 ? mx : 1, st), palette::kMemChart, chart_w);
    s.text(11 + chart_w, y, scale, palette::kDimText, w - 11 - chart_w);
    ++y;
  }
  return y;
}

int alert_rows_wanted(const TopData& d) {
  if (!d.agent || (d.alerts.empty() && d.sum.findings.empty())) return 0;
  return 1 + static_cast<int>(std::min<size_t>(d.alerts.size() + d.sum.findings.size(), 3));
}

int draw_alerts(Screen& s, int y, int max_y, const TopData& d, const DrawOptions& o) {
  if (y >= max_y) return y;
  const int w = s.width();
  s.fill(0, y, w, 1, U' ', palette::kHeader);
  std::string h = " ALERTS " + std::to_string(d.alerts.size()) + "  FINDINGS " + std::to_string(d.sum.findings.size());
  s.text(0, y, h, palette::kHeader, w);
  ++y;
  const char* dot = o.ascii ? "*" : "●";
  for (const AlertRow& a : d.alerts) {
    if (y >= max_y) return y;
    Style st = a.state == "firing" ? (a.severity == "critical" ? palette::kCrit : palette::kWarn) : palette::kDimText;
    int n = s.text(1, y, std::string(dot) + " " + a.name, st, w - 1);
    s.text(1 + n, y, "  " + a.state + (a.summary.empty() ? "" : "  " + a.summary), palette::kText, w - 1 - n);
    ++y;
  }
  for (const auto& f : d.sum.findings) {
    if (y >= max_y) return y;
    Style st = f.severity == "critical" ? palette::kCrit : f.severity == "warning" ? palette::kWarn : palette::kDimText;
    int n = s.text(1, y, f.severity, st, 9);
    s.text(10, y, f.kind + ": " + f.summary, palette::kText, w - 10);
    (void)n;
    ++y;
  }
  return y;
}

void draw_signal_menu(Screen& s, const ViewState& v, const TopData& d, const summary::GpuProcess* p,
                      const DrawOptions& o) {
  const auto& ch = signal_choices();
  std::vector<std::string> lines;
  std::string who = p ? p->pid + " " + (p->command.empty() ? "" : p->command) : v.selected_pid;
  if (v.confirm) {
    const auto& c = ch[static_cast<size_t>(v.signal_menu)];
    lines.push_back(std::string("Send SIG") + c.name + " to");
    lines.push_back(who);
    std::string why = may_signal(d.my_ruid, d.my_euid, d.detail.pid == v.selected_pid ? d.detail : ProcessDetail{});
    // The reason, wrapped at 60 columns.
    while (!why.empty()) {
      size_t cut = why.size() <= 60 ? why.size() : why.rfind(' ', 60);
      if (cut == std::string::npos || cut == 0) cut = std::min<size_t>(60, why.size());
      lines.push_back(why.substr(0, cut));
      why = why.substr(std::min(why.size(), cut + 1));
    }
    lines.push_back("y: send   any other key: cancel");
  } else {
    lines.push_back("Signal to " + who);
    for (size_t i = 0; i < ch.size(); ++i)
      lines.push_back(std::to_string(i + 1) + "  SIG" + ch[i].name +
                      std::string(8 - std::string(ch[i].name).size(), ' ') + ch[i].what);
    lines.push_back("Up/Down, Enter or 1-8; Esc cancels");
  }
  int inner = 0;
  for (const auto& l : lines) inner = std::max(inner, text_width(l));
  const int bw = std::min(s.width(), std::min(inner, 70) + 4),
            bh = std::min(s.height(), static_cast<int>(lines.size()) + 2);
  const int x0 = (s.width() - bw) / 2, y0 = std::max(0, (s.height() - bh) / 2);
  const Style box{palette::kWarn.fg, 235, kBold};
  const Style text{252, 235, 0};
  s.fill(x0, y0, bw, bh, U' ', text);
  const char32_t hz = o.ascii ? U'-' : U'─', vt = o.ascii ? U'|' : U'│';
  for (int x = x0; x < x0 + bw; ++x) {
    s.set(x, y0, hz, box);
    s.set(x, y0 + bh - 1, hz, box);
  }
  for (int y = y0; y < y0 + bh; ++y) {
    s.set(x0, y, vt, box);
    s.set(x0 + bw - 1, y, vt, box);
  }
  for (size_t i = 0; i < lines.size() && static_cast<int>(i) < bh - 2; ++i) {
    int y = y0 + 1 + static_cast<int>(i);
    bool hl = !v.confirm && i >= 1 && static_cast<int>(i) - 1 == v.signal_menu;
    bool title = i == 0;
    Style st = title ? Style{palette::kPrompt.fg, 235, kBold} : text;
    s.text(x0 + 2, y, lines[i], st, bw - 4);
    if (hl) s.restyle(x0 + 1, y, bw - 2, Style{235, 252, kBold});
  }
}

}  // namespace llmon::top::detail
