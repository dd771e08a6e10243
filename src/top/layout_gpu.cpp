// The GPU table: one row per GPU, columns by width tier.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "top/charts.h"
#include "top/format.h"
#include "top/layout_parts.h"
#include "top/palette.h"

namespace llmon::top::detail {
namespace {

using summary::GpuRow;

enum class Col {
  kIdx,
  kName,
  kUtil,
  kUtilChart,
  kMem,
  kMemBar,
  kMemChart,
  kTemp,
  kPower,
  kClock,
  kPstate,
  kFan,
  kPcie,
  kFlags
};

struct ColDef {
  Col col;
  int width;  // 0: the rest of the row
  const char* title;
  bool right;
};

const std::vector<ColDef>& columns(Tier t) {
  static const std::vector<ColDef> kCompact = {{Col::kIdx, 3, "GPU", false},  {Col::kName, 9, "NAME", false},
                                               {Col::kUtil, 4, "UTIL", true}, {Col::kUtilChart, 8, "", false},
                                               {Col::kMem, 9, "MEM", true},   {Col::kMemBar, 5, "", false},
                                               {Col::kTemp, 4, "TEMP", true}, {Col::kPower, 8, "POWER", true},
                                               {Col::kClock, 4, "MHZ", true}, {Col::kFlags, 0, "FLAGS", false}};
  static const std::vector<ColDef> kMedium = {
      {Col::kIdx, 3, "GPU", false},     {Col::kName, 17, "NAME", false}, {Col::kUtil, 4, "UTIL", true},
      {Col::kUtilChart, 20, "", false}, {Col::kMem, 9, "MEM", true},     {Col::kMemBar, 10, "", false},
      {Col::kMemChart, 11, "", false},  {Col::kTemp, 4, "TEMP", true},   {Col::kPower, 9, "POWER", true},
      {Col::kClock, 6, "SM MHZ", true}, {Col::kFlags, 0, "FLAGS", false}};
  static const std::vector<ColDef> kWide = {
      {Col::kIdx, 3, "GPU", false},     {Col::kName, 24, "NAME", false}, {Col::kUtil, 4, "UTIL", true},
      {Col::kUtilChart, 40, "", false}, {Col::kMem, 11, "MEM", true},    {Col::kMemBar, 12, "", false},
      {Col::kMemChart, 24, "", false},  {Col::kTemp, 4, "TEMP", true},   {Col::kPower, 9, "POWER", true},
      {Col::kClock, 6, "SM MHZ", true}, {Col::kPstate, 3, "P", true},    {Col::kFan, 4, "FAN", true},
      {Col::kPcie, 6, "PCIE", true},    {Col::kFlags, 0, "FLAGS", false}};
  return t == Tier::kCompact ? kCompact : t == Tier::kMedium ? kMedium : kWide;
}

std::string short_name(const std::string& n) {
  std::string s = n;
  for (const char* p : {"NVIDIA ", "AMD "})
    if (s.rfind(p, 0) == 0) s.erase(0, std::char_traits<char>::length(p));
  return s.empty() ? "-" : s;
}

double mem_pct(const GpuRow& g) {
  if (g.mem_used_pct) return *g.mem_used_pct;
  if (g.mem_used_bytes && g.mem_total_bytes && *g.mem_total_bytes > 0)
    return 100 * *g.mem_used_bytes / *g.mem_total_bytes;
  return NAN;
}

std::string power_text(const GpuRow& g) {
  if (!g.power_w) return "-";
  if (!g.power_limit_w) return fmt1(g.power_w, "%.0fW");
  return fmt1(g.power_w, "%.0f") + "/" + fmt1(g.power_limit_w, "%.0fW");
}

void draw_cell(Screen& s, int x, int y, const ColDef& c, int w, const GpuRow& g, const GpuSeries* hist,
               const DrawOptions& o) {
  const bool ascii = o.ascii;
  const ChartStyle chart = ascii ? ChartStyle::kAscii : o.chart;
  auto put = [&](const std::string& t, Style st) {
    s.text(x, y, c.right ? fit_right(t, w) : fit(t, w, ascii ? "~" : "…"), st, w);
  };
  const Style base = g.lost ? palette::kDimText : palette::kText;
  switch (c.col) {
    case Col::kIdx:
      put(g.index.empty() ? "-" : g.index, palette::kLabel);
      break;
    case Col::kName: {
      // Narrow: the model alone ("H100"); the rest of the name rarely differs on one host.
      std::string n = short_name(g.name);
      if (w < 12 && n.find(' ') != std::string::npos) n.erase(n.find(' '));
      put(n, base);
      break;
    }
    case Col::kUtil:
      put(percent(g.util_pct), g.util_pct ? palette::level(*g.util_pct) : base);
      break;
    case Col::kUtilChart:
      if (hist) s.text(x, y, sparkline(hist->util_pct, w, 100, chart), palette::kChart, w);
      break;
    case Col::kMem:
      put(bytes_short(g.mem_used_bytes) + "/" + bytes_short(g.mem_total_bytes), base);
      break;
    case Col::kMemBar: {
      double p = mem_pct(g);
      if (std::isfinite(p)) s.text(x, y, hbar(p, w, ascii), palette::level(p), w);
      break;
    }
    case Col::kMemChart:
      if (hist) s.text(x, y, sparkline(hist->mem_used_pct, w, 100, chart), palette::kMemChart, w);
      break;
    case Col::kTemp: {
      Style st = !g.temp_c ? base : *g.temp_c >= 85 ? palette::kCrit : *g.temp_c >= 75 ? palette::kWarn : base;
      put(fmt1(g.temp_c, "%.0fC"), st);
      break;
    }
    case Col::kPower: {
      bool near = g.power_w && g.power_limit_w && *g.power_limit_w > 0 && *g.power_w >= 0.95 * *g.power_limit_w;
      put(power_text(g), near ? palette::kWarn : base);
      break;
    }
    case Col::kClock:
      put(fmt1(g.sm_clock_mhz, "%.0f"), base);
      break;
    case Col::kPstate:
      put(fmt1(g.pstate, "P%.0f"), base);
      break;
    case Col::kFan:
      put(percent(g.fan_pct), base);
      break;
    case Col::kPcie:
      put(g.pcie_gen && g.pcie_width ? fmt1(g.pcie_gen, "G%.0f") + fmt1(g.pcie_width, "x%.0f") : "-", base);
      break;
    case Col::kFlags: {
      int used = 0;
      for (const Badge& b : gpu_badges(g)) {
        int bw = text_width(b.text);
        if (used + bw > w) break;
        s.text(x + used, y, b.text, b.style, w - used);
        used += bw + 1;
      }
      break;
    }
  }
}

}  // namespace

std::string throttle_code(const std::string& r) {
  if (r == "sw_power_cap") return "PWR";
  if (r == "hw_slowdown") return "HWS";
  if (r == "sw_thermal_slowdown") return "STH";
  if (r == "hw_thermal_slowdown") return "HTH";
  if (r == "hw_power_brake_slowdown") return "BRK";
  if (r == "sync_boost") return "SYNC";
  if (r == "applications_clocks_setting") return "APP";
  if (r == "display_clock_setting") return "DSP";
  if (r == "gpu_idle") return "";
  return r;
}

int mig_rows(const summary::GpuSummary& g) {
  int n = 0;
  for (const GpuRow& r : g.gpus) n += static_cast<int>(r.mig.size());
  return n;
}

std::vector<Badge> gpu_badges(const GpuRow& g) {
  std::vector<Badge> out;
  if (g.lost) out.push_back({"LOST", palette::kCrit});
  if (!g.health_state.empty() && g.health_state != "healthy") {
    std::string h = g.health_state;
    for (char& c : h) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out.push_back({h, g.health_state == "degraded" ? palette::kWarn : palette::kCrit});
  }
  if (g.last_xid && *g.last_xid > 0) out.push_back({fmt1(g.last_xid, "XID%.0f"), palette::kCrit});
  if (g.ecc_dbe_volatile && *g.ecc_dbe_volatile > 0) out.push_back({"ECC", palette::kCrit});
  for (const std::string& r : g.throttle_reasons) {
    std::string code = throttle_code(r);
    if (!code.empty())
      out.push_back({code, r == "hw_slowdown" || r == "hw_thermal_slowdown" ? palette::kCrit : palette::kWarn});
  }
  if (!g.mig.empty()) out.push_back({"MIG" + std::to_string(g.mig.size()), palette::kDimText});
  if (out.empty() && (g.throttle_known || !g.health_state.empty())) out.push_back({"ok", palette::kOk});
  return out;
}

int draw_gpus(Screen& s, int y, int max_y, const summary::GpuSummary& g, const GpuHistory& hist, const DrawOptions& o) {
  if (y >= max_y) return y;
  const auto& cols = columns(tier_of(s.width()));
  s.fill(0, y, s.width(), 1, U' ', palette::kHeader);
  std::vector<int> xs, ws;
  int x = 0;
  for (const ColDef& c : cols) {
    int w = c.width ? c.width : std::max(0, s.width() - x);
    xs.push_back(x);
    ws.push_back(w);
    std::string title = c.title;
    if (c.col == Col::kUtilChart && w >= 12) title = "UTIL HISTORY";
    if (c.col == Col::kMemChart && w >= 11) title = "MEM HISTORY";
    if (!title.empty() && w > 0) s.text(x, y, c.right ? fit_right(title, w) : fit(title, w), palette::kHeader, w);
    x += w + 1;
  }
  ++y;
  if (g.gpus.empty() && y < max_y) {
    std::string why = "no GPUs";
    for (const auto& b : g.backends)
      why += "  " + b.backend + (b.up ? ": up" : ": " + (b.reason.empty() ? std::string("down") : b.reason));
    s.text(1, y, why, palette::kDimText, s.width() - 1);
    return y + 1;
  }
  // MIG instances get rows of their own under their GPU when all of them fit.
  const bool with_mig = max_y - y >= static_cast<int>(g.gpus.size()) + mig_rows(g);
  for (const GpuRow& r : g.gpus) {
    if (y >= max_y) break;
    const GpuSeries* h = hist.find(r);
    for (size_t i = 0; i < cols.size(); ++i)
      if (ws[i] > 0 && xs[i] < s.width()) draw_cell(s, xs[i], y, cols[i], std::min(ws[i], s.width() - xs[i]), r, h, o);
    ++y;
    if (!with_mig) continue;
    for (const summary::MigInstance& m : r.mig) {
      if (y >= max_y) break;
      GpuRow inst;  // the instance as a row: its memory only
      inst.mem_used_bytes = m.mem_used_bytes;
      inst.mem_total_bytes = m.mem_total_bytes;
      for (size_t i = 0; i < cols.size(); ++i) {
        if (ws[i] <= 0 || xs[i] >= s.width()) continue;
        int w = std::min(ws[i], s.width() - xs[i]);
        if (cols[i].col == Col::kName) {
          std::string t = std::string(o.ascii ? "`-" : "└ ") + (m.profile.empty() ? "mig" : m.profile) + " #" +
                          (m.instance_id.empty() ? "-" : m.instance_id);
          s.text(xs[i], y, fit(t, w, o.ascii ? "~" : "…"), palette::kDimText, w);
        } else if (cols[i].col == Col::kMem || cols[i].col == Col::kMemBar) {
          draw_cell(s, xs[i], y, cols[i], w, inst, nullptr, o);
        }
      }
      ++y;
    }
  }
  return y;
}

}  // namespace llmon::top::detail
