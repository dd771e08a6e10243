// KmsgReader on the real /dev/kmsg: skipped, with the reason, where the
// device cannot be opened (not root, a container without it). A record the
// test writes itself (as root) is read back decoded. The overrun test floods
// the kernel ring past its size to get a real EPIPE; it overwrites the
// machine's kernel log, so it runs only with LLMON_KMSG_OVERRUN_TEST=1.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/klog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/file_reader.h"
#include "logwatch/kmsg_reader.h"

namespace llmon::logwatch {
namespace {

constexpr const char* kDevice = "/dev/kmsg";

std::unique_ptr<KmsgReader> open_device(KmsgCursor resume = {}) {
  auto boot = read_boot_id();
  if (!boot) return nullptr;
  auto r = KmsgReader::open(kDevice, *boot, std::move(resume));
  return r ? std::move(*r) : nullptr;
}

#define SKIP_WITHOUT_DEVICE()                                                                                \
  if (::access(kDevice, R_OK) != 0) GTEST_SKIP() << kDevice << " is not readable: " << std::strerror(errno); \
  if (!read_boot_id()) GTEST_SKIP() << "no boot id: " << read_boot_id().error()

// Drains the reader (polls until a poll hands out nothing); returns every record.
std::vector<KmsgRecord> drain(KmsgReader& r) {
  std::vector<KmsgRecord> all, out;
  for (;;) {
    out.clear();
    Status s = r.poll(out);
    EXPECT_TRUE(s) << s.message();
    if (out.empty() || !s) return all;
    for (auto& rec : out) all.push_back(std::move(rec));
  }
}

// Writes one record into the kernel log through its own descriptor (the
// kernel rate-limits writes per open file, 10 per 5 s by default). The
// newline matters: the kernel keeps a record without one open for a
// continuation, and readers see it only once the next record arrives.
bool write_kmsg(const std::string& text) {
  int fd = ::open(kDevice, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string line = text + "\n";
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  return ok;
}

bool user_writes_logged() {
  auto mode = base::read_trimmed("/proc/sys/kernel/printk_devkmsg");
  return !mode || *mode != "off";
}

TEST(KmsgDevice, ReadsTheKernelRingInSequence) {
  SKIP_WITHOUT_DEVICE();
  auto r = open_device();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->is_device());
  EXPECT_GE(r->fd(), 0);
  std::vector<KmsgRecord> all = drain(*r);
  ASSERT_FALSE(all.empty()) << "the kernel ring is never empty after boot";
  uint64_t gaps = 0;
  for (size_t i = 1; i < all.size(); ++i) {
    ASSERT_GT(all[i].seq, all[i - 1].seq);
    gaps += all[i].seq - all[i - 1].seq - 1;
  }
  EXPECT_EQ(r->stats().dropped, gaps);
  EXPECT_EQ(r->stats().records, all.size());
  EXPECT_EQ(r->stats().malformed, 0u) << "every record the kernel hands out parses";
  EXPECT_TRUE(r->stats().up);
  EXPECT_GT(r->stats().last_read_ms, 0);
  EXPECT_TRUE(r->cursor().valid);
  EXPECT_EQ(r->cursor().seq, all.back().seq);

  // A second reader resumed from the first one's cursor hands out only what came since.
  auto again = open_device(r->cursor());
  ASSERT_TRUE(again);
  for (const auto& rec : drain(*again)) EXPECT_GT(rec.seq, all.back().seq);
}

TEST(KmsgDevice, ARecordWrittenIsReadBackDecoded) {
  SKIP_WITHOUT_DEVICE();
  if (::access(kDevice, W_OK) != 0) GTEST_SKIP() << kDevice << " is not writable (needs root)";
  if (!user_writes_logged()) GTEST_SKIP() << "kernel.printk_devkmsg=off: the kernel drops records written by users";
  auto r = open_device();
  ASSERT_TRUE(r);
  drain(*r);
  std::string text = "llmon-kmsg-test " + std::to_string(::getpid()) + ": tab\there back\\slash \xc3\xa9 \xff end";
  ASSERT_TRUE(write_kmsg("<12>" + text));  // facility 1 (user), level 4 (warning)
  std::optional<KmsgRecord> found;
  for (int i = 0; i < 200 && !found; ++i) {
    std::vector<KmsgRecord> out;
    ASSERT_TRUE(r->poll(out));
    for (const auto& rec : out)
      if (rec.text == text) found = rec;
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(found.has_value()) << "the record written was not read back (escapes not decoded?)";
  EXPECT_EQ(found->facility, 1);
  EXPECT_EQ(found->priority, 4);
  EXPECT_FALSE(found->continuation);
}

TEST(KmsgDevice, AnOverrunIsCountedAndReadingGoesOn) {
  SKIP_WITHOUT_DEVICE();
  if (std::getenv("LLMON_KMSG_OVERRUN_TEST") == nullptr)
    GTEST_SKIP() << "floods the machine's kernel ring (it loses the boot log): set LLMON_KMSG_OVERRUN_TEST=1";
  if (::access(kDevice, W_OK) != 0) GTEST_SKIP() << kDevice << " is not writable (needs root)";
  if (!user_writes_logged()) GTEST_SKIP() << "kernel.printk_devkmsg=off";
  int ring = ::klogctl(10, nullptr, 0);  // SYSLOG_ACTION_SIZE_BUFFER
  ASSERT_GT(ring, 0) << std::strerror(errno);
  auto r = open_device();
  ASSERT_TRUE(r);
  drain(*r);
  uint64_t start = r->cursor().seq;
  uint64_t records_before = r->stats().records, dropped_before = r->stats().dropped;

  // Three rings' worth of 200-byte records (each written through its own
  // descriptor, past the per-file rate limit) while the reader does not read.
  std::string pad(160, 'x');
  int n = 3 * ring / 200;
  for (int i = 0; i < n; ++i) ASSERT_TRUE(write_kmsg("<12>llmon-kmsg-overrun " + std::to_string(i) + " " + pad));

  std::vector<KmsgRecord> after = drain(*r);
  ASSERT_FALSE(after.empty());
  EXPECT_GE(r->stats().overruns, 1u) << "the ring was overwritten three times over: the kernel answers EPIPE";
  EXPECT_GT(r->stats().dropped, dropped_before);
  EXPECT_TRUE(r->stats().up);
  // Nothing unaccounted: every sequence number after the start was handed out or counted as dropped.
  uint64_t handed = r->stats().records - records_before, lost = r->stats().dropped - dropped_before;
  EXPECT_EQ(handed + lost, after.back().seq - start);
  std::printf("kmsg overrun: ring %d bytes, %d records written, %llu read, %llu dropped, %llu EPIPE\n", ring, n,
              static_cast<unsigned long long>(handed), static_cast<unsigned long long>(lost),
              static_cast<unsigned long long>(r->stats().overruns));

  // The reader is not dead (rsyslog#4395): a record written now is read.
  ASSERT_TRUE(write_kmsg("<12>llmon-kmsg-overrun after"));
  std::vector<KmsgRecord> last = drain(*r);
  ASSERT_FALSE(last.empty());
  EXPECT_EQ(last.back().text, "llmon-kmsg-overrun after");
}

}  // namespace
}  // namespace llmon::logwatch
