// The flood (issue 18; node-problem-detector#1168's reader died under 56k
// lines in 3 s): a writer appends 100,000 kmsg records a second for 10 s to a
// file, with sequence gaps of a known total, while KmsgReader polls it in
// file mode. Every record must come out once, in order, and records +
// dropped must equal the sequence numbers spent. Then a fresh reader reads
// the whole file as fast as it can: the catch-up rate. Both rates are
// printed (docs/logwatch-kmsg.md quotes them).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "logwatch/kmsg_reader.h"
#include "logwatch/kmsg_test_dir.h"

namespace llmon::logwatch {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kRecords = 1'000'000;
constexpr uint64_t kPerSecond = 100'000;

// The sequence numbers skipped before record i: 1 to 5 before every 1000th record.
uint64_t gap_before(uint64_t i) {
  return i > 0 && i % 1000 == 0 ? (i / 1000) % 5 + 1 : 0;
}

std::string text_of(uint64_t i) {
  return "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus. flood " +
         std::to_string(i);
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST(KmsgFlood, HundredThousandRecordsASecondForTenSecondsNothingLost) {
  KmsgTestDir dir;
  const std::string path = dir.file("kmsg");
  kmsg_append(path, "");  // the file exists before the reader opens it
  uint64_t expected_gaps = 0;
  for (uint64_t i = 0; i < kRecords; ++i) expected_gaps += gap_before(i);

  std::atomic<uint64_t> written{0};
  std::atomic<bool> done{false};
  double writer_s = 0;
  std::thread writer([&] {
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return;
    Clock::time_point start = Clock::now();
    uint64_t i = 0, seq = 0;
    std::string batch;
    while (i < kRecords) {
      uint64_t due = std::min<uint64_t>(kRecords, static_cast<uint64_t>(seconds_since(start) * kPerSecond) + 1);
      batch.clear();
      for (; i < due; ++i) {
        seq += 1 + gap_before(i);
        batch += "4," + std::to_string(seq) + "," + std::to_string(seq * 10) + ",-;" + text_of(i) + "\n";
      }
      if (!batch.empty() && ::write(fd, batch.data(), batch.size()) != static_cast<ssize_t>(batch.size())) break;
      written.store(i, std::memory_order_release);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    writer_s = seconds_since(start);
    ::close(fd);
    done.store(true, std::memory_order_release);
  });

  auto opened = KmsgReader::open(path, "boot", {});
  ASSERT_TRUE(opened) << opened.error();
  KmsgReader& r = **opened;
  std::vector<KmsgRecord> out;
  uint64_t seen = 0, expected_seq = 0, max_backlog = 0, polls = 0;
  double busy_s = 0;
  bool in_order = true;
  for (;;) {
    bool writer_done = done.load(std::memory_order_acquire);
    max_backlog = std::max(max_backlog, written.load(std::memory_order_acquire) - std::min(seen, written.load()));
    out.clear();
    Clock::time_point t = Clock::now();
    Status s = r.poll(out);
    busy_s += seconds_since(t);
    ++polls;
    ASSERT_TRUE(s) << s.message();
    for (const KmsgRecord& rec : out) {
      expected_seq += 1 + gap_before(seen);
      if (in_order && (rec.seq != expected_seq || rec.text != text_of(seen))) {
        ADD_FAILURE() << "record " << seen << ": seq " << rec.seq << " (want " << expected_seq << "), text "
                      << rec.text;
        in_order = false;
      }
      ++seen;
    }
    if (out.empty()) {
      if (writer_done) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  writer.join();

  EXPECT_EQ(seen, kRecords);
  EXPECT_EQ(r.stats().records, kRecords);
  EXPECT_EQ(r.stats().dropped, expected_gaps);
  EXPECT_EQ(r.stats().records + r.stats().dropped, expected_seq);
  EXPECT_EQ(r.stats().malformed, 0u);
  EXPECT_TRUE(r.stats().up);

  // The catch-up rate: a fresh reader through the whole file.
  auto fresh = KmsgReader::open(path, "boot", {});
  ASSERT_TRUE(fresh) << fresh.error();
  Clock::time_point t = Clock::now();
  uint64_t caught_up = 0;
  do {
    out.clear();
    ASSERT_TRUE((*fresh)->poll(out));
    caught_up += out.size();
  } while (!out.empty());
  double catch_up_s = seconds_since(t);
  EXPECT_EQ(caught_up, kRecords);
  EXPECT_EQ((*fresh)->stats().dropped, expected_gaps);

  std::printf(
      "kmsg flood: writer %.0f records/s over %.2f s; reader kept up with %llu polls, busy %.2f s (%.0f records/s "
      "while busy), peak backlog %llu records; catch-up of %llu records in %.2f s = %.0f records/s\n",
      kRecords / writer_s, writer_s, static_cast<unsigned long long>(polls), busy_s, kRecords / busy_s,
      static_cast<unsigned long long>(max_backlog), static_cast<unsigned long long>(caught_up), catch_up_s,
      caught_up / catch_up_s);
  ::testing::Test::RecordProperty("catch_up_records_per_s",
                                  std::to_string(static_cast<long long>(caught_up / catch_up_s)));
}

}  // namespace
}  // namespace llmon::logwatch
