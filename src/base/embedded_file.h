// A file compiled into the binary by cmake/embed_files.cmake (the default
// rule pack, the dashboard's bundle): its base name and its bytes.
#pragma once

#include <string_view>

namespace llmon::base {

struct EmbeddedFile {
  std::string_view name;     // base name, e.g. "gpu.yml"
  std::string_view content;  // the file's bytes
};

}  // namespace llmon::base
