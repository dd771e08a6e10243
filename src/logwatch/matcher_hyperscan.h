// The Hyperscan Matcher (see matcher.h): one Hyperscan block-mode database
// of every pattern it takes (HS_FLAG_SINGLEMATCH: which patterns match, not
// where), then each hit pattern's RE2 to confirm it and take its groups.
// Patterns Hyperscan rejects run in an RE2::Set beside it; a pattern it can
// only approximate (HS_FLAG_PREFILTER) is confirmed by RE2 like any other.
// Scratch spaces come from a pool, so one Matcher serves several threads.
// Internal to src/logwatch/; callers use Matcher::build().
#pragma once

#include <memory>
#include <vector>

#include "base/status.h"
#include "logwatch/matcher.h"

namespace llmon::logwatch {

// True where llmon was built with Hyperscan (LLMON_HYPERSCAN).
bool hyperscan_built_in();

// An error where Hyperscan is not built in, or a pattern is not valid RE2.
Expected<std::unique_ptr<Matcher>> build_hyperscan_matcher(std::vector<Pattern> patterns);

}  // namespace llmon::logwatch
