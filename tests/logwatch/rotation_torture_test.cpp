// Rotation torture: a writer rotates a log file 1,000 times in one of seven
// ways while a FileTailer follows it and is killed and restarted at random;
// every line carries a unique id, and the test counts each id the tailer
// handed out and committed (with its cursors, as the watcher commits events
// and positions together). Zero lost and zero duplicated, for every kind.
//
// A "kill" throws away what was handed out since the last commit and starts a
// new tailer from the last committed cursors: what kill -9 does to the agent.
// Between a rotation and the next write the writer sleeps a little over the
// kernel's coarse timestamp tick, as real rotations are far apart: the tailer
// orders generations by modification time.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "logwatch/file_tailer.h"
#include "tsdb/temp_dir.h"

namespace llmon::logwatch {
namespace {

namespace fs = std::filesystem;

enum class Kind {
  kRename,
  kCopyTruncate,
  kTruncateRegrowWhileDown,
  kInodeReuse,
  kIdenticalHeads,
  kKilledDuringRotation,
  kDownDuringThree
};

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kRename:
      return "rename";
    case Kind::kCopyTruncate:
      return "copytruncate";
    case Kind::kTruncateRegrowWhileDown:
      return "truncate_regrow_while_down";
    case Kind::kInodeReuse:
      return "inode_reuse";
    case Kind::kIdenticalHeads:
      return "identical_heads";
    case Kind::kKilledDuringRotation:
      return "killed_during_rotation";
    case Kind::kDownDuringThree:
      return "down_during_three_rotations";
  }
  return "?";
}

constexpr size_t kGenerations = 4;

class Torture {
 public:
  Torture(Kind kind, const std::string& dir, uint32_t seed)
      : kind_(kind), dir_(dir), path_(dir + "/app.log"), rng_(seed) {
    create_file();
    write_lines(5);
    start();
  }

  void run(int rotations) {
    for (int r = 0; r < rotations; ++r) {
      write_lines(1 + static_cast<int>(rng_() % 8));
      hook();
      rotate();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      hook();
    }
    write_lines(3);
    finish();
  }

  void check() {
    size_t lost = 0, duplicated = 0;
    for (uint64_t id = 0; id < next_id_; ++id) {
      auto it = seen_.find(id);
      if (it == seen_.end()) {
        if (lost < 10)
          std::printf("[ torture ] lost id %llu (file generation %d)\n", static_cast<unsigned long long>(id),
                      gen_of_[id]);
        ++lost;
      } else if (it->second > 1) {
        if (duplicated < 10)
          std::printf("[ torture ] duplicated id %llu (file generation %d)\n", static_cast<unsigned long long>(id),
                      gen_of_[id]);
        duplicated += it->second - 1;
      }
    }
    for (const auto& [id, n] : seen_)
      if (id >= next_id_) ADD_FAILURE() << "id " << id << " was never written";
    EXPECT_EQ(lost, 0u) << kind_name(kind_);
    EXPECT_EQ(duplicated, 0u) << kind_name(kind_);
    std::printf("[ torture ] %s: %llu lines written, %d restarts\n", kind_name(kind_),
                static_cast<unsigned long long>(next_id_), restarts_);
  }

 private:
  void create_file() {
    ++file_gen_;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    ASSERT_GE(fd_, 0);
    if (kind_ == Kind::kIdenticalHeads) {
      std::string header = "# banner: the same in every file, longer than the checksummed head ";
      while (header.size() < 300) header += "=";
      header += "\n";
      ASSERT_EQ(::write(fd_, header.data(), header.size()), static_cast<ssize_t>(header.size()));
    }
  }

  void write_lines(int n) {
    for (int i = 0; i < n; ++i) {
      char buf[96];
      int len = std::snprintf(buf, sizeof buf, "id=%08llu some payload %u\n", static_cast<unsigned long long>(next_id_),
                              static_cast<unsigned>(rng_() % 100000));
      ASSERT_EQ(::write(fd_, buf, static_cast<size_t>(len)), len);
      gen_of_[next_id_] = file_gen_;
      ++next_id_;
    }
  }

  // .1 -> .2 -> ...; the oldest generation is deleted only once every line
  // in it was committed (deleting unread lines would lose them for anyone).
  void shift_generations() {
    std::error_code ec;
    if (rotated_.size() >= kGenerations && committed_gen(rotated_.back())) {
      fs::remove(path_ + "." + std::to_string(rotated_.size()), ec);
      rotated_.pop_back();
    }
    for (size_t g = rotated_.size(); g >= 1; --g) {
      fs::rename(path_ + "." + std::to_string(g), path_ + "." + std::to_string(g + 1), ec);
      if (g == 1 || rng_() % 4 == 0) hook_maybe_kill();
    }
    rotated_.insert(rotated_.begin(), file_gen_);
  }

  bool committed_gen(int gen) const {
    for (const auto& [id, g] : gen_of_)
      if (g == gen && !seen_.count(id)) return false;
    return true;
  }

  void rotate() {
    switch (kind_) {
      case Kind::kRename:
      case Kind::kIdenticalHeads:
      case Kind::kKilledDuringRotation:
        rename_rotation();
        break;
      case Kind::kDownDuringThree:
        if (rng_() % 3 == 0) {
          commit_maybe();  // a clean stop, or a kill -9 that loses what was not committed
          stop(/*discard=*/true);
          for (int i = 0; i < 3; ++i) {
            rename_rotation();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            write_lines(1 + static_cast<int>(rng_() % 4));
          }
          start();
        } else {
          rename_rotation();
        }
        break;
      case Kind::kCopyTruncate: {
        if (trace_)
          std::printf("  copytruncate, gen %d ends at id %llu\n", file_gen_, static_cast<unsigned long long>(next_id_));
        shift_generations();
        std::ifstream in(path_, std::ios::binary);
        std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream out(path_ + ".1", std::ios::binary | std::ios::trunc);
        out << all;
        out.close();
        hook_maybe_kill();
        ASSERT_EQ(::ftruncate(fd_, 0), 0);
        ++file_gen_;
        break;
      }
      case Kind::kTruncateRegrowWhileDown: {
        drain_and_commit();
        stop(false);
        ASSERT_EQ(::ftruncate(fd_, 0), 0);
        write_lines(8 + static_cast<int>(rng_() % 8));  // regrown past the old position
        start();
        break;
      }
      case Kind::kInodeReuse: {
        drain_and_commit();
        stop(false);
        struct stat before {};
        ::fstat(fd_, &before);
        ::close(fd_);
        ::unlink(path_.c_str());
        create_file();
        struct stat after {};
        ::fstat(fd_, &after);
        if (after.st_ino == before.st_ino) ++inode_reused_;
        write_lines(8 + static_cast<int>(rng_() % 8));
        start();
        break;
      }
    }
  }

  void rename_rotation() {
    if (trace_)
      std::printf("  rename rotation, gen %d ends at id %llu\n", file_gen_, static_cast<unsigned long long>(next_id_));
    shift_generations();
    ASSERT_EQ(::rename(path_.c_str(), (path_ + ".1").c_str()), 0);
    hook_maybe_kill();
    ::close(fd_);
    create_file();
  }

  // A poll, sometimes a commit, sometimes a kill.
  void hook() {
    clock_.advance_ms(10);
    if (rng_() % 2 == 0) poll();
    if (rng_() % 3 == 0) commit();
    hook_maybe_kill();
  }

  void hook_maybe_kill() {
    if (!tailer_) return;  // down
    const uint32_t per_mille = kind_ == Kind::kKilledDuringRotation ? 300 : 5;
    if (rng_() % 1000 < per_mille) {
      if (rng_() % 2 == 0) poll();
      stop(true);
      start();
    }
  }

  void poll() {
    (void)tailer_->poll([&](const std::string& path, std::string_view line) {
      EXPECT_EQ(path, path_);
      if (line.rfind("#", 0) == 0) return;  // the banner
      unsigned long long id = 0;
      if (std::sscanf(std::string(line).c_str(), "id=%llu", &id) != 1) {
        ADD_FAILURE() << "unexpected line: " << line;
        return;
      }
      pending_.push_back(id);
      if (trace_) std::printf("  read %llu\n", id);
    });
  }

  void commit() {
    if (trace_) std::printf("  commit\n");
    for (uint64_t id : pending_) ++seen_[id];
    pending_.clear();
    saved_ = tailer_->cursors();
  }
  void commit_maybe() {
    if (rng_() % 2 == 0) {
      poll();
      commit();
    }
  }
  void drain_and_commit() {
    poll();
    poll();
    commit();
    // Lines truncated away later were all read: anything not read now is gone.
  }

  void start() {
    if (trace_) std::printf("  start (gen %d)\n", file_gen_);
    TailerOptions opt;
    opt.patterns = {path_};
    opt.from_beginning = true;
    opt.rotated_grace_ms = 100;
    tailer_ = std::make_unique<FileTailer>(opt, clock_);
    tailer_->restore(saved_);
    ++restarts_;
  }
  void stop(bool discard) {
    if (trace_) std::printf("  stop%s\n", discard ? " (discarding)" : "");
    if (discard) pending_.clear();
    ASSERT_TRUE(pending_.empty()) << "a clean stop commits first";
    tailer_.reset();
  }

  void finish() {
    for (int i = 0; i < 5; ++i) {
      clock_.advance_ms(1000);
      poll();
    }
    commit();
    if (kind_ == Kind::kInodeReuse) {
      std::printf("[ torture ] inode reused by the filesystem in %d of the rotations\n", inode_reused_);
    }
  }

  Kind kind_;
  std::string dir_, path_;
  std::mt19937 rng_;
  base::ManualClock clock_{1'000'000};
  int fd_ = -1;
  uint64_t next_id_ = 0;
  std::map<uint64_t, int> seen_;
  std::vector<uint64_t> pending_;
  std::vector<FileCursor> saved_;
  std::unique_ptr<FileTailer> tailer_;
  int restarts_ = 0;
  bool trace_ = std::getenv("LLMON_TORTURE_TRACE") != nullptr;
  int file_gen_ = 0;
  std::vector<int> rotated_;  // the generation in a.log.1, a.log.2, ...
  std::map<uint64_t, int> gen_of_;
  int inode_reused_ = 0;
};

class RotationTorture : public ::testing::TestWithParam<Kind> {};

TEST_P(RotationTorture, ThousandRotationsLoseAndRepeatNothing) {
  testing::TempDir dir;  // on disk (ext4 reuses inode numbers; tmpfs does not)
  const int rotations =
      std::getenv("LLMON_TORTURE_ROTATIONS") ? std::atoi(std::getenv("LLMON_TORTURE_ROTATIONS")) : 1000;
  Torture t(GetParam(), dir.path(), 20261202u + static_cast<uint32_t>(GetParam()));
  t.run(rotations);
  t.check();
}

INSTANTIATE_TEST_SUITE_P(Kinds, RotationTorture,
                         ::testing::Values(Kind::kRename, Kind::kCopyTruncate, Kind::kTruncateRegrowWhileDown,
                                           Kind::kInodeReuse, Kind::kIdenticalHeads, Kind::kKilledDuringRotation,
                                           Kind::kDownDuringThree),
                         [](const auto& info) { return std::string(kind_name(info.param)); });

}  // namespace
}  // namespace llmon::logwatch
