// SIGKILL at random points: a child process appends cycles to a Db (with its
// background thread persisting chunks, rolling and deleting WAL segments) and
// reports each cycle after commit() returned; the parent kills it at a random
// moment, reopens the directory and checks that every reported cycle is there
// bit-exactly for every series, that the one cycle possibly in flight is
// there whole or not at all, that nothing else is there, and that the only
// repairs recovery made are torn tails. The same directory carries over to
// the next iteration, so later iterations recover from earlier recoveries.
//
// Reproduce a run: LLMON_CRASH_SEED=<seed printed> (the kill moments are
// drawn from it; the exact interleaving still depends on timing).
// LLMON_CRASH_ITERATIONS overrides the number of kills (default 40);
// LLMON_CRASH_VERBOSE=1 prints each iteration.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <thread>

#include "tsdb/db.h"
#include "tsdb/db_test_util.h"
#include "tsdb/wal/record_log.h"

namespace llmon::tsdb {
namespace {

using llmon::testing::bits;
using llmon::testing::CapturedLog;
using llmon::testing::cycle_value;
using llmon::testing::mix64;
using llmon::testing::read_metric;
using llmon::testing::ScratchDir;
using model::Labels;
using storage::SeriesRef;

constexpr int64_t kBaseMs = 1'700'000'000'000;
constexpr int64_t kStepMs = 100;  // sample time of one cycle: a 2 s chunk range is 20 cycles
constexpr int kMaxSeries = 300;
const std::string kMetric = "crash_m";

int64_t cycle_time(int64_t c) {
  return kBaseMs + c * kStepMs;
}
// Cycle c holds series [0, series_in(c)): 50 to 300 series, so series come and go.
int series_in(int64_t c) {
  return 50 + static_cast<int>(mix64(static_cast<uint64_t>(c) ^ 0x5eed) % 251);
}

DbOptions crash_options(const std::string& dir, bool background) {
  DbOptions o;
  o.path = dir;
  o.background = background;
  o.head.chunk_range_ms = 2000;
  o.wal_segment_bytes = 64 << 10;      // the WAL rolls by size too
  o.chunks.segment_bytes = 128 << 10;  // several chunk segments
  o.fsync_interval_ms = 5;
  o.min_free_bytes = 0;
  o.retention_ms = 0;
  return o;
}

// The child: appends cycles until killed, writing each committed cycle number
// (int64) to report_fd after commit() returned. Never returns; any failure
// exits with a distinct code and a line on stderr.
[[noreturn]] void child_main(const std::string& dir, int report_fd, const std::vector<Labels>& labels) {
  base::Logger log(base::LogLevel::kError);
  base::SystemClock clock;
  auto db = Db::open(crash_options(dir, true), log, clock);
  if (!db) {
    std::fprintf(stderr, "crash child: open: %s\n", db.error().c_str());
    _exit(2);
  }
  DbStats s = (*db)->stats();
  int64_t c = 1;
  if (s.max_t != 0 || s.min_t != 0) {
    if ((s.max_t - kBaseMs) % kStepMs != 0) {
      std::fprintf(stderr, "crash child: newest timestamp %lld is not a cycle\n", static_cast<long long>(s.max_t));
      _exit(3);
    }
    c = (s.max_t - kBaseMs) / kStepMs + 1;
  }
  std::vector<SeriesRef> refs(kMaxSeries, 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;; ++c) {
    auto app = (*db)->appender();
    int n = series_in(c);
    for (int i = 0; i < n; ++i) {
      auto r =
          app->append(refs[static_cast<size_t>(i)], labels[static_cast<size_t>(i)], cycle_time(c), cycle_value(i, c));
      if (!r) {
        std::fprintf(stderr, "crash child: append series %d cycle %lld: %s\n", i, static_cast<long long>(c),
                     r.error().c_str());
        _exit(4);
      }
      refs[static_cast<size_t>(i)] = *r;
    }
    if (Status st = app->commit(); !st) {
      std::fprintf(stderr, "crash child: commit cycle %lld: %s\n", static_cast<long long>(c), st.message().c_str());
      _exit(5);
    }
    if (::write(report_fd, &c, sizeof c) != static_cast<ssize_t>(sizeof c)) _exit(6);
    if (std::chrono::steady_clock::now() > deadline) _exit(7);  // the parent never killed us
  }
}

// The parent's end of the report pipe.
class Reports {
 public:
  explicit Reports(int fd) : fd_(fd) {}
  // Reads until `n` reports arrived in all. False at EOF (the child exited)
  // or after timeout_ms.
  bool wait_for(uint64_t n, int timeout_ms) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (count_ < n) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !read_once(static_cast<int>(left.count()))) return false;
    }
    return true;
  }
  // Reads everything until EOF (after the child died).
  void drain() {
    while (read_once(10'000)) {
    }
  }
  uint64_t count() const { return count_; }
  int64_t first() const { return first_; }
  int64_t last() const { return last_; }
  const std::string& problem() const { return problem_; }

 private:
  bool read_once(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, timeout_ms);
    if (r <= 0) return false;
    char buf[4096];
    ssize_t got = ::read(fd_, buf, sizeof buf);
    if (got <= 0) return false;
    pending_.append(buf, static_cast<size_t>(got));
    while (pending_.size() >= sizeof(int64_t)) {
      int64_t c;
      std::memcpy(&c, pending_.data(), sizeof c);
      pending_.erase(0, sizeof c);
      if (count_ > 0 && c != last_ + 1 && problem_.empty()) {
        problem_ = "reports not consecutive: " + std::to_string(last_) + " then " + std::to_string(c);
      }
      if (count_ == 0) first_ = c;
      last_ = c;
      ++count_;
    }
    return true;
  }

  int fd_;
  std::string pending_;
  uint64_t count_ = 0;
  int64_t first_ = -1, last_ = -1;
  std::string problem_;
};

uint64_t seed_from_env() {
  if (const char* s = std::getenv("LLMON_CRASH_SEED")) return std::strtoull(s, nullptr, 10);
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) | rd();
}

int iterations_from_env() {
  if (const char* s = std::getenv("LLMON_CRASH_ITERATIONS")) return std::max(1, std::atoi(s));
  return 40;
}

// Checks the reopened store against cycles [1, stored]: every series has
// exactly the cycles it was in, bit-exactly. Returns "" or the first problems.
std::string verify_store(Db& db, int64_t stored) {
  std::string err;
  auto got = read_metric(db, kMetric, kBaseMs, INT64_MAX, &err);
  std::ostringstream out;
  if (!err.empty()) out << "query error: " << err << "\n";
  int problems = 0;
  for (const auto& [i, samples] : got) {
    if (i < 0 || i >= kMaxSeries) out << "unexpected series i=" << i << "\n";
  }
  for (int i = 0; i < kMaxSeries && problems < 5; ++i) {
    auto it = got.find(i);
    static const std::vector<model::Sample> kNone;
    const auto& have = it == got.end() ? kNone : it->second;
    size_t k = 0;
    for (int64_t c = 1; c <= stored && problems < 5; ++c) {
      if (i >= series_in(c)) continue;
      if (k >= have.size()) {
        out << "series " << i << ": cycle " << c << " (t=" << cycle_time(c) << ") missing; the series ends at "
            << (have.empty() ? std::string("nothing") : std::to_string(have.back().t_ms)) << "\n";
        ++problems;
        break;
      }
      const model::Sample& s = have[k];
      if (s.t_ms != cycle_time(c)) {
        out << "series " << i << ": cycle " << c << " expected t=" << cycle_time(c) << ", found t=" << s.t_ms << "\n";
        ++problems;
        break;
      }
      if (bits(s.v) != bits(cycle_value(i, c))) {
        out << "series " << i << ": cycle " << c << " value bits " << std::hex << bits(s.v) << ", expected "
            << bits(cycle_value(i, c)) << std::dec << "\n";
        ++problems;
      }
      ++k;
    }
    if (k < have.size() && problems < 5) {
      out << "series " << i << ": " << have.size() - k << " unexpected samples from t=" << have[k].t_ms << "\n";
      ++problems;
    }
  }
  return out.str();
}

// A chunk segment file named in a repair line that is shorter than its
// 8-byte header: what a kill while the segment was being created leaves.
bool names_headerless_segment_file(const std::string& line) {
  size_t end = line.find(".dat:");
  if (end == std::string::npos) end = line.find(".idx:");
  if (end == std::string::npos) return false;
  size_t begin = line.rfind('/', end);
  size_t start = line.rfind(' ', begin);
  size_t quote = line.rfind('"', begin);
  if (quote != std::string::npos && (start == std::string::npos || quote > start)) start = quote;
  if (start == std::string::npos) return false;
  std::string path = line.substr(start + 1, end + 4 - start - 1);
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  return !ec && size < 8;
}

// Repairs after a SIGKILL can only be torn tails: anything else (a checksum
// failure before valid data, a missing segment, overlapping chunks, refs
// beyond the series log) means the store wrote something inconsistent.
std::string unexpected_repairs(CapturedLog& log) {
  std::string out;
  for (const auto& line : log.lines_with("storage repair")) {
    bool torn = line.find("torn tail") != std::string::npos ||            // WAL / series log
                line.find("(interrupted write)") != std::string::npos ||  // active .dat past its index
                line.find(".idx: torn record") != std::string::npos ||    // partial index record
                (line.find("(bad header)") != std::string::npos &&        // segment creation cut short
                 names_headerless_segment_file(line));
    if (!torn) out += line + "\n";
  }
  return out;
}

TEST(DbCrash, SigkillAtRandomPointsLosesNoCommittedCycle) {
  const uint64_t seed = seed_from_env();
  const int iterations = iterations_from_env();
  std::printf("[ crash    ] seed=%llu iterations=%d (rerun: LLMON_CRASH_SEED=%llu)\n",
              static_cast<unsigned long long>(seed), iterations, static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  std::mt19937_64 rng(seed);
  // On tmpfs when there is one: a SIGKILL leaves the page cache exactly as on
  // a disk (power cuts are not simulated here), and fsyncs cost nothing.
  ScratchDir dir;
  const std::string data = dir.path() + "/data";
  std::vector<Labels> labels;
  for (int i = 0; i < kMaxSeries; ++i) labels.push_back(llmon::testing::series_labels(kMetric, i));

  int64_t stored = 0;  // cycles 1..stored are in the store
  int killed_before_first_commit = 0, in_flight_found = 0;
  uint64_t repairs = 0;
  for (int iter = 0; iter < iterations; ++iter) {
    // Mostly: kill after 1-150 reported cycles plus up to 3 ms; one in eight:
    // kill 0-40 ms after the fork, often during the child's own recovery; one
    // in eight: after 300-900 cycles, so that boundary flushes (which seal
    // every chunk: tens of ms for 300 chunks in an unoptimised build) finish
    // (at least every eighth iteration is one).
    const uint64_t kind = iter % 8 == 1 ? 1 : rng() % 8;
    const bool early = kind == 0;
    const uint64_t kill_after = early ? 0 : kind == 1 ? 300 + rng() % 600 : 1 + rng() % 150;
    const auto delay = std::chrono::microseconds(early ? rng() % 40'000 : rng() % 3'000);
    SCOPED_TRACE("seed=" + std::to_string(seed) + " iteration=" + std::to_string(iter) +
                 " kill_after_cycles=" + std::to_string(kill_after) + " delay_us=" + std::to_string(delay.count()) +
                 " stored_before=" + std::to_string(stored));

    int fds[2];
    ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    std::fflush(nullptr);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      ::close(fds[0]);
      child_main(data, fds[1], labels);
    }
    ::close(fds[1]);
    Reports reports(fds[0]);
    bool alive = reports.wait_for(kill_after, 60'000);
    if (alive) std::this_thread::sleep_for(delay);
    ::kill(pid, SIGKILL);
    reports.drain();
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the child ended by itself before the kill: "
        << (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status)) : "signal") << " (see stderr)";
    ASSERT_TRUE(reports.problem().empty()) << reports.problem();
    if (reports.count() > 0) {
      // The child resumed right after the newest stored cycle.
      ASSERT_EQ(reports.first(), stored + 1) << "the child did not continue after the newest stored cycle";
    } else {
      ++killed_before_first_commit;
    }
    if (std::getenv("LLMON_CRASH_VERBOSE") != nullptr) {
      std::printf("[ crash    ] iteration %d: kill after %llu cycles + %lld us, %llu reported\n", iter,
                  static_cast<unsigned long long>(kill_after), static_cast<long long>(delay.count()),
                  static_cast<unsigned long long>(reports.count()));
    }
    const int64_t reported = reports.count() > 0 ? reports.last() : stored;

    CapturedLog log(base::LogLevel::kWarn);
    base::ManualClock clock(0);
    auto db = Db::open(crash_options(data, false), log.logger(), clock);
    ASSERT_TRUE(db.has_value()) << "reopen after SIGKILL failed: " << db.error();
    repairs += (*db)->stats().repairs;
    EXPECT_EQ(unexpected_repairs(log), "") << "recovery repaired more than a torn tail";
    // The cycle in flight at the kill (reported + 1) may be there, whole; nothing after it.
    int64_t newest = (*db)->stats().max_t;
    ASSERT_TRUE(newest == cycle_time(reported) || newest == cycle_time(reported + 1) || (reported == 0 && newest == 0))
        << "newest sample t=" << newest << ", last reported cycle " << reported << " (t=" << cycle_time(reported)
        << ")";
    int64_t now_stored = newest == 0 ? 0 : (newest - kBaseMs) / kStepMs;
    if (now_stored == reported + 1) ++in_flight_found;
    std::string problems = verify_store(**db, now_stored);
    ASSERT_EQ(problems, "") << "after the kill, " << reports.count() << " cycles reported (last " << reported
                            << "), store holds up to cycle " << now_stored;
    stored = now_stored;
    ASSERT_TRUE((*db)->close().is_ok());
  }

  // The runs exercised what they were meant to: chunks persisted in several
  // segments and the oldest WAL segments deleted.
  CapturedLog log(base::LogLevel::kWarn);
  base::ManualClock clock(0);
  auto db = Db::open(crash_options(data, false), log.logger(), clock);
  ASSERT_TRUE(db.has_value()) << db.error();
  DbStats s = (*db)->stats();
  EXPECT_GT(s.persisted_chunks, 0u);
  EXPECT_GT(s.chunk_segments, 1u);
  auto wal_segs = wal::list_segments(data + "/wal");
  ASSERT_TRUE(wal_segs.has_value());
  ASSERT_FALSE(wal_segs->empty());
  EXPECT_GT(wal_segs->front(), 1u) << "no WAL segment was ever deleted";
  EXPECT_GT(stored, 100);
  std::printf(
      "[ crash    ] %d kills, %lld cycles stored, %d kills before the first commit, %d in-flight cycles "
      "found whole, %llu repairs (torn tails), %llu chunks in %llu segments\n",
      iterations, static_cast<long long>(stored), killed_before_first_commit, in_flight_found,
      static_cast<unsigned long long>(repairs), static_cast<unsigned long long>(s.persisted_chunks),
      static_cast<unsigned long long>(s.chunk_segments));
}

}  // namespace
}  // namespace llmon::tsdb
