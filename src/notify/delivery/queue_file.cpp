// Delivery queue records; the format is described in queue_file.h.
#include "notify/delivery/queue_file.h"

#include <array>
#include <unordered_map>

namespace llmon::notify::queue_file {
namespace {

constexpr size_t kMaxProblems = 8;

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}

constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_str(std::string& out, std::string_view s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}

uint64_t get_le(std::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(s[at + i])) << (8 * i);
  return v;
}

std::string frame(const std::string& body) {
  std::string out;
  out.reserve(kRecordHeader + body.size());
  put_u32(out, static_cast<uint32_t>(body.size()));
  const uint32_t crc = crc32c(body, crc32c(std::string_view(out.data(), 4)));
  put_u32(out, crc);
  out += body;
  return out;
}

// A decoded body.
struct Record {
  RecordType type{};
  uint64_t id = 0;
  uint32_t attempts = 0;
  AckReason reason{};
  JobRecord job;
};

bool decode_body(std::string_view b, Record& r) {
  if (b.empty()) return false;
  const auto type = static_cast<uint8_t>(b[0]);
  size_t pos = 1;
  auto need = [&](size_t n) { return b.size() - pos >= n; };
  auto str = [&](std::string& out) {
    if (!need(4)) return false;
    const uint64_t n = get_le(b, pos, 4);
    pos += 4;
    if (!need(n)) return false;
    out.assign(b.substr(pos, n));
    pos += n;
    return true;
  };
  if (!need(8)) return false;
  r.id = get_le(b, pos, 8);
  pos += 8;
  switch (type) {
    case static_cast<uint8_t>(RecordType::kJob):
      r.type = RecordType::kJob;
      if (!need(12)) return false;
      r.job.id = r.id;
      r.job.created_ms = static_cast<int64_t>(get_le(b, pos, 8));
      r.job.attempts = static_cast<uint32_t>(get_le(b, pos + 8, 4));
      pos += 12;
      if (!str(r.job.target) || !str(r.job.kind) || !str(r.job.payload)) return false;
      break;
    case static_cast<uint8_t>(RecordType::kAck): {
      r.type = RecordType::kAck;
      if (!need(1)) return false;
      const auto reason = static_cast<uint8_t>(b[pos++]);
      if (reason < 1 || reason > 4) return false;
      r.reason = static_cast<AckReason>(reason);
      break;
    }
    case static_cast<uint8_t>(RecordType::kAttempt):
      r.type = RecordType::kAttempt;
      if (!need(4)) return false;
      r.attempts = static_cast<uint32_t>(get_le(b, pos, 4));
      pos += 4;
      break;
    default:
      return false;
  }
  return pos == b.size();
}

// Decodes the record at `at`; its total size, or 0 (with why) if none starts there.
size_t record_at(std::string_view file, size_t at, Record& r, const char** why) {
  if (file.size() - at < kRecordHeader) {
    *why = "incomplete record header";
    return 0;
  }
  const uint64_t len = get_le(file, at, 4);
  if (len == 0 || len > kMaxRecordBody) {
    *why = "implausible record length";
    return 0;
  }
  if (file.size() - at - kRecordHeader < len) {
    *why = "record runs past the end of the file";
    return 0;
  }
  const std::string_view body = file.substr(at + kRecordHeader, len);
  const auto stored = static_cast<uint32_t>(get_le(file, at + 4, 4));
  if (crc32c(body, crc32c(file.substr(at, 4))) != stored) {
    *why = "checksum mismatch";
    return 0;
  }
  r = Record{};
  if (!decode_body(body, r)) {
    *why = "malformed record body";
    return 0;
  }
  return kRecordHeader + len;
}

}  // namespace

uint32_t crc32c(std::string_view data, uint32_t crc) {
  crc = ~crc;
  for (char ch : data) crc = kCrcTable[(crc ^ static_cast<uint8_t>(ch)) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

std::string encode_job(const JobRecord& job) {
  std::string body;
  body.reserve(1 + 8 + 12 + 12 + job.target.size() + job.kind.size() + job.payload.size());
  body += static_cast<char>(RecordType::kJob);
  put_u64(body, job.id);
  put_u64(body, static_cast<uint64_t>(job.created_ms));
  put_u32(body, job.attempts);
  put_str(body, job.target);
  put_str(body, job.kind);
  put_str(body, job.payload);
  return frame(body);
}

std::string encode_ack(uint64_t id, AckReason reason) {
  std::string body;
  body += static_cast<char>(RecordType::kAck);
  put_u64(body, id);
  body += static_cast<char>(reason);
  return frame(body);
}

std::string encode_attempt(uint64_t id, uint32_t attempts) {
  std::string body;
  body += static_cast<char>(RecordType::kAttempt);
  put_u64(body, id);
  put_u32(body, attempts);
  return frame(body);
}

ScanResult scan(std::string_view file) {
  ScanResult res;
  if (file.empty()) return res;
  auto problem = [&](std::string text) {
    if (res.problems.size() < kMaxProblems) res.problems.push_back(std::move(text));
  };
  size_t pos = 0;
  if (file.size() < kMagic.size()) {
    res.corrupt_bytes = res.torn_tail_bytes = file.size();
    problem("offset 0: file shorter than its header (" + std::to_string(file.size()) + " bytes); dropped");
    return res;
  }
  if (file.substr(0, kMagic.size()) != kMagic) {
    res.corrupt_bytes += kMagic.size();
    problem("offset 0: bad file header; records after it are still read");
  }
  pos = kMagic.size();

  std::vector<JobRecord> jobs;                 // every job seen, in order
  std::unordered_map<uint64_t, size_t> index;  // id -> position in jobs
  std::vector<bool> acked;
  Record r;
  while (pos < file.size()) {
    const char* why = nullptr;
    size_t n = record_at(file, pos, r, &why);
    if (n == 0) {
      // Resynchronise: the next offset where a whole valid record starts.
      size_t next = pos + 1;
      const char* ignored = nullptr;
      while (next < file.size() && record_at(file, next, r, &ignored) == 0) ++next;
      const size_t skipped = next - pos;
      res.corrupt_bytes += skipped;
      if (next >= file.size()) {
        res.torn_tail_bytes = skipped;
        problem("offset " + std::to_string(pos) + ": " + why + "; torn tail of " + std::to_string(skipped) +
                " bytes dropped");
        break;
      }
      problem("offset " + std::to_string(pos) + ": " + why + "; skipped " + std::to_string(skipped) + " corrupt bytes");
      pos = next;
      n = record_at(file, pos, r, &ignored);
    }
    pos += n;
    ++res.records;
    res.max_id = std::max(res.max_id, r.id);
    switch (r.type) {
      case RecordType::kJob:
        if (index.count(r.id) != 0) {
          problem("offset " + std::to_string(pos - n) + ": duplicate job id " + std::to_string(r.id) + "; ignored");
          break;
        }
        index[r.id] = jobs.size();
        jobs.push_back(std::move(r.job));
        acked.push_back(false);
        break;
      case RecordType::kAck:
        if (auto it = index.find(r.id); it != index.end() && !acked[it->second]) {
          acked[it->second] = true;
          ++res.acked;
        }
        break;
      case RecordType::kAttempt:
        if (auto it = index.find(r.id); it != index.end()) jobs[it->second].attempts = r.attempts;
        break;
    }
  }
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!acked[i]) res.live.push_back(std::move(jobs[i]));
  return res;
}

}  // namespace llmon::notify::queue_file
