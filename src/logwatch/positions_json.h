// Positions <-> JSON: what the watcher commits with each batch of events
// (event_journal.h's opaque positions string), so that a restarted agent
// continues every file and the kernel log where the committed events end.
//
//   {"files": [{"path": "...", "dev": 2049, "ino": 131, "offset": 4096,
//               "head_len": 256, "head_crc": 1234, "tail_len": 256, "tail_crc": 5678,
//               "saved_ms": 1764700000000, "mtime_ns": 1764700000000000000,
//               "draining": false, "done": [[dev, ino, size, mtime_ns], ...]}],
//    "kmsg": {"boot_id": "8c0f...", "seq": 1234}}
//
// "kmsg" is absent while nothing was read from the kernel log in this boot.
// Pure: no I/O. A path that is not UTF-8 is written with U+FFFD (such a file
// is then not recognised after a restart and is read as a new file).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "logwatch/file_cursor.h"
#include "logwatch/kmsg_reader.h"

namespace llmon::logwatch {

struct Positions {
  std::vector<FileCursor> files;
  KmsgCursor kmsg;  // valid = false: none
};

std::string encode_positions(const Positions& p);
// "" decodes to no positions. An error names the field that is wrong.
Expected<Positions> decode_positions(std::string_view json);

}  // namespace llmon::logwatch
