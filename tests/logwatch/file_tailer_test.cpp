#include "logwatch/file_tailer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/clock.h"
#include "logwatch/line_assembler.h"
#include "tsdb/temp_dir.h"

namespace llmon::logwatch {
namespace {

void append(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::app);
  f << text;
}

struct Collected {
  std::vector<std::string> lines;
  FileTailer::LineSink sink() {
    return [this](const std::string&, std::string_view line) { lines.emplace_back(line); };
  }
};

TEST(LineAssembler, SplitsAcrossChunksAndTracksOffsets) {
  LineAssembler a(100);
  std::vector<std::pair<std::string, uint64_t>> out;
  auto sink = [&](std::string_view l, uint64_t end) { out.emplace_back(std::string(l), end); };
  a.feed("ab", sink);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(a.committed_offset(), 0u);
  a.feed("c\nde\nf", sink);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (std::pair<std::string, uint64_t>{"abc", 4}));
  EXPECT_EQ(out[1], (std::pair<std::string, uint64_t>{"de", 7}));
  EXPECT_EQ(a.committed_offset(), 7u);
  EXPECT_EQ(a.fed_offset(), 8u);
  a.flush(sink);
  EXPECT_EQ(out.back().first, "f");
  EXPECT_EQ(a.committed_offset(), 8u);
}

TEST(LineAssembler, CutsLongLinesOnceAndCountsThem) {
  LineAssembler a(4);
  std::vector<std::string> out;
  auto sink = [&](std::string_view l, uint64_t) { out.emplace_back(l); };
  a.feed("abcdefgh", sink);
  a.feed("ij\nxy\n", sink);
  EXPECT_EQ(out, (std::vector<std::string>{"abcd", "xy"}));
  EXPECT_EQ(a.truncated(), 1u);
  EXPECT_EQ(a.committed_offset(), 14u);
}

TEST(LineAssembler, BinaryBytesPassThrough) {
  LineAssembler a(100);
  std::vector<std::string> out;
  a.feed(std::string("\x00\xff\xfe garbage\n", 12), [&](std::string_view l, uint64_t) { out.emplace_back(l); });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], std::string("\x00\xff\xfe garbage", 11));
}

class TailerTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  base::ManualClock clock_{1000};
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
};

TEST_F(TailerTest, ExistingFilesStartAtTheirEndNewFilesFromTheStart) {
  append(path("a.log"), "old 1\nold 2\npartial");
  TailerOptions opt;
  opt.patterns = {dir_.path() + "/*.log"};
  FileTailer t(opt, clock_);
  Collected c;
  ASSERT_TRUE(t.poll(c.sink()));
  EXPECT_TRUE(c.lines.empty());
  append(path("a.log"), " rest\nnew 1\n");
  append(path("b.log"), "b 1\n");
  ASSERT_TRUE(t.poll(c.sink()));
  EXPECT_EQ(c.lines, (std::vector<std::string>{"partial rest", "new 1", "b 1"}));
  EXPECT_EQ(t.stats().files, 2u);
}

// A file created after the previous tailer's last saved position, which it
// never got to (the agent was killed as the writer started), is read from
// its start after the restart; a file older than that position keeps the
// from-the-end rule.
TEST_F(TailerTest, FilesBornSinceTheLastSavedPositionAreReadWhole) {
  const int64_t now = base::SystemClock().now_ms();
  base::ManualClock clock(now);
  append(path("a.log"), "a 1\n");
  TailerOptions opt;
  opt.patterns = {dir_.path() + "/*.log"};
  std::vector<FileCursor> saved;
  {
    FileTailer t(opt, clock);
    Collected c;
    ASSERT_TRUE(t.poll(c.sink()));
    saved = t.cursors();
  }
  ASSERT_EQ(saved.size(), 1u);
  append(path("b.log"), "b 1\nb 2\n");  // while the tailer is down
  struct statx stx {};
  if (::statx(AT_FDCWD, path("b.log").c_str(), 0, STATX_BTIME, &stx) != 0 || !(stx.stx_mask & STATX_BTIME))
    GTEST_SKIP() << "this filesystem keeps no birth times";
  {
    FileTailer t(opt, clock);
    t.restore(saved);
    Collected c;
    ASSERT_TRUE(t.poll(c.sink()));
    EXPECT_EQ(c.lines, (std::vector<std::string>{"b 1", "b 2"}));
  }
  // The same file against a position saved an hour later: it existed then
  // (it was simply not watched), so it starts at its end.
  for (FileCursor& f : saved) f.saved_ms = now + 3'600'000;
  {
    FileTailer t(opt, clock);
    t.restore(saved);
    Collected c;
    ASSERT_TRUE(t.poll(c.sink()));
    EXPECT_TRUE(c.lines.empty());
  }
}

TEST_F(TailerTest, GlobsDoNotFollowRotatedGenerationsThemselves) {
  append(path("a.log"), "x\n");
  append(path("a.log.1"), "rotated\n");
  append(path("a.log-20261201"), "rotated\n");
  TailerOptions opt;
  opt.patterns = {dir_.path() + "/a.log*"};
  opt.from_beginning = true;
  FileTailer t(opt, clock_);
  Collected c;
  ASSERT_TRUE(t.poll(c.sink()));
  EXPECT_EQ(c.lines, (std::vector<std::string>{"x"}));
}

TEST_F(TailerTest, RestartResumesExactlyAndDetectsTruncationWhileDown) {
  TailerOptions opt;
  opt.patterns = {path("a.log")};
  opt.from_beginning = true;
  append(path("a.log"), "1\n2\n");
  std::vector<FileCursor> saved;
  {
    FileTailer t(opt, clock_);
    Collected c;
    ASSERT_TRUE(t.poll(c.sink()));
    EXPECT_EQ(c.lines.size(), 2u);
    saved = t.cursors();
  }
  append(path("a.log"), "3\n");
  {
    FileTailer t(opt, clock_);
    t.restore(saved);
    Collected c;
    ASSERT_TRUE(t.poll(c.sink()));
    EXPECT_EQ(c.lines, (std::vector<std::string>{"3"}));
    saved = t.cursors();
  }
  // Truncated and regrown past the old position while down (Promtail skips these).
  ASSERT_EQ(::truncate(path("a.log").c_str(), 0), 0);
  append(path("a.log"), "new A\nnew B\nnew C\n");
  {
    FileTailer t(opt, clock_);
    t.restore(saved);
    Collected c;
    ASSERT_TRUE(t.poll(c.sink()));
    EXPECT_EQ(c.lines, (std::vector<std::string>{"new A", "new B", "new C"}));
  }
}

TEST_F(TailerTest, RotatedGzipGenerationsAreReadOnceWhenAsked) {
  TailerOptions opt;
  opt.patterns = {path("a.log")};
  opt.from_beginning = true;
  opt.read_gz = true;
  append(path("a.log"), "1\n");
  std::vector<FileCursor> saved;
  {
    FileTailer t(opt, clock_);
    Collected c;
    ASSERT_TRUE(t.poll(c.sink()));
    saved = t.cursors();
  }
  // While down: a.log -> a.log.1 (2 more lines), then a generation written and
  // compressed, then a new a.log.
  append(path("a.log"), "2\n");
  std::filesystem::rename(path("a.log"), path("a.log.2"));
  usleep(10000);
  gzFile gz = gzopen(path("a.log.1.gz").c_str(), "wb");
  gzputs(gz, "3\n4\n");
  gzclose(gz);
  usleep(10000);
  append(path("a.log"), "5\n");
  FileTailer t(opt, clock_);
  t.restore(saved);
  Collected c;
  ASSERT_TRUE(t.poll(c.sink()));
  EXPECT_EQ(c.lines, (std::vector<std::string>{"2", "3", "4", "5"}));
  ASSERT_TRUE(t.poll(c.sink()));
  EXPECT_EQ(c.lines.size(), 4u);
}

TEST_F(TailerTest, MissingFilesAndUnreadableOnesNeverStopTheOthers) {
  TailerOptions opt;
  opt.patterns = {path("missing.log"), path("dir.log"), path("a.log")};
  std::filesystem::create_directory(path("dir.log"));
  FileTailer t(opt, clock_);
  Collected c;
  (void)t.poll(c.sink());
  append(path("a.log"), "x\n");
  (void)t.poll(c.sink());
  EXPECT_EQ(c.lines, (std::vector<std::string>{"x"}));
}

}  // namespace
}  // namespace llmon::logwatch

namespace llmon::logwatch {
namespace {

void copytruncate(const std::string& p) {
  std::error_code ec;
  std::filesystem::rename(p + ".1", p + ".2", ec);
  std::filesystem::copy_file(p, p + ".1", std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(::truncate(p.c_str(), 0), 0);
}

TEST_F(TailerTest, TwoCopyTruncatesBetweenPollsReadBothCopies) {
  TailerOptions opt;
  opt.patterns = {path("a.log")};
  opt.from_beginning = true;
  append(path("a.log"), "1\n2\n");
  FileTailer t(opt, clock_);
  Collected c;
  ASSERT_TRUE(t.poll(c.sink()));
  append(path("a.log"), "3\n");
  copytruncate(path("a.log"));
  usleep(10000);
  append(path("a.log"), "4\n5\n");
  copytruncate(path("a.log"));
  usleep(10000);
  append(path("a.log"), "6\n");
  ASSERT_TRUE(t.poll(c.sink()));
  EXPECT_EQ(c.lines, (std::vector<std::string>{"1", "2", "3", "4", "5", "6"}));
}

}  // namespace
}  // namespace llmon::logwatch
