// Parser for /etc/passwd (man 5 passwd): uid -> user name, as getpwuid(3)
// would answer from files only (no NSS, no LDAP). Pure; no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace llmon::procfs {

using UserNames = std::unordered_map<uint32_t, std::string>;

// Lines "name:password:uid:gid:gecos:home:shell". Comments, blank lines, NIS
// "+"/"-" entries and lines whose uid is not a number are skipped (never an
// error: the caller falls back to the numeric uid). The first line for a uid
// wins, as with getpwuid().
UserNames parse_passwd(std::string_view text);

}  // namespace llmon::procfs
