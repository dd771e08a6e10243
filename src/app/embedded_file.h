// Files compiled into the binary (cmake/embed_files.cmake): the default rule
// pack from deploy/rules/ (without its *.test.yml unit tests) and the log rule
// packs from deploy/logwatch/, so that `llmon agent` evaluates them with no
// files installed.
#pragma once

#include <span>

#include "base/embedded_file.h"

namespace llmon::app {

using base::EmbeddedFile;

// deploy/rules/*.yml as of the build, sorted by name.
std::span<const EmbeddedFile> default_rule_files();
// deploy/logwatch/*.yml as of the build, sorted by name.
std::span<const EmbeddedFile> default_logwatch_rule_files();

}  // namespace llmon::app
