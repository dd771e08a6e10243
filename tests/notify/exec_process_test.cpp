// run_process(): the child's stdin/stdout/stderr, exit codes, the timeout
// (SIGTERM, then SIGKILL of the whole process group), bounded output, and
// what the child must not inherit (descriptors, ignored signals, working
// directory). Child programs are small /bin/sh scripts in a temp dir.
#include "notify/senders/exec_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace llmon::notify {
namespace {

namespace fs = std::filesystem;

class ExecProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = (fs::path(::testing::TempDir()) / "llmon-execp-XXXXXX").string();
    ASSERT_NE(::mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string script(const std::string& name, const std::string& body) {
    fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    ::chmod(p.c_str(), 0755);
    return p.string();
  }
  ExecRequest req(const std::string& path) {
    ExecRequest r;
    r.path = path;
    r.argv = {path};
    r.env = {"PATH=/usr/bin:/bin"};
    r.timeout_ms = 10000;
    return r;
  }

  fs::path dir_;
};

TEST_F(ExecProcessTest, StdinStdoutStderrAndExitCode) {
  ExecRequest r = req(script("s.sh", "cat\necho to-stderr >&2\nexit 3\n"));
  r.stdin_data = "hello\nworld";
  ExecResult res = run_process(r);
  ASSERT_TRUE(res.started) << res.error;
  EXPECT_EQ(res.stdout_data, "hello\nworld");
  EXPECT_EQ(res.stderr_data, "to-stderr\n");
  EXPECT_EQ(res.exit_code, 3);
  EXPECT_EQ(res.term_signal, 0);
  EXPECT_FALSE(res.timed_out);
  EXPECT_FALSE(res.success());
  EXPECT_EQ(res.describe(r.timeout_ms), "exit 3");

  ExecResult ok = run_process(req(script("ok.sh", "exit 0\n")));
  EXPECT_TRUE(ok.success());
  EXPECT_EQ(ok.describe(1), "exit 0");
}

TEST_F(ExecProcessTest, OnlyTheGivenEnvironmentAndArgv) {
  ExecRequest r = req(script("env.sh", "cat /proc/$$/environ; printf '|'; printf '%s\\n' \"$@\"\n"));
  r.argv = {r.path, "a b", "$HOME", ";echo x", ""};
  r.env = {"PATH=/usr/bin:/bin", "ONE=1", "TWO=two words"};
  ::setenv("LLMON_TEST_SECRET", "leak", 1);
  ExecResult res = run_process(r);
  ::unsetenv("LLMON_TEST_SECRET");
  ASSERT_TRUE(res.success()) << res.describe(0) << res.stderr_data;
  const char nul = '\0';
  EXPECT_EQ(res.stdout_data, std::string("PATH=/usr/bin:/bin") + nul + "ONE=1" + nul + "TWO=two words" + nul +
                                 "|a b\n$HOME\n;echo x\n\n");
}

TEST_F(ExecProcessTest, NotStarted) {
  ExecResult res = run_process(req((dir_ / "missing").string()));
  EXPECT_FALSE(res.started);
  EXPECT_NE(res.error.find("No such file or directory"), std::string::npos) << res.error;
  EXPECT_EQ(res.describe(0).rfind("not started: ", 0), 0u);
  std::string not_exec = (dir_ / "plain.txt").string();
  std::ofstream(not_exec) << "x";
  ExecResult res2 = run_process(req(not_exec));
  EXPECT_FALSE(res2.started);
  EXPECT_NE(res2.error.find("Permission denied"), std::string::npos) << res2.error;
}

TEST_F(ExecProcessTest, TimeoutTermThenKillWholeGroup) {
  // The script ignores SIGTERM and leaves a background child in its group.
  std::string pidfile = (dir_ / "bg.pid").string();
  ExecRequest r = req(script(
      "stubborn.sh", "trap '' TERM\nsleep 60 &\necho $! > " + pidfile + "\necho started\nwhile :; do sleep 1; done\n"));
  r.timeout_ms = 500;
  r.kill_grace_ms = 300;
  auto t0 = std::chrono::steady_clock::now();
  ExecResult res = run_process(r);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(res.started) << res.error;
  EXPECT_TRUE(res.timed_out);
  EXPECT_TRUE(res.killed);
  EXPECT_EQ(res.term_signal, SIGKILL);
  EXPECT_FALSE(res.success());
  EXPECT_EQ(res.stdout_data, "started\n");
  EXPECT_EQ(res.describe(500), "timeout after 500 ms (SIGKILL after grace period)");
  EXPECT_GE(s, 0.75);
  EXPECT_LT(s, 5.0);
  // The background sleep was in the group: it is gone (allow the reaper a moment).
  std::ifstream pf(pidfile);
  pid_t bg = 0;
  pf >> bg;
  ASSERT_GT(bg, 0);
  bool gone = false;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
       std::chrono::steady_clock::now() < deadline;) {
    std::ifstream stat("/proc/" + std::to_string(bg) + "/stat");
    std::string line;
    if (!stat || !std::getline(stat, line) || line.find(") Z ") != std::string::npos) {
      gone = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "background process " << bg << " survived";
}

TEST_F(ExecProcessTest, TimeoutHonouredTerm) {
  ExecRequest r = req(script("sleepy.sh", "exec sleep 60\n"));
  r.timeout_ms = 300;
  r.kill_grace_ms = 5000;
  ExecResult res = run_process(r);
  EXPECT_TRUE(res.timed_out);
  EXPECT_FALSE(res.killed);
  EXPECT_EQ(res.term_signal, SIGTERM);
  EXPECT_LT(res.duration_s, 4.0);
  EXPECT_EQ(res.describe(300), "timeout after 300 ms (SIGTERM)");
}

TEST_F(ExecProcessTest, OutputIsBoundedAndTheChildNotBlocked) {
  // 1 MiB on each stream, far beyond the pipe buffer and the 64 KiB bound.
  ExecRequest r = req(script("loud.sh", "head -c 1048576 /dev/zero | tr '\\0' a\nhead -c 1048576 /dev/zero >&2\n"));
  ExecResult res = run_process(r);
  ASSERT_TRUE(res.success()) << res.describe(0);
  EXPECT_EQ(res.stdout_data.size(), 64u * 1024);
  EXPECT_EQ(res.stdout_data, std::string(64 * 1024, 'a'));
  EXPECT_TRUE(res.stdout_truncated);
  EXPECT_EQ(res.stderr_data.size(), 64u * 1024);
  EXPECT_TRUE(res.stderr_truncated);
}

TEST_F(ExecProcessTest, ChildIgnoringStdinDoesNotHurtUs) {
  ExecRequest r = req(script("deaf.sh", "exec 0<&-\necho done\n"));
  r.stdin_data = std::string(4 << 20, 'x');  // more than any socket buffer
  ExecResult res = run_process(r);
  EXPECT_TRUE(res.success()) << res.describe(0);
  EXPECT_EQ(res.stdout_data, "done\n");
}

TEST_F(ExecProcessTest, CleanProcessState) {
  int leaked = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC on purpose
  ASSERT_GE(leaked, 0);
  struct sigaction ign {
  }, old{};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGUSR1, &ign, &old);
  ExecRequest r = req(script("state.sh",
                             "pwd\n"
                             "if [ -e /proc/$$/fd/" +
                                 std::to_string(leaked) +
                                 " ]; then echo leaked; else echo clean; fi\n"
                                 "grep SigIgn /proc/$$/status | cut -f2\n"
                                 "cut -d' ' -f5 /proc/$$/stat\necho $$\n"));
  ExecResult res = run_process(r);
  ::sigaction(SIGUSR1, &old, nullptr);
  ::close(leaked);
  ASSERT_TRUE(res.success()) << res.describe(0) << res.stderr_data;
  std::istringstream out(res.stdout_data);
  std::string cwd, fd_state, sigign, pgrp, pid;
  std::getline(out, cwd);
  std::getline(out, fd_state);
  std::getline(out, sigign);
  std::getline(out, pgrp);
  std::getline(out, pid);
  EXPECT_EQ(cwd, "/");
  EXPECT_EQ(fd_state, "clean");
  unsigned long long mask = std::stoull(sigign, nullptr, 16);
  EXPECT_EQ(mask & (1ull << (SIGUSR1 - 1)), 0u) << "SIGUSR1 still ignored: " << sigign;
  EXPECT_EQ(pgrp, pid) << "not its own process group";
}

}  // namespace
}  // namespace llmon::notify
