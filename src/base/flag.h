// A flag as code names it: Flag<K> carries the flag's name and, in its type,
// its kind, so that a typed read (config::Settings::get(flag),
// collector::CollectorContext::option(flag)) returns the matching C++ type.
// Call sites use named constants (config/flag_names.h; the collectors' own in
// collector/options.h), never a name typed out: a misspelt constant does not
// compile. The types live in base so that modules below config (collector)
// can name their options; which flags exist, with their defaults and help,
// is config's flag table (flags.cpp), and tests check every constant against
// it. Names that must be built at run time (--collector.<name>) go
// through config::checked_flag() (config/flags.h), which fails naming the
// flag instead of yielding an empty value. Header-only, constexpr: no state.
#pragma once

#include <string_view>

namespace llmon::base {

enum class FlagKind { kString, kBool, kDuration, kInt, kRegex, kBytes };

// The kind as help and docs/cli.md print it ("string", "bool", "duration", ...).
constexpr std::string_view kind_name(FlagKind k) {
  switch (k) {
    case FlagKind::kString: return "string";
    case FlagKind::kBool: return "bool";
    case FlagKind::kDuration: return "duration";
    case FlagKind::kInt: return "int";
    case FlagKind::kRegex: return "regexp";
    case FlagKind::kBytes: return "bytes";
  }
  return "string";
}

// A flag's identity without its kind in the type: for code that handles every
// kind alike (origin of a value, the consistency checks of the table).
struct FlagRef {
  std::string_view name;  // without leading dashes, e.g. "web.listen-address"
  FlagKind kind = FlagKind::kString;
};

template <FlagKind K>
struct Flag : FlagRef {
  static constexpr FlagKind kKind = K;
  constexpr explicit Flag(std::string_view flag_name) : FlagRef{flag_name, K} {}
};

using StringFlag = Flag<FlagKind::kString>;
using BoolFlag = Flag<FlagKind::kBool>;
using DurationFlag = Flag<FlagKind::kDuration>;
using IntFlag = Flag<FlagKind::kInt>;
using RegexFlag = Flag<FlagKind::kRegex>;
using BytesFlag = Flag<FlagKind::kBytes>;

}  // namespace llmon::base
