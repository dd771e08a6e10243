// Matcher: many patterns (regular expressions in RE2 syntax, or literals)
// compiled once and run against one line at a time; the multi-pattern engine
// behind the logwatch rules. Immutable after build(), so one Matcher may be
// shared by threads.
//
// match() reports every pattern that matches somewhere in the line
// (unanchored, as grep -E), in pattern order, with the pattern's named
// capture groups ((?P<name>...)) as they matched; a group that did not take
// part is absent. Lines are bytes: invalid UTF-8 and NUL bytes are matched
// as Latin-1 bytes, never an error.
//
// Two engines give the same results (tests/logwatch/matcher_diff_test.cpp):
// Hyperscan (matcher_hyperscan.cpp) finds which patterns match and RE2 then
// runs only those for their groups; patterns Hyperscan cannot compile run in
// an RE2::Set beside it. RE2 alone (matcher.cpp): an RE2::Set, then the same.
// Throughput of each against grep: docs/performance.md.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace llmon::logwatch {

struct Pattern {
  std::string text;      // the regular expression, or the literal
  bool literal = false;  // text is matched as is
  bool case_insensitive = false;
};

struct Match {
  size_t pattern = 0;  // index into the patterns given to build()
  std::vector<std::pair<std::string, std::string>> groups;  // named group -> text
};

enum class MatchEngine {
  kDefault,    // Hyperscan where llmon was built with it, else RE2
  kRe2,        // RE2::Set only
  kHyperscan,  // an error where llmon was built without it
};

class Matcher {
 public:
  // An error names the pattern (its index and text) that does not compile.
  static Expected<std::unique_ptr<Matcher>> build(std::vector<Pattern> patterns,
                                                  MatchEngine engine = MatchEngine::kDefault);
  static bool hyperscan_available();
  virtual ~Matcher() = default;
  virtual size_t size() const = 0;
  // "hyperscan" or "re2".
  virtual std::string_view engine() const = 0;
  // Patterns the engine could not take, run by RE2 beside it (0 for RE2).
  virtual size_t fallback_patterns() const { return 0; }
  // Appends the matches of line to out (cleared first).
  virtual void match(std::string_view line, std::vector<Match>& out) const = 0;
  // True when no pattern matches (the fast path most lines take).
  virtual bool matches_none(std::string_view line) const = 0;
};

}  // namespace llmon::logwatch
