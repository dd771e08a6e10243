// The exec receiver: allow-list (config time and run time), the child's
// exact environment and stdin JSON, shell metacharacters arriving verbatim,
// outcomes for exit codes and timeouts, the concurrency limit, resolved
// handling, and the audit records/log line.
#include "notify/senders/exec_action.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

namespace llmon::notify {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kNow = 1714561500000;  // 2024-05-01 11:05 UTC
const std::string kNasty =
    "$(touch /tmp/llmon-pwned); rm -rf /nonexistent ; `id` \"dq\" 'sq' | & > < * ? ~ \\ \n second line";

Notification notification() {
  Notification n;
  n.receiver = "remediate";
  n.group_key = "{}/{severity=\"critical\"}:{alertname=\"GpuXidError\"}";
  n.group_labels = {{"alertname", "GpuXidError"}};
  n.created_ms = kNow;
  n.external_url = "http://node1:9100";
  Alert a;
  a.labels = {{"alertname", "GpuXidError"},
              {"cmd", kNasty},
              {"gpu-uuid", "GPU-1234"},
              {"gpu_uuid", "collides"},
              {"instance", "node1"}};
  a.annotations = {{"summary", "Xid 79 on GPU 0"}, {"value", "79"}};
  a.starts_at_ms = kNow - 60000;
  a.ends_at_ms = kNow + 240000;
  n.alerts.push_back(a);
  Alert b = a;
  b.labels = {{"alertname", "GpuXidError"}, {"instance", "node2"}};
  b.annotations = {};
  n.alerts.push_back(b);
  return n;
}

class ExecActionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = (fs::path(::testing::TempDir()) / "llmon-exec-XXXXXX").string();
    ASSERT_NE(::mkdtemp(t.data()), nullptr);
    dir_ = fs::canonical(t);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string script(const std::string& name, const std::string& body) {
    fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    ::chmod(p.c_str(), 0755);
    return p.string();
  }
  std::string read(const std::string& name) {
    std::ifstream f(dir_ / name, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  // Waits (polling, with a deadline) until the file exists.
  bool wait_for(const std::string& name, int timeout_ms = 10000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < deadline) {
      if (fs::exists(dir_ / name)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  ExecAllowList allow(const std::vector<std::string>& paths) {
    auto a = ExecAllowList::create(paths);
    EXPECT_TRUE(a) << a.error();
    return a ? *a : ExecAllowList();
  }
  std::unique_ptr<ExecSender> sender(ExecSenderConfig cfg, const ExecAllowList& list) {
    auto s = ExecSender::create(std::move(cfg), list, clock_, [this](const ExecAuditRecord& r) {
      std::lock_guard<std::mutex> lock(mu_);
      audits_.push_back(r);
    });
    EXPECT_TRUE(s) << s.error();
    return s ? std::move(*s) : nullptr;
  }
  std::vector<ExecAuditRecord> audits() {
    std::lock_guard<std::mutex> lock(mu_);
    return audits_;
  }

  fs::path dir_;
  base::ManualClock clock_{kNow};
  std::mutex mu_;
  std::vector<ExecAuditRecord> audits_;
};

TEST_F(ExecActionTest, AllowList) {
  std::string s = script("fix.sh", "exit 0\n");
  fs::create_symlink(s, dir_ / "link.sh");
  ExecAllowList list = allow({s, (dir_ / "link.sh").string(), s});
  EXPECT_EQ(list.paths(), std::vector<std::string>{s});  // canonical, deduplicated
  auto ok = list.check((dir_ / "link.sh").string());
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(*ok, s);
  auto other = list.check("/bin/true");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().find("is not in the exec allow-list"), std::string::npos) << other.error();
  auto rel = list.check("fix.sh");
  ASSERT_FALSE(rel);
  EXPECT_NE(rel.error().find("not an absolute path"), std::string::npos);
  auto dots = list.check(dir_.string() + "/../" + dir_.filename().string() + "/fix.sh");
  EXPECT_TRUE(dots) << dots.error();  // canonicalised before comparing

  auto bad = ExecAllowList::create({"relative/tool"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("not an absolute path"), std::string::npos);
  EXPECT_FALSE(ExecAllowList::create({(dir_ / "missing").string()}));
  std::ofstream(dir_ / "data.txt") << "x";
  auto noexec = ExecAllowList::create({(dir_ / "data.txt").string()});
  ASSERT_FALSE(noexec);
  EXPECT_NE(noexec.error().find("not executable"), std::string::npos);
  EXPECT_FALSE(ExecAllowList::create({dir_.string()}));  // a directory
}

TEST_F(ExecActionTest, ConfigValidation) {
  std::string s = script("fix.sh", "exit 0\n");
  ExecAllowList list = allow({s});
  auto err = [&](auto mutate) {
    ExecSenderConfig c;
    c.command = {s, "--flag"};
    mutate(c);
    Status st = validate_exec_config(c, list);
    EXPECT_FALSE(st);
    EXPECT_FALSE(ExecSender::create(c, list, clock_, [](const ExecAuditRecord&) {}));
    return st.message();
  };
  ExecSenderConfig good;
  good.command = {s};
  EXPECT_TRUE(validate_exec_config(good, list));
  EXPECT_NE(err([](auto& c) { c.command.clear(); }).find("command: missing"), std::string::npos);
  std::string sh = err([](auto& c) { c.command[0] = "/bin/sh"; });
  EXPECT_EQ(sh.rfind("exec: /bin/sh ", 0), 0u) << sh;  // may add "(resolves to /usr/bin/dash)"
  EXPECT_NE(sh.find("is not in the exec allow-list"), std::string::npos) << sh;
  EXPECT_NE(err([](auto& c) { c.command[0] = "sh"; }).find("not an absolute path"), std::string::npos);
  EXPECT_NE(err([](auto& c) { c.timeout_ms = 0; }).find("timeout"), std::string::npos);
  EXPECT_NE(err([](auto& c) { c.max_concurrent = 0; }).find("max_concurrent"), std::string::npos);
  EXPECT_NE(err([](auto& c) { c.command.push_back(std::string("a\0b", 3)); }).find("NUL"), std::string::npos);
  // An empty allow-list allows nothing.
  EXPECT_FALSE(validate_exec_config(good, ExecAllowList()));
}

TEST_F(ExecActionTest, EnvironmentNames) {
  EXPECT_EQ(exec_env_name("LLMON_LABEL_", "gpu-uuid"), "LLMON_LABEL_GPU_UUID");
  EXPECT_EQ(exec_env_name("LLMON_LABEL_", "a.b c=d"), "LLMON_LABEL_A_B_C_D");
  EXPECT_EQ(exec_env_name("LLMON_ANNOTATION_",
                          "\xc3\xbc"
                          "ber9"),
            "LLMON_ANNOTATION___BER9");
  Notification n = notification();
  std::vector<std::string> want = {
      "PATH=/usr/bin:/bin",
      "LLMON_ALERT_STATUS=firing",
      "LLMON_ALERT_COUNT=2",
      "LLMON_RECEIVER=remediate",
      "LLMON_GROUP_KEY={}/{severity=\"critical\"}:{alertname=\"GpuXidError\"}",
      "LLMON_LABEL_ALERTNAME=GpuXidError",
      "LLMON_LABEL_CMD=" + kNasty,
      "LLMON_LABEL_GPU_UUID=GPU-1234",  // "gpu_uuid" maps to the same name: the first wins
      "LLMON_LABEL_INSTANCE=node1",
      "LLMON_ANNOTATION_SUMMARY=Xid 79 on GPU 0",
      "LLMON_ANNOTATION_VALUE=79",
  };
  EXPECT_EQ(exec_environment(n), want);
  n.alerts[0].labels[1].second = std::string("cut\0here", 8);
  EXPECT_EQ(exec_environment(n)[6], "LLMON_LABEL_CMD=cut");
}

// The whole contract in one run: argv fixed, environment exact, stdin the
// webhook JSON, hostile label text verbatim and never interpreted.
TEST_F(ExecActionTest, RunsWithExactEnvironmentAndStdin) {
  std::string d = dir_.string();
  std::string s = script("capture.sh", "cat /proc/$$/environ > '" + d + "/environ'\ncat > '" + d +
                                           "/stdin'\nprintf '%s\\n' \"$@\" > '" + d +
                                           "/args'\necho ran ok\necho some warning >&2\n");
  ExecSenderConfig cfg;
  cfg.command = {s, "--gpu", "$LLMON_LABEL_CMD", "; touch /tmp/llmon-pwned-arg"};
  auto snd = sender(cfg, allow({s}));
  ASSERT_TRUE(snd);
  EXPECT_EQ(snd->kind(), "exec");
  Notification n = notification();
  DeliveryResult r = snd->send(n);
  ASSERT_EQ(r.outcome, DeliveryOutcome::kDelivered) << r.error;
  EXPECT_EQ(r.error, "");

  std::string env = read("environ");
  std::vector<std::string> got;
  for (size_t p = 0, e; (e = env.find('\0', p)) != std::string::npos; p = e + 1) got.push_back(env.substr(p, e - p));
  EXPECT_EQ(got, exec_environment(n));
  EXPECT_NE(env.find("LLMON_LABEL_CMD=" + kNasty + '\0'), std::string::npos);

  EXPECT_EQ(read("args"), "--gpu\n$LLMON_LABEL_CMD\n; touch /tmp/llmon-pwned-arg\n");
  EXPECT_FALSE(fs::exists("/tmp/llmon-pwned"));
  EXPECT_FALSE(fs::exists("/tmp/llmon-pwned-arg"));

  auto j = nlohmann::json::parse(read("stdin"), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << read("stdin");
  EXPECT_EQ(j["version"], "4");
  EXPECT_EQ(j["status"], "firing");
  EXPECT_EQ(j["receiver"], "remediate");
  EXPECT_EQ(j["groupKey"], n.group_key);
  EXPECT_EQ(j["externalURL"], "http://node1:9100");
  ASSERT_EQ(j["alerts"].size(), 2u);
  EXPECT_EQ(j["alerts"][0]["labels"]["cmd"], kNasty);
  EXPECT_EQ(j["alerts"][0]["annotations"]["summary"], "Xid 79 on GPU 0");
  EXPECT_EQ(j["alerts"][1]["labels"]["instance"], "node2");

  auto a = audits();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].time_ms, kNow);
  EXPECT_EQ(a[0].receiver, "remediate");
  EXPECT_EQ(a[0].argv, cfg.command);
  EXPECT_EQ(a[0].alert_names, (std::vector<std::string>{"GpuXidError", "GpuXidError"}));
  EXPECT_EQ(a[0].status, "exit 0");
  EXPECT_EQ(a[0].exit_code, 0);
  EXPECT_EQ(a[0].stdout_data, "ran ok\n");
  EXPECT_EQ(a[0].stderr_data, "some warning\n");
  EXPECT_EQ(a[0].outcome, DeliveryOutcome::kDelivered);
}

TEST_F(ExecActionTest, FailuresAreNotRetried) {
  std::string s = script("fail.sh", "echo '  disk full on /data' >&2\necho more >&2\nexit 4\n");
  ExecSenderConfig cfg;
  cfg.command = {s};
  auto snd = sender(cfg, allow({s}));
  DeliveryResult r = snd->send(notification());
  EXPECT_EQ(r.outcome, DeliveryOutcome::kFailed);
  EXPECT_EQ(r.error, "exec " + s + ": exit 4: disk full on /data");

  std::string slow = script("slow.sh", "exec sleep 60\n");
  ExecSenderConfig tcfg;
  tcfg.command = {slow};
  tcfg.timeout_ms = 300;
  tcfg.kill_grace_ms = 1000;
  auto tsnd = sender(tcfg, allow({slow}));
  auto t0 = std::chrono::steady_clock::now();
  DeliveryResult t = tsnd->send(notification());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_EQ(t.outcome, DeliveryOutcome::kFailed);
  EXPECT_EQ(t.error, "exec " + slow + ": timeout after 300 ms (SIGTERM)");
  auto a = audits();
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].status, "exit 4");
  EXPECT_EQ(a[0].outcome, DeliveryOutcome::kFailed);
  EXPECT_EQ(a[1].status, "timeout after 300 ms (SIGTERM)");
}

TEST_F(ExecActionTest, RefusedAtRunTimeWhenThePathChanges) {
  std::string s = script("fix.sh", "exit 0\n");
  fs::path link = dir_ / "current";
  fs::create_symlink(s, link);
  ExecSenderConfig cfg;
  cfg.command = {link.string()};
  auto snd = sender(cfg, allow({s}));
  ASSERT_TRUE(snd);
  EXPECT_EQ(snd->send(notification()).outcome, DeliveryOutcome::kDelivered);
  fs::remove(link);
  fs::create_symlink("/bin/true", link);  // now points outside the allow-list
  DeliveryResult r = snd->send(notification());
  EXPECT_EQ(r.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(r.error.find("is not in the exec allow-list"), std::string::npos) << r.error;
  auto a = audits();
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].status.rfind("refused: ", 0), 0u) << a[1].status;
  EXPECT_EQ(a[1].exit_code, -1);
}

TEST_F(ExecActionTest, ConcurrencyLimit) {
  std::string d = dir_.string();
  std::string s =
      script("wait.sh", "touch '" + d + "/started'\nwhile [ ! -e '" + d + "/go' ]; do sleep 0.02; done\nexit 0\n");
  ExecSenderConfig cfg;
  cfg.command = {s};
  cfg.max_concurrent = 1;
  auto snd = sender(cfg, allow({s}));
  DeliveryResult first;
  std::thread t([&] { first = snd->send(notification()); });
  ASSERT_TRUE(wait_for("started"));
  DeliveryResult second = snd->send(notification());
  EXPECT_EQ(second.outcome, DeliveryOutcome::kRetry);
  EXPECT_EQ(second.error, "exec " + s + ": not started: 1 run(s) in progress (max_concurrent 1)");
  std::ofstream(dir_ / "go") << "";
  t.join();
  EXPECT_EQ(first.outcome, DeliveryOutcome::kDelivered) << first.error;
  EXPECT_EQ(snd->send(notification()).outcome, DeliveryOutcome::kDelivered);  // the slot is free again
  auto a = audits();
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].status.rfind("skipped: ", 0), 0u);
  EXPECT_EQ(a[0].outcome, DeliveryOutcome::kRetry);
}

TEST_F(ExecActionTest, ResolvedHandling) {
  std::string d = dir_.string();
  std::string s = script("count.sh", "echo \"$LLMON_ALERT_STATUS $LLMON_ALERT_COUNT\" >> '" + d + "/runs'\n");
  Notification resolved = notification();
  for (auto& a : resolved.alerts) a.ends_at_ms = kNow - 1000;
  ExecSenderConfig cfg;
  cfg.command = {s};
  cfg.send_resolved = false;
  auto quiet = sender(cfg, allow({s}));
  EXPECT_EQ(quiet->send(resolved).outcome, DeliveryOutcome::kDelivered);
  EXPECT_FALSE(fs::exists(dir_ / "runs"));
  EXPECT_TRUE(audits().empty());
  Notification mixed = notification();
  mixed.alerts[1].ends_at_ms = kNow - 1000;
  EXPECT_EQ(quiet->send(mixed).outcome, DeliveryOutcome::kDelivered);
  EXPECT_EQ(read("runs"), "firing 1\n");

  cfg.send_resolved = true;
  auto loud = sender(cfg, allow({s}));
  EXPECT_EQ(loud->send(resolved).outcome, DeliveryOutcome::kDelivered);
  EXPECT_EQ(read("runs"), "firing 1\nresolved 2\n");
}

TEST_F(ExecActionTest, AuditLogLine) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  base::Logger logger(base::LogLevel::kInfo, f);
  ExecAuditSink sink = log_audit_sink(logger);
  ExecAuditRecord r;
  r.receiver = "remediate";
  r.argv = {"/usr/local/bin/fix", "a b"};
  r.alert_names = {"GpuXidError", "GpuXidError"};
  r.status = "exit 1";
  r.exit_code = 1;
  r.duration_s = 0.25;
  r.stdout_data = "line1\nline2\x1b[31m\r";
  r.stderr_data = std::string(2000, 'e');
  r.outcome = DeliveryOutcome::kFailed;
  sink(r);
  std::rewind(f);
  std::string line;
  char buf[8192];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) line.append(buf, n);
  std::fclose(f);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;  // one line
  EXPECT_NE(line.find("level=warn msg=\"exec action\" receiver=remediate"), std::string::npos) << line;
  EXPECT_NE(line.find("argv=\"[\\\"/usr/local/bin/fix\\\",\\\"a b\\\"]\""), std::string::npos) << line;
  EXPECT_NE(line.find("alerts=GpuXidError,GpuXidError"), std::string::npos);
  EXPECT_NE(line.find("status=\"exit 1\" exit_code=1 duration_s=0.250"), std::string::npos);
  EXPECT_NE(line.find("stdout=\"line1\\nline2\\\\x1b[31m\\\\x0d\""), std::string::npos) << line;
  EXPECT_NE(line.find("...(truncated)"), std::string::npos);
  EXPECT_LT(line.size(), 1500u);
}

}  // namespace
}  // namespace llmon::notify
