// The subcommands. Each returns the process exit code and writes to the given
// streams; main() only dispatches.
#pragma once

#include <cstdio>
#include <functional>

#include "config/settings.h"

namespace llmon::app {

// Runs until wait_for_stop() returns (main: sigwait for SIGTERM/SIGINT).
int run_agent(const config::Settings& s, const std::function<void()>& wait_for_stop);
int run_snapshot(const config::Settings& s, std::FILE* out);
// `llmon tsdb import FILE...` / `llmon tsdb inspect [--json]` (--storage.path).
int run_tsdb(const config::Settings& s, std::FILE* out, std::FILE* err);
// `llmon query EXPR [--time | --start --end --step] [--json] [--url]`: asks a
// running agent's query API; 0 ok, 1 query error, 2 usage/connection error.
int run_query(const config::Settings& s, std::FILE* out, std::FILE* err);
// Writes docs/cli.md's content (markdown) or the plain help.
void write_help(std::FILE* out, bool markdown);

extern const char* const kVersion;

}  // namespace llmon::app
