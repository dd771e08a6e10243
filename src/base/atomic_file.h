// Replacing a small file so that a crash leaves either the old or the new
// contents, never a torn mix: PATH.tmp is written, fsync()ed and renamed over
// PATH, then the directory is fsync()ed. Used for every state file the agent
// keeps (notification log, silences, GPU health history).
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::base {

// Errors name the file and the call; the temp file is removed on failure.
Status write_file_atomic(const std::string& path, std::string_view bytes, mode_t mode = 0600);

}  // namespace llmon::base
