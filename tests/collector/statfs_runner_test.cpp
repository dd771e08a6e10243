#include "collector/statfs_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

namespace llmon::collector {
namespace {

using Outcome = StatfsRunner::Outcome;

// Paths in `hung` block until release(); "/err" fails with ENOENT; others succeed
// with f_blocks = the path's length.
struct Fake {
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::string> hung;
  std::atomic<int> in_flight{0};

  void release() {
    {
      std::lock_guard lk(mu);
      hung.clear();
    }
    cv.notify_all();
  }
  static StatfsRunner::StatvfsFn fn(std::shared_ptr<Fake> f) {
    return [f](const char* path, struct statvfs* st) {
      std::string p(path);
      f->in_flight++;
      {
        std::unique_lock lk(f->mu);
        f->cv.wait(lk, [&] { return f->hung.count(p) == 0; });
      }
      f->in_flight--;
      if (p == "/err") {
        errno = ENOENT;
        return -1;
      }
      *st = {};
      st->f_blocks = p.size();
      return 0;
    };
  }
};

TEST(StatfsRunner, AnswersAndErrors) {
  auto f = std::make_shared<Fake>();
  StatfsRunner r(Fake::fn(f), 20);
  std::vector<StatfsRunner::Result> out;
  r.run({"/a", "/err", "/bbb"}, 1000, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].outcome, Outcome::kOk);
  EXPECT_EQ(out[0].st.f_blocks, 2u);
  EXPECT_EQ(out[1].outcome, Outcome::kError);
  EXPECT_EQ(out[1].err, ENOENT);
  EXPECT_EQ(out[2].st.f_blocks, 4u);
  r.run({}, 1000, out);
  EXPECT_TRUE(out.empty());
}

TEST(StatfsRunner, SeveralHungPathsOthersAnswerAndRecover) {
  auto f = std::make_shared<Fake>();
  f->hung = {"/h1", "/h2"};
  StatfsRunner r(Fake::fn(f), 10);
  std::vector<StatfsRunner::Result> out;
  auto t0 = std::chrono::steady_clock::now();
  r.run({"/h1", "/a", "/h2", "/b", "/c"}, 250, out);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(ms, 240);
  EXPECT_LT(ms, 1500);
  EXPECT_EQ(out[0].outcome, Outcome::kTimeout);
  EXPECT_EQ(out[2].outcome, Outcome::kTimeout);
  for (size_t i : {1u, 3u, 4u}) EXPECT_EQ(out[i].outcome, Outcome::kOk) << i;
  EXPECT_TRUE(r.is_stuck("/h1"));
  EXPECT_TRUE(r.is_stuck("/h2"));
  EXPECT_FALSE(r.is_stuck("/a"));
  EXPECT_EQ(f->in_flight.load(), 2);

  // Next run: stuck paths answer at once, without new calls.
  t0 = std::chrono::steady_clock::now();
  r.run({"/h1", "/a", "/h2"}, 250, out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));
  EXPECT_EQ(out[0].outcome, Outcome::kStuck);
  EXPECT_EQ(out[1].outcome, Outcome::kOk);
  EXPECT_EQ(out[2].outcome, Outcome::kStuck);
  EXPECT_EQ(f->in_flight.load(), 2);

  f->release();
  ASSERT_TRUE(r.wait_idle(2000));
  EXPECT_FALSE(r.is_stuck("/h1"));
  EXPECT_FALSE(r.is_stuck("/h2"));
  r.run({"/h1", "/h2"}, 250, out);
  EXPECT_EQ(out[0].outcome, Outcome::kOk);
  EXPECT_EQ(out[1].outcome, Outcome::kOk);
  // Extra workers leave once idle: one remains.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (r.live_workers() > 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(r.live_workers(), 1u);
}

TEST(StatfsRunner, WorkerCapBoundsThreads) {
  auto f = std::make_shared<Fake>();
  f->hung = {"/1", "/2", "/3", "/4", "/5"};
  StatfsRunner r(Fake::fn(f), 5, /*max_workers=*/2);
  std::vector<StatfsRunner::Result> out;
  r.run({"/1", "/2", "/3", "/4", "/5", "/ok"}, 200, out);
  EXPECT_LE(r.live_workers(), 2u);
  EXPECT_EQ(f->in_flight.load(), 2);
  // Two calls were outstanding (stuck); the rest never started (timeout, not stuck).
  int stuck = 0;
  for (const char* p : {"/1", "/2", "/3", "/4", "/5", "/ok"}) stuck += r.is_stuck(p);
  EXPECT_EQ(stuck, 2);
  EXPECT_EQ(out[5].outcome, Outcome::kTimeout);
  f->release();
  EXPECT_TRUE(r.wait_idle(2000));
}

}  // namespace
}  // namespace llmon::collector
