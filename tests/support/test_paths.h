// Paths tests need: the source tree (fixtures, golden files) and the built binary.
#pragma once

#include <string>

namespace llmon::testing {

std::string source_dir();
std::string fixture(const std::string& rel);  // tests/fixtures/<rel>
std::string llmon_binary();
// The executable `name` found on $PATH (as a shell would), or "" if absent:
// tests that need a real tool (promtool, amtool) skip with the reason then.
std::string find_program(const std::string& name);
// True when LLMON_UPDATE_GOLDEN=1: golden tests rewrite their files.
bool update_golden();

}  // namespace llmon::testing
