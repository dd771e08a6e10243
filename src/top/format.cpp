#include "top/format.h"

#include <cmath>
#include <cstdio>

#include "top/screen.h"

namespace llmon::top {

std::string bytes_short(double b) {
  if (!std::isfinite(b)) return "-";
  static constexpr const char* kUnits[] = {"", "K", "M", "G", "T", "P", "E"};
  int u = 0;
  double v = std::fabs(b);
  while (v >= 1000 && u < 6) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (v < 10)
    std::snprintf(buf, sizeof buf, "%.1f%s", v, kUnits[u]);
  else
    std::snprintf(buf, sizeof buf, "%.0f%s", v, kUnits[u]);
  return (b < 0 ? "-" : "") + std::string(buf);
}

std::string bytes_short(const std::optional<double>& b) {
  return b ? bytes_short(*b) : "-";
}

std::string rate_short(double bps) {
  return bytes_short(bps) + "/s";
}

std::string percent(const std::optional<double>& p) {
  return fmt1(p, "%.0f%%");
}

std::string fmt1(const std::optional<double>& v, const char* format) {
  if (!v || !std::isfinite(*v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

std::string fit(const std::string& s, int width, const char* ellipsis) {
  if (width <= 0) return "";
  std::u32string cps = decode_utf8(s);
  std::string out;
  if (static_cast<int>(cps.size()) > width) {
    std::u32string e = decode_utf8(ellipsis);
    int keep = width - static_cast<int>(e.size());
    if (keep < 0) keep = width, e.clear();
    cps.resize(static_cast<size_t>(keep));
    cps += e;
  }
  for (char32_t c : cps) append_utf8(out, c);
  out.append(static_cast<size_t>(width) - cps.size(), ' ');
  return out;
}

std::string fit_right(const std::string& s, int width) {
  int w = text_width(s);
  if (w >= width) return fit(s, width);
  return std::string(static_cast<size_t>(width - w), ' ') + s;
}

}  // namespace llmon::top
