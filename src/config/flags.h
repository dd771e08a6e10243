// The one table of llmon's flags. Each entry ties a flag name to its
// environment variable (LLMON_ + upper-cased name, '.'/'-' -> '_'), its config
// file key (the same dotted name, nested YAML maps allowed), its default, its
// help text and the subcommands that read it. docs/cli.md is generated from
// this table (`llmon help --markdown`); a test fails when the doc is stale.
// Collector switches (--collector.<name>) are added from the collector registry.
// Code reads values through the constants of flag_names.h; checked_flag() is
// the one way to name a flag at run time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/flag.h"

namespace llmon::config {

struct FlagSpec {
  std::string name;  // without leading dashes, e.g. "web.listen-address"
  FlagKind kind = FlagKind::kString;
  std::string default_value;
  std::string help;
  std::vector<std::string> commands;  // subcommands reading it; empty = all
  // Given more than once (or as a YAML list), the values are joined with
  // ','; otherwise the last one wins.
  bool repeatable = false;
};

std::string env_name(std::string_view flag);  // "web.listen-address" -> "LLMON_WEB_LISTEN_ADDRESS"

// The full table: static flags plus one --collector.<name> per built-in collector.
const std::vector<FlagSpec>& flag_table();
const FlagSpec* find_flag(std::string_view name);

// A flag named at run time, checked against the table: an error naming it
// ("unknown flag --x", or its kind when that differs from the one asked for)
// instead of an empty value. The name views the table's own copy (lives as
// long as the program).
Expected<FlagRef> checked_flag(std::string_view name, FlagKind kind);
template <FlagKind K>
Expected<Flag<K>> checked_flag(std::string_view name) {
  auto f = checked_flag(name, K);
  if (!f) return f.status();
  return Flag<K>(f->name);
}
// "collector.<name>": the flag switching a built-in collector on or off.
std::string collector_switch_name(std::string_view collector);
// The checked switch of a collector ("unknown flag --collector.x" when the
// registry has no such collector).
inline Expected<BoolFlag> collector_switch(std::string_view collector) {
  return checked_flag<FlagKind::kBool>(collector_switch_name(collector));
}

// Parses "1s", "500ms", "2m", "1h30m" (Prometheus duration syntax) into milliseconds.
Expected<int64_t> parse_duration_ms(std::string_view s);
Expected<bool> parse_bool(std::string_view s);
// Parses a byte size as Prometheus's --storage.tsdb.retention.size does: an
// integer with an optional unit B, KB, MB, GB, TB, PB, EB (powers of 1024;
// KiB... accepted too); "0" = none.
Expected<uint64_t> parse_bytes(std::string_view s);

}  // namespace llmon::config
