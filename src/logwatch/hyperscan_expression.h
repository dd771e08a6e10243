// A Matcher pattern (RE2 syntax, or a literal) rewritten for Hyperscan,
// which runs it as a prefilter only (matcher_hyperscan.cpp): named groups
// (?P<name>...) become (?:...) since Hyperscan rejects them and reports no
// groups anyway; a literal becomes its bytes escaped \xHH. Pure text work,
// built with or without Hyperscan.
//
// nullopt where Hyperscan could match fewer lines than RE2: a
// case-insensitive pattern with bytes outside ASCII (RE2 folds Latin-1
// letters, Hyperscan ASCII only). Such patterns stay with RE2. What
// Hyperscan itself rejects (\pL, (?U), \C ...) is found by compiling.
#pragma once

#include <optional>
#include <string>

#include "logwatch/matcher.h"

namespace llmon::logwatch {

std::optional<std::string> hyperscan_expression(const Pattern& p);

}  // namespace llmon::logwatch
