// Parser for /proc/sys/fs/file-nr ("9216\t0\t9223372036854775807\n":
// allocated, free (always 0 since Linux 2.6), maximum), as node_exporter 1.5's
// filefd_linux.go reads it: the trimmed text split on tabs, fields 1 and 3 as
// Go's ParseFloat. Pure; no I/O.
#pragma once

#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct FileNr {
  double allocated = 0;
  double maximum = 0;
};

// Fewer than three tab-separated fields or a non-numeric field is an error
// naming `file` and line 1.
Expected<FileNr> parse_file_nr(std::string_view text, std::string_view file = "/proc/sys/fs/file-nr");

}  // namespace llmon::procfs
