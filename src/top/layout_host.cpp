// The host section: CPU (total and per core), memory and swap, the busiest
// network interfaces and disks.
#include <algorithm>
#include <cmath>

#include "top/charts.h"
#include "top/format.h"
#include "top/layout_parts.h"
#include "top/palette.h"

namespace llmon::top::detail {
namespace {

constexpr int kLabelW = 5;  // "CPU  "

int bar_width(int width) {
  Tier t = tier_of(width);
  return t == Tier::kCompact ? 20 : t == Tier::kMedium ? 30 : 50;
}

int cores(const summary::HostSummary& h) {
  return static_cast<int>(std::count_if(h.cpus.begin(), h.cpus.end(), [](const auto& c) { return c.cpu != "all"; }));
}

int core_lines(const summary::HostSummary& h, int width) {
  int n = cores(h), per = std::max(1, width - kLabelW);
  return n == 0 ? 0 : std::min(2, (n + per - 1) / per);
}

// Writes the parts left to right while they fit; returns the next column.
int put(Screen& s, int x, int y, const std::string& t, Style st) {
  if (x >= s.width()) return x;
  return x + s.text(x, y, t, st, s.width() - x);
}

void bar_line(Screen& s, int y, const char* label, double pct, const std::string& after, const DrawOptions& o) {
  int x = put(s, 0, y, label, palette::kLabel);
  x = kLabelW;
  int bw = std::min(bar_width(s.width()), std::max(0, s.width() - x - 1));
  s.text(x, y, o.ascii ? U"[" : U"▕", palette::kDimText);
  s.text(x + 1, y, hbar(pct, bw, o.ascii), palette::level(pct), bw);
  s.text(x + 1 + bw, y, o.ascii ? U"]" : U"▏", palette::kDimText);
  put(s, x + bw + 3, y, after, palette::kText);
}

}  // namespace

int host_rows(const summary::HostSummary& h, int width) {
  return 1 + core_lines(h, width) + 2;
}

int draw_host(Screen& s, int y, int max_y, const summary::HostSummary& h, const DrawOptions& o) {
  const int w = s.width();
  const Tier tier = tier_of(w);
  // CPU total.
  if (y < max_y) {
    const summary::CpuUsage* all = nullptr;
    for (const auto& c : h.cpus)
      if (c.cpu == "all") all = &c;
    double busy = all ? all->busy_pct : NAN;
    std::string after = fit_right(percent(all ? std::optional<double>(busy) : std::nullopt), 4);
    if (all) {
      after +=
          "  usr " + percent(all->user_pct) + "  sys " + percent(all->system_pct) + "  iow " + percent(all->iowait_pct);
      if (tier != Tier::kCompact) after += "  steal " + percent(all->steal_pct);
      after += "  " + std::to_string(cores(h)) + " cores";
    }
    bar_line(s, y, "CPU", busy, after, o);
    ++y;
  }
  // Per core: one level glyph each.
  int lines = core_lines(h, w);
  const int per = std::max(1, w - kLabelW);
  std::vector<const summary::CpuUsage*> cs;
  for (const auto& c : h.cpus)
    if (c.cpu != "all") cs.push_back(&c);
  for (int l = 0; l < lines && y < max_y; ++l, ++y) {
    if (l == 0) put(s, 0, y, "core", palette::kDimText);
    for (int k = 0; k < per && l * per + k < static_cast<int>(cs.size()); ++k) {
      const auto* c = cs[static_cast<size_t>(l * per + k)];
      s.set(kLabelW + k, y, level_glyph(c->busy_pct, o.ascii), palette::level(c->busy_pct));
    }
  }
  // Memory and swap.
  if (y < max_y) {
    std::string after = bytes_short(h.mem_used_bytes) + "/" + bytes_short(h.mem_total_bytes) + " " +
                        percent(h.mem_used_pct) + "  swap " + bytes_short(h.swap_used_bytes) + "/" +
                        bytes_short(h.swap_total_bytes);
    bar_line(s, y, "MEM", h.mem_used_pct, after, o);
    ++y;
  }
  // The busiest interfaces and disks.
  if (y < max_y) {
    const size_t n = tier == Tier::kCompact ? 1 : tier == Tier::kMedium ? 2 : 4;
    std::vector<const summary::NetRate*> net;
    for (const auto& d : h.net)
      if (d.device != "lo") net.push_back(&d);
    std::stable_sort(net.begin(), net.end(), [](auto* a, auto* b) {
      return a->rx_bytes_per_s + a->tx_bytes_per_s > b->rx_bytes_per_s + b->tx_bytes_per_s;
    });
    std::vector<const summary::DiskRate*> disks;
    for (const auto& d : h.disks) disks.push_back(&d);
    std::stable_sort(disks.begin(), disks.end(), [](auto* a, auto* b) {
      return a->read_bytes_per_s + a->write_bytes_per_s > b->read_bytes_per_s + b->write_bytes_per_s;
    });
    int x = put(s, 0, y, "NET", palette::kLabel);
    x = kLabelW;
    if (net.empty()) x = put(s, x, y, "-", palette::kDimText);
    for (size_t k = 0; k < std::min(n, net.size()); ++k) {
      x = put(s, x, y, net[k]->device, palette::kText);
      x = put(s, x, y, " rx " + rate_short(net[k]->rx_bytes_per_s) + " tx " + rate_short(net[k]->tx_bytes_per_s) + "  ",
              palette::kDimText);
    }
    x = put(s, x, y, " DSK ", palette::kLabel);
    if (disks.empty()) put(s, x, y, "-", palette::kDimText);
    for (size_t k = 0; k < std::min(n, disks.size()); ++k) {
      x = put(s, x, y, disks[k]->device, palette::kText);
      x = put(s, x, y,
              " r " + rate_short(disks[k]->read_bytes_per_s) + " w " + rate_short(disks[k]->write_bytes_per_s) + " " +
                  percent(disks[k]->util_pct) + "  ",
              palette::kDimText);
    }
    ++y;
  }
  return y;
}

}  // namespace llmon::top::detail
