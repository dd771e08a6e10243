#include "procfs/scsi_tape.h"

#include "go/strconv.h"
#include "procfs/thermal.h"

namespace llmon::procfs {
namespace {

constexpr TapeStat kStats[] = {
    {"in_flight", "io_now", "The number of I/Os currently outstanding to this device.", false, false},
    {"io_ns", "io_time_seconds_total",
     "The amount of time spent waiting for all I/O to complete (including read and write). This includes tape "
     "movement commands such as seeking between file or set marks and implicit tape movement such as when rewind "
     "on close tape devices are used.",
     true, true},
    {"other_cnt", "io_others_total",
     "The number of I/Os issued to the tape drive other than read or write commands. The time taken to complete "
     "these commands uses the following calculation io_time_seconds_total-read_time_seconds_total-write_time_"
     "seconds_total",
     true, false},
    {"read_byte_cnt", "read_bytes_total", "The number of bytes read from the tape drive.", true, false},
    {"read_cnt", "reads_completed_total", "The number of read requests issued to the tape drive.", true, false},
    {"read_ns", "read_time_seconds_total", "The amount of time spent waiting for read requests to complete.", true,
     true},
    {"resid_cnt", "residual_total",
     "The number of times during a read or write we found the residual amount to be non-zero. This should mean "
     "that a program is issuing a read larger thean the block size on tape. For write not all data made it to "
     "tape.",
     true, false},
    {"write_byte_cnt", "written_bytes_total", "The number of bytes written to the tape drive.", true, false},
    {"write_cnt", "writes_completed_total", "The number of write requests issued to the tape drive.", true, false},
    {"write_ns", "write_time_seconds_total", "The amount of time spent waiting for write requests to complete.", true,
     true},
};

}  // namespace

std::span<const TapeStat> tape_stats() {
  return kStats;
}

bool is_scsi_tape_device(std::string_view name) {
  if (name.size() < 3 || name.substr(0, 2) != "st") return false;
  for (char c : name.substr(2))
    if (c < '0' || c > '9') return false;
  return true;
}

std::optional<uint64_t> parse_tape_stat(std::string_view text) {
  return go::parse_uint(sysfs_trimmed(text));
}

}  // namespace llmon::procfs
