// The subcommands. Each returns the process exit code and writes to the given
// streams; main() only dispatches.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "config/settings.h"

namespace llmon::app {

// `llmon agent`: runs until wait_for_signal() returns kStop (main: sigwait for
// SIGTERM/SIGINT); kReload (SIGHUP) re-reads the rule and notify files.
enum class AgentSignal { kStop, kReload };
int run_agent(const config::Settings& s, const std::function<AgentSignal()>& wait_for_signal);
int run_snapshot(const config::Settings& s, std::FILE* out);
// `llmon top`: the live terminal view (docs/top.md) until q or a signal;
// 2 without a terminal on stdin/stdout.
int run_top(const config::Settings& s, std::FILE* err);
// `llmon tsdb import FILE...` / `llmon tsdb inspect [--json]` (--storage.path).
int run_tsdb(const config::Settings& s, std::FILE* out, std::FILE* err);
// `llmon query EXPR [--time | --start --end --step] [--json] [--url]`: asks a
// running agent's query API; 0 ok, 1 query error, 2 usage/connection error.
int run_query(const config::Settings& s, std::FILE* out, std::FILE* err);

// `llmon diagnose`: findings over a window of a store or a running agent
// (docs/diagnosis.md); 0 healthy, 1 findings of warning or worse, 2 errors.
int run_diagnose(const config::Settings& s, std::FILE* out, std::FILE* err);
// `llmon rules check FILE...` / `llmon rules test FILE...`: promtool's
// check rules / test rules, same output and exit codes; `check` without
// files checks the built-in pack.
int run_rules(const config::Settings& s, std::FILE* out, std::FILE* err);
// `llmon alerts [silence add|list|expire ...] [--url=URL]`: active alerts and
// silences of a running agent; takes the raw arguments after "alerts"
// (amtool-style flags, not the flag table).
int run_alerts(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);
// llmon check web-config|http-config FILE... (app/check_command.cpp).
int run_check(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);
// `llmon events [--start --end --rule --severity --source --limit] [--json]`:
// the log watcher's events from a running agent (--url) or a journal
// directory (--events.path); 0 ok, 2 errors.
int run_events(const config::Settings& s, std::FILE* out, std::FILE* err);
// `llmon health [--json] [--url]` / `llmon health set-healthy GPU`: GPU
// health of a running agent (docs/gpu-health.md); 0 all healthy, 1 a GPU
// degraded or unhealthy (or the agent refused), 2 usage/connection errors.
int run_health(const config::Settings& s, std::FILE* out, std::FILE* err);
// `llmon trace analyze FILE|DIR [--json]`, `llmon trace diff A B [--json]`:
// PyTorch profiler traces analysed like HTA (docs/trace.md); 0 ok, 1 a file
// did not parse, 2 usage errors.
int run_trace(const config::Settings& s, std::FILE* out, std::FILE* err);
// `llmon trace capture` (trace_capture_command.cpp), called by run_trace.
int run_trace_capture(const config::Settings& s, std::FILE* out, std::FILE* err);
// Writes docs/cli.md's content (markdown) or the plain help.
void write_help(std::FILE* out, bool markdown);
// `llmon help --config-yaml`: packaging/llmon.yml, every agent flag at its
// default, commented out, with its help text.
void write_config_yaml(std::FILE* out);

extern const char* const kVersion;

}  // namespace llmon::app
