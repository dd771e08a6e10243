// Exposition formats (docs/format/exposition.md): Prometheus text 0.0.4 and
// OpenMetrics 1.0.0, and Accept-header negotiation between them.
#pragma once

#include <string_view>

namespace llmon::exposition {

enum class Format { kText004, kOpenMetrics100 };

std::string_view content_type(Format f);

// Picks the format for an Accept header the way Prometheus targets do: the
// highest-q supported entry wins; no header, junk or nothing supported -> text.
Format negotiate(std::string_view accept_header);

}  // namespace llmon::exposition
