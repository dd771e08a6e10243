// llmon entry point: parse settings, dispatch to a subcommand.
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/commands.h"

extern char** environ;

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "LLMON_", 6) == 0) env.emplace_back(*e);

  if (!args.empty() && (args[0] == "version" || args[0] == "--version")) {
    std::printf("llmon %s\n", llmon::app::kVersion);
    return 0;
  }
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    if (args.size() > 1 && args[1] == "--config-yaml") {
      llmon::app::write_config_yaml(stdout);
      return 0;
    }
    bool md = args.size() > 1 && args[1] == "--markdown";
    llmon::app::write_help(stdout, md);
    return 0;
  }
  if (args[0] == "alerts") {  // amtool-style arguments, not the flag table
    std::signal(SIGPIPE, SIG_IGN);
    return llmon::app::run_alerts(std::vector<std::string>(args.begin() + 1, args.end()), stdout, stderr);
  }
  if (args[0] == "check") return llmon::app::run_check(std::vector<std::string>(args.begin() + 1, args.end()), stdout, stderr);
  auto settings = llmon::config::load(args, env);
  if (!settings) {
    std::fprintf(stderr, "llmon: %s\n", settings.error().c_str());
    return 2;
  }
  const std::string& cmd = settings->command;
  if (cmd == "agent") {
    // Block the stop and reload signals before any thread starts (threads
    // inherit the mask), then the main thread sleeps in sigwait: no polling,
    // no handler. SIGHUP reloads the rule files; SIGTERM/SIGINT stop.
    sigset_t wait_set;
    sigemptyset(&wait_set);
    sigaddset(&wait_set, SIGTERM);
    sigaddset(&wait_set, SIGINT);
    sigaddset(&wait_set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &wait_set, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    return llmon::app::run_agent(*settings, [&wait_set] {
      int sig = 0;
      while (sigwait(&wait_set, &sig) != 0) {
      }
      return sig == SIGHUP ? llmon::app::AgentSignal::kReload : llmon::app::AgentSignal::kStop;
    });
  }
  if (cmd == "snapshot") return llmon::app::run_snapshot(*settings, stdout);
  if (cmd == "top") return llmon::app::run_top(*settings, stderr);
  if (cmd == "tsdb") return llmon::app::run_tsdb(*settings, stdout, stderr);
  if (cmd == "query") return llmon::app::run_query(*settings, stdout, stderr);
  if (cmd == "diagnose") return llmon::app::run_diagnose(*settings, stdout, stderr);
  if (cmd == "rules") return llmon::app::run_rules(*settings, stdout, stderr);
  if (cmd == "events") return llmon::app::run_events(*settings, stdout, stderr);
  if (cmd == "health") return llmon::app::run_health(*settings, stdout, stderr);
  if (cmd == "trace") return llmon::app::run_trace(*settings, stdout, stderr);
  std::fprintf(stderr, "llmon: unknown command \"%s\" (see llmon help)\n", cmd.c_str());
  return 2;
}
