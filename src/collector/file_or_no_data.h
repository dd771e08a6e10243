// read_or_no_data(): a kernel file whose absence means the feature is not
// there (module not loaded, no such hardware): node_exporter's ErrNoData.
#pragma once

#include <unistd.h>

#include <string_view>

#include "base/file_reader.h"

namespace llmon::collector {

// The file's text; Status::no_data when it does not exist, the read error
// otherwise (e.g. permission denied).
inline Expected<std::string_view> read_or_no_data(base::CachedFile& file) {
  auto text = file.read();
  if (!text && ::access(file.path().c_str(), F_OK) != 0) return Status::no_data(text.error());
  return text;
}

}  // namespace llmon::collector
