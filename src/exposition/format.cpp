#include "exposition/format.h"

#include "base/strings.h"

namespace llmon::exposition {

std::string_view content_type(Format f) {
  switch (f) {
    case Format::kText004: return "text/plain; version=0.0.4; charset=utf-8";
    case Format::kOpenMetrics100: return "application/openmetrics-text; version=1.0.0; charset=utf-8";
  }
  return "text/plain; version=0.0.4; charset=utf-8";
}

Format negotiate(std::string_view accept) {
  // Each comma-separated entry: media-type *(; param). q defaults to 1.
  double best_q = -1;
  Format best = Format::kText004;
  for (std::string_view entry : base::split(accept, ',')) {
    auto parts = base::split(entry, ';');
    std::string_view type = base::trim(parts[0]);
    double q = 1;
    std::string_view version;
    for (size_t i = 1; i < parts.size(); ++i) {
      std::string_view p = base::trim(parts[i]);
      size_t eq = p.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view k = base::trim(p.substr(0, eq)), v = base::trim(p.substr(eq + 1));
      if (k == "q") {
        auto qv = base::parse_double(v);
        q = qv ? *qv : 0;
      } else if (k == "version") {
        version = v;
      }
    }
    if (q <= 0) continue;
    bool om = type == "application/openmetrics-text" && (version.empty() || version == "1.0.0");
    // Only the OpenMetrics entry can pick a non-default format; everything
    // else (text/plain, */*) means text 0.0.4.
    if (om && q > best_q) {
      best_q = q;
      best = Format::kOpenMetrics100;
    } else if (!om && q > best_q) {
      best_q = q;
      best = Format::kText004;
    }
  }
  return best;
}

}  // namespace llmon::exposition
