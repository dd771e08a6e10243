// Serves the dashboard: GET / answers index.html, GET /assets/<name> the
// bundle's other files, each with its content type, a strong ETag (304 to a
// matching If-None-Match) and "Cache-Control: no-cache" (the browser keeps
// the files and revalidates: the names carry no hash, so a new binary is seen
// at once). Bodies are gzipped once, on a file's first request, and sent compressed to
// clients that accept gzip. The dashboard reads its data only through the
// public API (docs/api.md); nothing here knows about metrics.
#pragma once

#include <span>

#include "base/status.h"
#include "http/server.h"
#include "web/assets.h"

namespace llmon::web {

// Registers "/" and "/assets/*". Error: no index.html among the assets, or a
// route already taken.
Status register_dashboard(http::Server& server, std::span<const Asset> assets);

// "app.js" -> "text/javascript; charset=utf-8" (by extension; octet-stream otherwise).
const char* content_type_for(std::string_view name);

}  // namespace llmon::web
