// The dashboard's files compiled into the binary (web/ bundled by esbuild at
// build time, embedded by cmake/embed_files.cmake): index.html, app.js and
// app.css. Empty when the build was configured with -DLLMON_WEB=OFF.
#pragma once

#include <span>

#include "base/embedded_file.h"

namespace llmon::web {

using Asset = base::EmbeddedFile;

// The bundle of this build, sorted by name.
std::span<const Asset> dashboard_assets();

}  // namespace llmon::web
