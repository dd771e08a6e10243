// The delivery queue's file format on literal bytes: record layout, CRC-32C,
// and recovery from a torn tail or a flipped bit anywhere in a small file.
#include <gtest/gtest.h>

#include <random>

#include "notify/delivery/queue_file.h"

namespace llmon::notify::queue_file {
namespace {

using namespace std::string_literals;

TEST(QueueFile, Crc32cCheckValue) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(""), 0u);
  // Chaining equals one pass.
  EXPECT_EQ(crc32c("6789", crc32c("12345")), 0xE3069283u);
}

TEST(QueueFile, RecordBytes) {
  // Expected bytes computed independently (Python, bitwise CRC-32C).
  EXPECT_EQ(encode_ack(5, AckReason::kDelivered),
            "\x0a\x00\x00\x00\x6c\xcc\x5d\x3e\x02\x05\x00\x00\x00\x00\x00\x00\x00\x01"s);
  EXPECT_EQ(encode_job(JobRecord{7, 1714564800000, 2, "wh", "k", "abc"}),
            "\x27\x00\x00\x00\x07\xcc\x9f\xc0\x01\x07\x00\x00\x00\x00\x00\x00\x00\x00\x9e\x06\x34\x8f\x01\x00\x00"
            "\x02\x00\x00\x00\x02\x00\x00\x00\x77\x68\x01\x00\x00\x00\x6b\x03\x00\x00\x00\x61\x62\x63"s);
  EXPECT_EQ(encode_attempt(7, 4),
            "\x0d\x00\x00\x00\xed\x22\x89\xb7\x03\x07\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00"s);
}

TEST(QueueFile, EmptyAndHeaderOnly) {
  ScanResult r = scan("");
  EXPECT_TRUE(r.live.empty());
  EXPECT_EQ(r.corrupt_bytes, 0u);
  EXPECT_TRUE(r.problems.empty());
  r = scan(kMagic);
  EXPECT_TRUE(r.live.empty());
  EXPECT_EQ(r.corrupt_bytes, 0u);
  EXPECT_TRUE(r.problems.empty());
}

// A small file: J1, J2, attempt(J1)=3, ack(J2), J3.
struct SmallFile {
  std::string bytes;
  std::vector<size_t> ends;  // end offset of each record; ends[0] is the header
  std::vector<JobRecord> jobs;
  SmallFile() {
    jobs = {JobRecord{1, 1000, 0, "team-a", "webhook", "{\"payload\":1}"},
            JobRecord{2, 2000, 0, "team-b", "exec", std::string("bin\0ary\xff", 8)},
            JobRecord{3, 3000, 0, "team-a", "webhook", "third"}};
    bytes = std::string(kMagic);
    ends.push_back(bytes.size());
    for (const std::string& rec : {encode_job(jobs[0]), encode_job(jobs[1]), encode_attempt(1, 3),
                                   encode_ack(2, AckReason::kDelivered), encode_job(jobs[2])}) {
      bytes += rec;
      ends.push_back(bytes.size());
    }
  }
};

// Live jobs when exactly the records in `have` (indices 0..4 into the list
// above) survived.
std::vector<JobRecord> expected_live(const SmallFile& f, const std::vector<bool>& have) {
  std::vector<JobRecord> out;
  if (have[0]) {
    JobRecord j = f.jobs[0];
    if (have[2]) j.attempts = 3;
    out.push_back(j);
  }
  if (have[1] && !have[3]) out.push_back(f.jobs[1]);
  if (have[4]) out.push_back(f.jobs[2]);
  return out;
}

void expect_jobs(const std::vector<JobRecord>& got, const std::vector<JobRecord>& want, const std::string& ctx) {
  ASSERT_EQ(got.size(), want.size()) << ctx;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, want[i].id) << ctx;
    EXPECT_EQ(got[i].created_ms, want[i].created_ms) << ctx;
    EXPECT_EQ(got[i].attempts, want[i].attempts) << ctx;
    EXPECT_EQ(got[i].target, want[i].target) << ctx;
    EXPECT_EQ(got[i].kind, want[i].kind) << ctx;
    EXPECT_EQ(got[i].payload, want[i].payload) << ctx;
  }
}

TEST(QueueFile, CleanFile) {
  SmallFile f;
  ScanResult r = scan(f.bytes);
  expect_jobs(r.live, expected_live(f, {true, true, true, true, true}), "clean");
  EXPECT_EQ(r.records, 5u);
  EXPECT_EQ(r.acked, 1u);
  EXPECT_EQ(r.max_id, 3u);
  EXPECT_EQ(r.corrupt_bytes, 0u);
  EXPECT_TRUE(r.problems.empty());
}

TEST(QueueFile, TruncatedAtEveryLength) {
  SmallFile f;
  for (size_t len = 0; len <= f.bytes.size(); ++len) {
    const std::string ctx = "length " + std::to_string(len);
    ScanResult r = scan(std::string_view(f.bytes).substr(0, len));
    std::vector<bool> have(5, false);
    size_t good_end = len < kMagic.size() ? 0 : kMagic.size();
    for (size_t k = 0; k < 5; ++k)
      if (f.ends[k + 1] <= len) {
        have[k] = true;
        good_end = f.ends[k + 1];
      }
    expect_jobs(r.live, expected_live(f, have), ctx);
    EXPECT_EQ(r.corrupt_bytes, len - good_end) << ctx;
    EXPECT_EQ(r.torn_tail_bytes, len - good_end) << ctx;
    EXPECT_EQ(r.problems.empty(), len == good_end) << ctx;
  }
}

TEST(QueueFile, BitFlipAtEveryOffsetLosesOnlyThatRecord) {
  SmallFile f;
  for (size_t off = 0; off < f.bytes.size(); ++off) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = f.bytes;
      damaged[off] = static_cast<char>(damaged[off] ^ (1 << bit));
      const std::string ctx = "offset " + std::to_string(off) + " bit " + std::to_string(bit);
      ScanResult r = scan(damaged);
      ASSERT_FALSE(r.problems.empty()) << ctx;
      if (off < kMagic.size()) {
        expect_jobs(r.live, expected_live(f, {true, true, true, true, true}), ctx);
        EXPECT_EQ(r.corrupt_bytes, kMagic.size()) << ctx;
        continue;
      }
      size_t hit = 0;
      while (f.ends[hit + 1] <= off) ++hit;
      std::vector<bool> have(5, true);
      have[hit] = false;
      expect_jobs(r.live, expected_live(f, have), ctx);
      const size_t record_size = f.ends[hit + 1] - f.ends[hit];
      EXPECT_EQ(r.corrupt_bytes, record_size) << ctx;
      EXPECT_EQ(r.torn_tail_bytes, hit == 4 ? record_size : 0) << ctx;
      EXPECT_EQ(r.records, 4u) << ctx;
    }
  }
}

TEST(QueueFile, GarbageBetweenRecordsIsSkipped) {
  SmallFile f;
  std::string bytes = f.bytes.substr(0, f.ends[1]) + "GARBAGE\x00\x01\xff"s + f.bytes.substr(f.ends[1]);
  ScanResult r = scan(bytes);
  expect_jobs(r.live, expected_live(f, {true, true, true, true, true}), "garbage");
  EXPECT_EQ(r.corrupt_bytes, 10u);
  EXPECT_EQ(r.torn_tail_bytes, 0u);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("offset " + std::to_string(f.ends[1])), std::string::npos) << r.problems[0];
}

TEST(QueueFile, RandomBytesNeverCrash) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200; ++i) {
    std::string junk(rng() % 512, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (i % 2) junk = std::string(kMagic) + junk;
    ScanResult r = scan(junk);
    EXPECT_LE(r.corrupt_bytes, junk.size());
  }
}

TEST(QueueFile, AckForUnknownIdAndDuplicateJobIgnored) {
  SmallFile f;
  std::string bytes = f.bytes + encode_ack(99, AckReason::kFailed) + encode_job(f.jobs[0]);
  ScanResult r = scan(bytes);
  expect_jobs(r.live, expected_live(f, {true, true, true, true, true}), "dup");
  EXPECT_EQ(r.max_id, 99u);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("duplicate job id 1"), std::string::npos);
}

}  // namespace
}  // namespace llmon::notify::queue_file
