// Settings: the resolved value of every flag for one run, from (lowest to
// highest precedence) the table's defaults, the --config.file YAML, LLMON_*
// environment variables and the command line. Validation errors name the
// source (file:line, variable or argument). Immutable after load().
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "config/flags.h"

namespace llmon::config {

struct Settings {
  std::string command;                      // subcommand ("agent", "snapshot", ...)
  std::map<std::string, std::string> values;  // flag name -> value (every flag present)
  std::map<std::string, std::string> origin;  // flag name -> "default" | "file:line" | "env VAR" | "flag"
  std::vector<std::string> positional;      // non-flag arguments after the subcommand

  const std::string& get(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  int64_t get_duration_ms(const std::string& name) const;
  int64_t get_int(const std::string& name) const;
  uint64_t get_bytes(const std::string& name) const;  // kBytes flags
};

// argv excludes the program name: {"agent", "--web.listen-address=..."}.
// env is the process environment as "K=V" strings (injected for tests).
Expected<Settings> load(const std::vector<std::string>& args, const std::vector<std::string>& env);

// Parses YAML config text into flag name -> (value, line). Exposed for tests.
Expected<std::map<std::string, std::pair<std::string, int>>> parse_config_yaml(std::string_view text,
                                                                                  std::string_view file);

}  // namespace llmon::config
