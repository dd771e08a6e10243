// The watcher: files and the kernel log through the rules into the journal,
// restarts from the committed positions (nothing lost, nothing repeated),
// commits that fail (a full disk, simulated with RLIMIT_FSIZE) and are
// retried, listeners and the kernel hook, and the thread's wake-ups.
#include "logwatch/watcher.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <set>
#include <thread>

#include "logwatch/kmsg_test_dir.h"
#include "logwatch/positions_json.h"

namespace llmon::logwatch {
namespace {

constexpr char kRules[] = R"(
rules:
  - name: cuda_oom
    regex: 'CUDA out of memory\. Tried to allocate (?P<size>[0-9.]+ [GM]iB)'
    severity: error
    source: files
  - name: xid
    regex: 'NVRM: Xid \(PCI:(?P<pci>[0-9a-fA-F:.]+)\): (?P<xid>\d+)'
    severity: critical
    source: kmsg
    counter_labels: [xid]
)";

const char kOom[] = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0)\n";

class WatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kmsg_append(dir_.file("train.log"), "");
    kmsg_append(dir_.file("kmsg.txt"), "");
    kmsg_append(dir_.file("boot_id"), "0b6e4f3a-1111-2222-3333-444455556666\n");
  }

  WatcherOptions options() const {
    WatcherOptions o;
    o.tailer.patterns = {dir_.file("*.log")};
    o.kmsg_path = dir_.file("kmsg.txt");
    o.boot_id_path = dir_.file("boot_id");
    o.journal.dir = dir_.file("events");
    auto rules = parse_log_rules(kRules, "rules.yml");
    EXPECT_TRUE(rules) << rules.error();
    if (rules) o.rules = std::move(*rules);
    o.positions_interval_ms = 0;
    return o;
  }

  std::unique_ptr<Watcher> open(WatcherOptions o) {
    auto w = Watcher::open(std::move(o), clock_, log_);
    EXPECT_TRUE(w) << w.error();
    return w ? std::move(*w) : nullptr;
  }

  std::vector<Event> events() const {
    EventQuery q;
    q.limit = 1000;
    auto got = query_events(dir_.file("events"), q);
    EXPECT_TRUE(got) << got.error();
    return got ? *got : std::vector<Event>{};
  }

  static uint64_t matches(const WatcherStats& s, const std::string& rule) {
    uint64_t n = 0;
    for (const auto& [k, v] : s.matches)
      if (k.rule == rule) n += v;
    return n;
  }

  KmsgTestDir dir_;
  base::ManualClock clock_{1'800'000'000'000};
  base::Logger log_{base::LogLevel::kError};
};

TEST_F(WatcherTest, LinesOfFilesAndTheKernelLogBecomeCountersAndCommittedEvents) {
  auto w = open(options());
  ASSERT_TRUE(w);
  std::vector<Event> heard;
  std::vector<std::string> kernel;
  w->add_listener([&](const std::vector<Event>& evs) { heard.insert(heard.end(), evs.begin(), evs.end()); });
  w->set_kernel_hook([&](std::string_view text, int64_t, const std::string& boot) {
    kernel.push_back(std::string(text) + "|" + boot);
  });
  w->set_enricher([](Event& e) {
    if (e.labels.count("pci")) e.labels["UUID"] = "GPU-" + e.labels["pci"];
  });
  w->run_pass();  // files found now start at their end
  kmsg_append(dir_.file("train.log"), std::string("step 1 loss 2.3\n") + kOom);
  kmsg_append(dir_.file("kmsg.txt"),
              "4,1,1000,-;NVRM: Xid (PCI:0000:9a:00): 79, pid=1, GPU has fallen off the bus.\n"
              "6,2,1001,-;eth0: link up\n");
  clock_.advance_ms(1000);
  w->run_pass();

  WatcherStats s = w->stats();
  EXPECT_EQ(matches(s, "cuda_oom"), 1u);
  EXPECT_EQ(matches(s, "xid"), 1u);
  EXPECT_EQ(s.files.lines, 2u);
  EXPECT_EQ(s.kmsg.records, 2u);
  EXPECT_EQ(s.events, 2u);
  EXPECT_TRUE(s.kmsg.up);
  ASSERT_EQ(kernel.size(), 2u);
  EXPECT_EQ(kernel[1], "eth0: link up|0b6e4f3a-1111-2222-3333-444455556666");

  ASSERT_EQ(heard.size(), 2u);
  auto stored = events();
  ASSERT_EQ(stored.size(), 2u);
  for (const Event& e : stored) {
    if (e.rule == "xid") {
      EXPECT_EQ(e.source, "kmsg");
      EXPECT_EQ(e.labels.at("xid"), "79");
      EXPECT_EQ(e.labels.at("pci"), "0000:9a:00");
      EXPECT_EQ(e.labels.at("UUID"), "GPU-0000:9a:00") << "enriched before the commit";
    } else {
      EXPECT_EQ(e.rule, "cuda_oom");
      EXPECT_EQ(e.source, dir_.file("train.log"));
      EXPECT_EQ(e.labels.at("size"), "2.00 GiB");
      EXPECT_EQ(e.time_ms, clock_.now_ms());
    }
  }
  // The counter of a selected source exists at 0 before its first match.
  bool zero = false;
  for (const auto& [k, v] : s.matches) zero = zero || (k.rule == "cuda_oom" && k.source == dir_.file("train.log"));
  EXPECT_TRUE(zero);
}

TEST_F(WatcherTest, ARestartContinuesAfterTheCommittedLinesWithoutRepeatingOrLosingAny) {
  {
    auto w = open(options());
    ASSERT_TRUE(w);
    w->run_pass();
    kmsg_append(dir_.file("train.log"), kOom);
    kmsg_append(dir_.file("kmsg.txt"), "4,1,1000,-;NVRM: Xid (PCI:0000:9a:00): 13, pid=1, Graphics Exception\n");
    w->run_pass();
    // Destroyed without stop(): what kill -9 leaves is the last commit.
  }
  kmsg_append(dir_.file("train.log"), std::string("more\n") + kOom);
  kmsg_append(dir_.file("kmsg.txt"), "4,2,2000,-;NVRM: Xid (PCI:0000:9a:00): 31, pid=1, MMU Fault\n");
  auto w = open(options());
  ASSERT_TRUE(w);
  w->run_pass();
  WatcherStats s = w->stats();
  EXPECT_EQ(matches(s, "cuda_oom"), 1u) << "only the line written while down";
  EXPECT_EQ(matches(s, "xid"), 1u);
  EXPECT_EQ(s.kmsg.dropped, 0u);
  auto stored = events();
  ASSERT_EQ(stored.size(), 4u);
  std::set<uint64_t> ids;
  for (const Event& e : stored) ids.insert(e.id);
  EXPECT_EQ(ids, (std::set<uint64_t>{1, 2, 3, 4})) << "ids continue after the stored ones";
}

TEST_F(WatcherTest, PositionsOnlyCommitsWaitForTheirIntervalButAStopCommitsThem) {
  WatcherOptions o = options();
  o.positions_interval_ms = 60'000;
  auto w = open(o);
  ASSERT_TRUE(w);
  w->run_pass(true);
  const uint64_t commits = w->stats().journal.commits;
  kmsg_append(dir_.file("train.log"), "a line no rule matches\n");
  w->run_pass();
  EXPECT_EQ(w->stats().journal.commits, commits) << "no events: the positions wait";
  w->run_pass(true);
  EXPECT_EQ(w->stats().journal.commits, commits + 1);
  w->run_pass(true);
  EXPECT_EQ(w->stats().journal.commits, commits + 1) << "nothing moved: nothing to commit";
}

// A write that would pass RLIMIT_FSIZE fails with EFBIG (SIGXFSZ ignored):
// the journal's disk is "full".
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit r = old_;
    r.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &r);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

TEST_F(WatcherTest, AFailedCommitKeepsItsEventsAndRetriesThemWithLaterOnes) {
  auto w = open(options());
  ASSERT_TRUE(w);
  std::vector<Event> heard;
  w->add_listener([&](const std::vector<Event>& evs) { heard.insert(heard.end(), evs.begin(), evs.end()); });
  w->run_pass(true);
  kmsg_append(dir_.file("train.log"), kOom);
  {
    FileSizeLimit full(1);  // every journal write fails now
    w->run_pass();
    EXPECT_GE(w->stats().commit_errors, 1u);
    EXPECT_TRUE(heard.empty()) << "listeners only hear committed events";
    EXPECT_EQ(matches(w->stats(), "cuda_oom"), 1u) << "counting goes on";
  }
  kmsg_append(dir_.file("train.log"), kOom);
  w->run_pass();
  EXPECT_EQ(heard.size(), 2u);
  EXPECT_EQ(events().size(), 2u);
  EXPECT_EQ(w->stats().events_dropped, 0u);
}

TEST_F(WatcherTest, PendingEventsBeyondTheLimitAreDroppedAndCounted) {
  WatcherOptions o = options();
  o.max_pending_events = 2;
  auto w = open(o);
  ASSERT_TRUE(w);
  w->run_pass(true);
  for (int i = 0; i < 5; ++i)
    kmsg_append(dir_.file("kmsg.txt"), "4," + std::to_string(i + 1) + ",1000,-;NVRM: Xid (PCI:0000:9a:00): " +
                                           std::to_string(40 + i) + ", pid=1\n");
  {
    FileSizeLimit full(1);
    w->run_pass();  // five events, two kept pending
  }
  w->run_pass();
  EXPECT_EQ(w->stats().events_dropped, 3u);
  EXPECT_EQ(events().size(), 2u);
}

TEST_F(WatcherTest, AKernelLogThatCannotBeOpenedIsRetriedAndReportedDown) {
  WatcherOptions o = options();
  o.kmsg_path = dir_.file("not-yet");
  o.kmsg_retry_ms = 5000;
  auto w = open(o);
  ASSERT_TRUE(w);
  w->run_pass();
  WatcherStats s = w->stats();
  EXPECT_TRUE(s.kmsg_enabled);
  EXPECT_FALSE(s.kmsg.up);
  EXPECT_NE(s.kmsg_error.find("not-yet"), std::string::npos) << s.kmsg_error;
  kmsg_append(dir_.file("not-yet"), "4,1,1000,-;NVRM: Xid (PCI:0000:9a:00): 13, pid=1\n");
  w->run_pass();
  EXPECT_FALSE(w->stats().kmsg.up) << "not before the retry delay";
  clock_.advance_ms(5000);
  w->run_pass();
  s = w->stats();
  EXPECT_TRUE(s.kmsg.up) << s.kmsg_error;
  EXPECT_EQ(matches(s, "xid"), 1u);
}

TEST_F(WatcherTest, TheThreadWakesOnInotifyAndAStopCommitsThePositions) {
  WatcherOptions o = options();
  o.poll_interval_ms = 60'000;  // only inotify can wake it in time
  auto w = open(o);
  ASSERT_TRUE(w);
  std::atomic<int> heard{0};
  w->add_listener([&](const std::vector<Event>& evs) { heard += static_cast<int>(evs.size()); });
  w->start();
  while (w->stats().passes == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(w->stats().inotify);
  kmsg_append(dir_.file("train.log"), kOom);
  for (int i = 0; i < 2000 && heard == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(heard, 1) << "woken by inotify well before the 60 s poll";
  kmsg_append(dir_.file("train.log"), "unmatched\n");
  w->stop();
  auto j = EventJournal::open(o.journal, clock_);
  ASSERT_TRUE(j) << j.error();
  auto pos = decode_positions((*j)->positions());
  ASSERT_TRUE(pos) << pos.error();
  ASSERT_EQ(pos->files.size(), 1u);
  EXPECT_EQ(pos->files[0].offset, sizeof(kOom) - 1 + std::string("unmatched\n").size())
      << "the last commit holds the final offset";
}

TEST(PositionsJson, RoundTripsAndNamesWhatIsWrong) {
  Positions p;
  FileCursor c;
  c.path = "/var/log/train.log";
  c.dev = 2049;
  c.ino = 131;
  c.offset = 4096;
  c.head_len = 256;
  c.head_crc = 0xdeadbeef;
  c.tail_len = 256;
  c.tail_crc = 7;
  c.saved_ms = 1;
  c.mtime_ns = 1'800'000'000'000'000'000;
  c.draining = true;
  c.done.push_back({1, 2, 3, 4});
  p.files.push_back(c);
  p.kmsg = {"boot", 99, true};
  auto back = decode_positions(encode_positions(p));
  ASSERT_TRUE(back) << back.error();
  ASSERT_EQ(back->files.size(), 1u);
  const FileCursor& b = back->files[0];
  EXPECT_EQ(b.path, c.path);
  EXPECT_EQ(b.offset, c.offset);
  EXPECT_EQ(b.head_crc, c.head_crc);
  EXPECT_EQ(b.mtime_ns, c.mtime_ns);
  EXPECT_TRUE(b.draining);
  ASSERT_EQ(b.done.size(), 1u);
  EXPECT_EQ(b.done[0], c.done[0]);
  EXPECT_TRUE(back->kmsg.valid);
  EXPECT_EQ(back->kmsg.seq, 99u);
  EXPECT_TRUE(decode_positions("")->files.empty());
  auto bad = decode_positions(R"({"files":[{"path":"/x","dev":-1}]})");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("dev"), std::string::npos) << bad.error();
  EXPECT_FALSE(decode_positions("[1,2]"));
}

}  // namespace
}  // namespace llmon::logwatch
