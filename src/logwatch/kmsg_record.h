// KmsgRecord and its parser: one record of the kernel log as /dev/kmsg hands
// it out (docs/logwatch-kmsg.md; the kernel's Documentation/ABI/testing/dev-kmsg).
// Pure: no I/O, no state; the reader (kmsg_reader.h) owns the device.
//
//   PRIO,SEQ,TS_USEC,FLAGS[,MORE...];TEXT\n
//    KEY=value\n            (dictionary lines, each led by one space)
//
// PRIO is facility << 3 | level. FLAGS is '-', or 'c' / '+' for a
// continuation fragment (older kernels). Fields after FLAGS (",caller=T1")
// are ignored. TEXT and values escape bytes < 0x20, >= 0x7f and '\' as \xNN;
// the parser decodes them, so text holds the bytes the kernel logged:
// invalid UTF-8, NUL and other binary bytes are kept as they are.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace llmon::logwatch {

struct KmsgRecord {
  int priority = 0;                                       // the level: 0 emerg ... 7 debug (PRIO & 7)
  int facility = 0;                                       // PRIO >> 3: 0 kern, 1 user, 3 daemon, ...
  uint64_t seq = 0;                                       // the kernel's 64-bit record sequence number
  int64_t usec = 0;                                       // microseconds since boot (CLOCK_MONOTONIC)
  bool continuation = false;                              // FLAGS 'c' or '+'
  std::string text;                                       // decoded message bytes, no trailing newline
  std::vector<std::pair<std::string, std::string>> dict;  // " SUBSYSTEM=pci" -> {"SUBSYSTEM","pci"}, in order
};

// The largest PRIO accepted: facility up to 127 (the kernel's LOG_FACMASK), level 0-7.
inline constexpr int kKmsgMaxPrio = 1023;

// Parses one record (one read() of /dev/kmsg, or one record of a kmsg file:
// the header line and its dictionary lines; a trailing newline is optional).
// The error names the field that is wrong ("kmsg record: seq \"x1\" is not a
// number").
Expected<KmsgRecord> parse_kmsg_record(std::string_view raw);

// Decodes the kernel's \xNN escapes; a '\' not followed by 'x' and two hex
// digits is kept as it is. Appends to out.
void decode_kmsg_escapes(std::string_view in, std::string& out);

}  // namespace llmon::logwatch
