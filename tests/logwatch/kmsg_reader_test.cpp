// KmsgReader in file mode: a regular file of kmsg records read as it grows,
// the resume cursor, boot ids, sequence gaps, malformed records and partial
// lines. (The real /dev/kmsg: kmsg_device_test.cpp; the flood:
// kmsg_flood_test.cpp.)
#include "logwatch/kmsg_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/clock.h"
#include "logwatch/kmsg_test_dir.h"

namespace llmon::logwatch {
namespace {

using namespace std::string_literals;

std::string rec(uint64_t seq, const std::string& text) {
  return "6," + std::to_string(seq) + "," + std::to_string(seq * 1000) + ",-;" + text + "\n";
}

std::string recs(uint64_t from, uint64_t to) {
  std::string out;
  for (uint64_t s = from; s <= to; ++s) out += rec(s, "record " + std::to_string(s));
  return out;
}

std::vector<uint64_t> seqs(const std::vector<KmsgRecord>& v) {
  std::vector<uint64_t> out;
  for (const auto& r : v) out.push_back(r.seq);
  return out;
}

std::unique_ptr<KmsgReader> open_ok(const std::string& path, const std::string& boot, KmsgCursor resume = {},
                                    const base::Clock* clock = nullptr) {
  auto r = KmsgReader::open(path, boot, std::move(resume), clock);
  EXPECT_TRUE(r) << r.error();
  return r ? std::move(*r) : nullptr;
}

class KmsgFileReader : public ::testing::Test {
 protected:
  KmsgTestDir dir_;
  std::string path_ = dir_.file("kmsg");
};

TEST_F(KmsgFileReader, ReadsTheFileAsItGrows) {
  kmsg_append(path_, recs(1, 3));
  base::ManualClock clock(5000);
  auto r = open_ok(path_, "boot-a", {}, &clock);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->is_device());
  EXPECT_GE(r->fd(), 0);
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(out[1].text, "record 2");
  EXPECT_EQ(out[1].usec, 2000);
  EXPECT_EQ(r->stats().last_read_ms, 5000);
  EXPECT_TRUE(r->stats().up);

  out.clear();
  clock.set_ms(6000);
  ASSERT_TRUE(r->poll(out));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(r->stats().last_read_ms, 6000);  // a poll that found nothing new still proves the reader alive

  kmsg_append(path_, recs(4, 5));
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{4, 5}));
  EXPECT_EQ(r->stats().records, 5u);
  EXPECT_EQ(r->stats().dropped, 0u);
  KmsgCursor c = r->cursor();
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.boot_id, "boot-a");
  EXPECT_EQ(c.seq, 5u);
}

TEST_F(KmsgFileReader, APartialLastLineWaitsForItsNewline) {
  kmsg_append(path_, rec(1, "one") + "6,2,2000,-;tw");
  auto r = open_ok(path_, "b");
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{1}));
  kmsg_append(path_, "o");
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(out.size(), 1u);
  kmsg_append(path_, "\n");
  ASSERT_TRUE(r->poll(out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].text, "two");
  EXPECT_EQ(r->stats().malformed, 0u);
}

TEST_F(KmsgFileReader, DictionaryLinesBelongToTheRecordBeforeThem) {
  kmsg_append(path_,
              "3,1,10,-;pcieport 0000:00:01.0: AER: Corrected error message received from 0000:3b:00.0\n"
              " SUBSYSTEM=pci\n DEVICE=+pci:0000:00:01.0\n" +
                  rec(2, "plain") + "6,3,30,c;usb 1-1: new device\n SUBSYS");
  auto r = open_ok(path_, "b");
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  ASSERT_EQ(out.size(), 2u);  // record 3's dictionary line is not whole yet: record 3 waits
  EXPECT_EQ(out[0].dict,
            (std::vector<std::pair<std::string, std::string>>{{"SUBSYSTEM", "pci"}, {"DEVICE", "+pci:0000:00:01.0"}}));
  EXPECT_TRUE(out[1].dict.empty());
  kmsg_append(path_, "TEM=usb\n");
  ASSERT_TRUE(r->poll(out));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[2].continuation);
  EXPECT_EQ(out[2].dict, (std::vector<std::pair<std::string, std::string>>{{"SUBSYSTEM", "usb"}}));
}

TEST_F(KmsgFileReader, ResumesAfterTheCursorOfTheSameBoot) {
  kmsg_append(path_, recs(1, 10));
  KmsgCursor cursor;
  {
    auto r = open_ok(path_, "boot-a");
    std::vector<KmsgRecord> out;
    ASSERT_TRUE(r->poll(out, 4));  // max_records is honoured
    EXPECT_EQ(seqs(out), (std::vector<uint64_t>{1, 2, 3, 4}));
    cursor = r->cursor();
  }
  EXPECT_EQ(cursor.seq, 4u);
  auto r = open_ok(path_, "boot-a", cursor);
  EXPECT_EQ(r->cursor().seq, 4u);  // before any poll the cursor is the one resumed from
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(r->stats().dropped, 0u);
  EXPECT_EQ(r->stats().records, 6u);
}

TEST_F(KmsgFileReader, RecordsOverwrittenWhileDownCountAsDropped) {
  kmsg_append(path_, recs(7, 9));  // the ring lost 4..6 while the agent was down
  auto r = open_ok(path_, "boot-a", KmsgCursor{"boot-a", 3, true});
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{7, 8, 9}));
  EXPECT_EQ(r->stats().dropped, 3u);
}

TEST_F(KmsgFileReader, ANewBootReadsEverything) {
  kmsg_append(path_, recs(0, 2));
  auto r = open_ok(path_, "boot-new", KmsgCursor{"boot-old", 100, true});
  EXPECT_FALSE(r->cursor().valid);
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(r->stats().dropped, 0u);  // the first record of a boot has no predecessor to be a gap from
  EXPECT_EQ(r->cursor().boot_id, "boot-new");
  EXPECT_EQ(r->cursor().seq, 2u);
}

TEST_F(KmsgFileReader, SequenceGapsAreCountedAsDropped) {
  kmsg_append(path_, rec(1, "a") + rec(2, "b") + rec(5, "c") + rec(6, "d") + rec(10, "e"));
  auto r = open_ok(path_, "b");
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(out.size(), 5u);
  EXPECT_EQ(r->stats().dropped, 2u + 3u);
  EXPECT_EQ(r->stats().records + r->stats().dropped, 10u);
}

TEST_F(KmsgFileReader, MalformedRecordsAreCountedAndSkipped) {
  kmsg_append(path_, rec(1, "ok") + "garbage without a header\n" + "x,2,3,-;bad priority\n" +
                         "\x01\x02\xff\x00\xfe\n"s + " ORPHAN=dictionary line\n" + rec(2, "still reading") + "\n\n" +
                         rec(3, "nul \0 and \xff kept"s));
  auto r = open_ok(path_, "b");
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(r->stats().malformed, 3u);  // the orphan dictionary line follows a record, so it joins the garbage
  EXPECT_EQ(out[2].text, "nul \0 and \xff kept"s);
  EXPECT_TRUE(r->stats().up);
}

TEST_F(KmsgFileReader, AnOverlongLineIsCutOffAndCounted) {
  std::string huge = "6,1,0,-;" + std::string(kKmsgMaxFileRecordBytes + 100000, 'x');
  kmsg_append(path_, huge);
  auto r = open_ok(path_, "b");
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(r->stats().malformed, 1u);
  kmsg_append(path_, "yyy\n" + rec(2, "after"));
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{2}));
  EXPECT_EQ(r->stats().malformed, 1u);
}

TEST_F(KmsgFileReader, AFileThatShrankIsReadAgainWithoutRepeats) {
  kmsg_append(path_, recs(1, 3));
  auto r = open_ok(path_, "b");
  std::vector<KmsgRecord> out;
  ASSERT_TRUE(r->poll(out));
  ASSERT_EQ(::truncate(path_.c_str(), 0), 0);
  kmsg_append(path_, rec(2, "b") + rec(3, "c") + rec(4, "d"));  // shorter than before: the reader sees it shrank
  out.clear();
  ASSERT_TRUE(r->poll(out));
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{4}));
  EXPECT_EQ(r->stats().records, 4u);
}

TEST_F(KmsgFileReader, OpenErrorsNameThePath) {
  auto missing = KmsgReader::open(dir_.file("absent"), "b", {});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("absent: open:"), std::string::npos) << missing.error();

  std::string fifo = dir_.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto not_records = KmsgReader::open(fifo, "b", {});
  ASSERT_FALSE(not_records);
  EXPECT_NE(not_records.error().find("neither a character device"), std::string::npos) << not_records.error();
}

// A read error (other than EAGAIN, EPIPE, EINTR) sets up = false and the next
// poll reopens. /dev/net/tun is a character device whose read() fails with
// EBADFD until an interface is attached: the path is a symlink to it, then to
// a file of records.
TEST_F(KmsgFileReader, AReadErrorMarksItDownAndTheNextPollReopens) {
  if (::access("/dev/net/tun", R_OK) != 0) GTEST_SKIP() << "no readable /dev/net/tun to fail a read() with";
  std::string link = dir_.file("link");
  ASSERT_EQ(::symlink("/dev/net/tun", link.c_str()), 0);
  auto r = open_ok(link, "b");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->is_device());
  std::vector<KmsgRecord> out;
  Status s = r->poll(out);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("link: read: "), std::string::npos) << s.message();
  EXPECT_FALSE(r->stats().up);
  EXPECT_EQ(r->fd(), -1);
  EXPECT_FALSE(r->poll(out));  // reopened, and failed again
  EXPECT_FALSE(r->stats().up);

  kmsg_append(path_, recs(1, 2));
  ASSERT_EQ(::unlink(link.c_str()), 0);
  ASSERT_EQ(::symlink(path_.c_str(), link.c_str()), 0);
  ASSERT_TRUE(r->poll(out));
  EXPECT_TRUE(r->stats().up);
  EXPECT_FALSE(r->is_device());
  EXPECT_EQ(seqs(out), (std::vector<uint64_t>{1, 2}));
}

TEST(KmsgBootId, ReadsAndTrims) {
  KmsgTestDir dir;
  std::string path = dir.file("boot_id");
  kmsg_append(path, "b8277600-d87b-441c-9b84-b554878ee7ad\n");
  auto id = read_boot_id(path);
  ASSERT_TRUE(id) << id.error();
  EXPECT_EQ(*id, "b8277600-d87b-441c-9b84-b554878ee7ad");

  EXPECT_FALSE(read_boot_id(dir.file("absent")));
  std::string empty = dir.file("empty");
  kmsg_append(empty, "\n");
  auto e = read_boot_id(empty);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("empty boot id"), std::string::npos);

  if (::access("/proc/sys/kernel/random/boot_id", R_OK) != 0) GTEST_SKIP() << "no /proc/sys/kernel/random/boot_id here";
  auto real = read_boot_id();
  ASSERT_TRUE(real) << real.error();
  EXPECT_EQ(real->size(), 36u);
}

}  // namespace
}  // namespace llmon::logwatch
