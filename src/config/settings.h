// Settings: the resolved value of every flag for one run, from (lowest to
// highest precedence) the table's defaults, the --config.file YAML, LLMON_*
// environment variables and the command line. Validation errors name the
// source (file:line, variable or argument). Immutable after load() but for
// replace_default().
//
// Values are read by flag constant (flag_names.h), get(flag::kStoragePath),
// and come back as the flag's type; names built at run time go through
// checked_flag() first (flags.h). Every table row has a value, so get() of a
// constant never misses (tests/config/flag_names_test.cpp checks constants
// against the table); a Flag not in the table is a programming error: assert
// in debug builds, the empty value in release ones.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "config/flag_names.h"
#include "config/flags.h"

namespace llmon::config {

class Settings;
// argv excludes the program name: {"agent", "--web.listen-address=..."}.
// env is the process environment as "K=V" strings (injected for tests).
Expected<Settings> load(const std::vector<std::string>& args, const std::vector<std::string>& env);

class Settings {
 public:
  std::string command;                  // subcommand ("agent", "snapshot", ...)
  std::vector<std::string> positional;  // non-flag arguments after the subcommand

  const std::string& get(StringFlag f) const;
  const std::string& get(RegexFlag f) const;  // the pattern as given
  bool get(BoolFlag f) const;
  int64_t get(DurationFlag f) const;  // milliseconds
  int64_t get(IntFlag f) const;
  uint64_t get(BytesFlag f) const;

  // Where f's value came from: "default" | "file:line" | "env VAR" | "flag".
  const std::string& origin_of(FlagRef f) const;
  bool is_default(FlagRef f) const;  // no file, variable or argument set f
  // A subcommand's own default: sets f to value when f is still at the
  // table's default (its origin stays "default"). value must be valid for f.
  void replace_default(FlagRef f, std::string value);

  // f's value as text, unparsed: what app::collector_context hands the
  // collectors (CollectorContext::set_option), which parse it by kind.
  const std::string& raw(FlagRef f) const;

 private:
  friend Expected<Settings> load(const std::vector<std::string>& args, const std::vector<std::string>& env);

  std::map<std::string, std::string> values_;  // flag name -> value (every flag present)
  std::map<std::string, std::string> origin_;  // flag name -> origin, as origin_of()
};

// Parses YAML config text into flag name -> (value, line). Exposed for tests.
Expected<std::map<std::string, std::pair<std::string, int>>> parse_config_yaml(std::string_view text,
                                                                                  std::string_view file);

}  // namespace llmon::config
