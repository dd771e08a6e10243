// On-disk format of the persistent delivery queue (delivery_queue.h): an
// append-only log of job, attempt and ack records. Pure encode/scan
// functions only; the DeliveryQueue owns the file. Scanning never fails: a
// torn tail or corrupt bytes are skipped, counted and described, and every
// record that still checks out is kept.
//
// The format (magic, record framing with CRC-32C, the job / ack / attempt
// bodies, how scanning repairs) is specified in docs/format/notify-queue.md;
// keep the two in sync.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::notify::queue_file {

inline constexpr std::string_view kMagic = "LLMDQ01\n";
inline constexpr uint32_t kMaxRecordBody = 64u << 20;
inline constexpr size_t kRecordHeader = 8;

enum class RecordType : uint8_t { kJob = 1, kAck = 2, kAttempt = 3 };
enum class AckReason : uint8_t { kDelivered = 1, kFailed = 2, kExpired = 3, kEvicted = 4 };

struct JobRecord {
  uint64_t id = 0;
  int64_t created_ms = 0;
  uint32_t attempts = 0;
  std::string target;
  std::string kind;
  std::string payload;
};

// CRC-32C (Castagnoli, reflected 0x82F63B78), as in iSCSI/ext4: crc32c("123456789") == 0xE3069283.
uint32_t crc32c(std::string_view data, uint32_t crc = 0);

// Complete framed records (header + body).
std::string encode_job(const JobRecord& job);
std::string encode_ack(uint64_t id, AckReason reason);
std::string encode_attempt(uint64_t id, uint32_t attempts);

struct ScanResult {
  std::vector<JobRecord> live;        // unacked jobs in file order, attempt records applied
  uint64_t max_id = 0;                // highest id in any valid record
  size_t records = 0;                 // valid records read
  size_t acked = 0;                   // jobs acked in the file
  uint64_t corrupt_bytes = 0;         // bytes not part of a valid record (bad magic included)
  uint64_t torn_tail_bytes = 0;       // of those, the run that reached the end of the file
  std::vector<std::string> problems;  // "offset N: what; skipped M bytes", first few
};

// Reads a whole queue file. An empty input is an empty queue.
ScanResult scan(std::string_view file);

}  // namespace llmon::notify::queue_file
