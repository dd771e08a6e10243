// Event: one log occurrence a rule matched, as the logwatch pipeline hands it
// on (to the event journal, the counters, the forwarders, GPU health).
// Plain data, no I/O. Times are milliseconds since the Unix epoch.
//
// A deduplicated burst is one Event with repeat > 1: first_ms is the first
// occurrence, time_ms the last one, and lines the first occurrence's lines.
// A multi-line group (a Python traceback) is one Event whose lines are the
// group's lines in order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::logwatch {

enum class Severity { kInfo, kWarning, kError, kCritical };

// "info", "warning", "error", "critical".
const char* severity_name(Severity s);
// Parses the names above (and "warn", "crit"); false when unknown.
bool parse_severity(std::string_view text, Severity& out);

struct Event {
  uint64_t id = 0;            // unique per agent; a dedup update repeats its event's id
  int64_t time_ms = 0;        // when the (last) occurrence was read or logged
  int64_t first_ms = 0;       // the first occurrence of a deduplicated burst
  std::string source;         // "kmsg", or the file's path
  std::string rule;           // the rule's name ("cuda_oom", "xid")
  Severity severity = Severity::kInfo;
  std::map<std::string, std::string> labels;  // the rule's labels and its named groups
  std::vector<std::string> lines;             // the matched line, or the grouped lines
  uint64_t repeat = 1;                         // occurrences folded into this event
};

}  // namespace llmon::logwatch
