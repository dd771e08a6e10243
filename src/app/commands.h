// The subcommands. Each returns the process exit code and writes to the given
// streams; main() only dispatches.
#pragma once

#include <atomic>
#include <cstdio>

#include "config/settings.h"

namespace llmon::app {

int run_agent(const config::Settings& s, std::atomic<bool>& stop_requested);
int run_snapshot(const config::Settings& s, std::FILE* out);
// Writes docs/cli.md's content (markdown) or the plain help.
void write_help(std::FILE* out, bool markdown);

extern const char* const kVersion;

}  // namespace llmon::app
