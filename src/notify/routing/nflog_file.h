// The dispatcher's notification log on disk, so that a restarted agent does
// not notify again what it already notified (Alertmanager keeps its nflog on
// disk for the same reason). One JSON document, rewritten atomically (temp
// file, fsync, rename, fsync of the directory) after every change:
//   {"version":1,"entries":[{"key":"<group key + receiver + integration>",
//     "ts":<unix ms>,"firing":[<fingerprint>...],"resolved":[...]}]}
// Fingerprints are the alerts' label-set fingerprints (route.h). A file that
// does not parse is renamed to <file>.corrupt-<ms> and reported; the log then
// starts empty (at worst one repeated notification per group).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/atomic_file.h"
#include "base/status.h"

namespace llmon::notify {

struct NflogEntry {
  std::vector<uint64_t> firing;    // sorted label fingerprints
  std::vector<uint64_t> resolved;  // sorted
  int64_t timestamp_ms = 0;
};

using Nflog = std::unordered_map<std::string, NflogEntry>;

std::string encode_nflog(const Nflog& log);
// Errors name what is wrong ("entry 3: ...").
Expected<Nflog> decode_nflog(std::string_view text);

// Writes `bytes` to `path` atomically (base/atomic_file.h; also used for the
// silences file).
using base::write_file_atomic;
// Reads the log at `path`; a missing file is an empty log. A corrupt one is
// moved aside (see above) and the error says so; the result is then empty.
Expected<Nflog> load_nflog(const std::string& path, int64_t now_ms);

}  // namespace llmon::notify
