// Pure pieces of node_exporter 1.5's bcache collector (its procfs' bcache
// package), which reads /sys/fs/bcache/<uuid>/ file by file: how one value
// file's text becomes a number (bcache prints sizes with the kernel's
// bch_hprint: "1.5M", "-212.4M", "0.0k"), and the two multi-line files,
// <bdev>/writeback_rate_debug and <cache>/priority_stats. Errors name the
// file (and line).
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

// procfs' dehumanize(): a trailing byte above '9' is a binary multiplier
// (k M G T P E Z Y: 2^10 .. 2^80; any other: 0) and the rest bch_hprint's
// "int.frac" pseudo-float, whose fraction digits are divided by 10.24 ("1.5M"
// is 1.48828125 MiB); without a multiplier the text is a Go float. The
// product is truncated to uint64 as Go does on amd64 (negative values wrap,
// values from 2^63 up give 2^63). `what` names the text in errors.
Expected<uint64_t> bcache_dehumanize(std::string_view text, std::string_view what);
// dehumanizeSigned(): a leading '-' negates.
Expected<int64_t> bcache_dehumanize_signed(std::string_view text, std::string_view what);

// A value file's contents as procfs reads them: the last byte (the newline)
// dropped, the rest dehumanized. An empty file is an error naming `file`.
Expected<uint64_t> parse_bcache_value(std::string_view file_text, std::string_view file);

// <bdev>/writeback_rate_debug ("rate:\t\t2.1M/sec", "dirty:", "target:",
// "proportional:", "integral:", "change:\t\t0.0k/sec", "next io:\t-1305ms").
// Lines are matched by prefix and read from their last field; other lines
// are ignored, a missing line reads 0.
struct BcacheWritebackRateDebug {
  uint64_t rate = 0, dirty = 0, target = 0;
  int64_t proportional = 0, integral = 0, change = 0, next_io_ms = 0;
};
Status parse_bcache_writeback_rate_debug(std::string_view text, std::string_view file, BcacheWritebackRateDebug& out);

// <cache>/priority_stats: the "Unused:" and "Metadata:" lines' last field, a
// decimal percentage ("13%"); other lines are ignored.
struct BcachePriorityStats {
  uint64_t unused_percent = 0, metadata_percent = 0;
};
Status parse_bcache_priority_stats(std::string_view text, std::string_view file, BcachePriorityStats& out);

}  // namespace llmon::procfs
