// Capture on demand (src/trace/capture/): the IPC layouts against bytes
// built independently from the published C structs, the process table's
// matching (dynolog's rules), the Kineto config text, and a whole capture
// over a real abstract socket with an in-process client that plays Kineto.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "trace/capture/capture_service.h"
#include "trace/capture/ipc_server.h"
#include "trace/capture/kineto_config.h"
#include "trace/capture/kineto_ipc.h"
#include "trace/capture/process_table.h"

namespace llmon::trace::capture {
namespace {

// The structs exactly as dynolog declares them (ipcfabric/FabricManager.h, Utils.h).
struct CMetadata {
  size_t size = 0;
  char type[32] = "";
};
struct CContext {
  int32_t gpu;
  pid_t pid;
  int64_t jobid;
};
struct CRequestHead {
  int type;
  int n;
  int64_t jobid;
};
static_assert(sizeof(CMetadata) == kMetadataSize);
static_assert(sizeof(CContext) == kContextSize);
static_assert(sizeof(CRequestHead) == kRequestHeaderSize);

template <typename T>
std::string bytes_of(const T& v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof v);
}

std::string c_message(const char* type, const std::string& payload) {
  CMetadata m;
  m.size = payload.size();
  std::strcpy(m.type, type);
  return bytes_of(m) + payload;
}

TEST(KinetoIpc, DecodesTheCStructs) {
  CContext c{3, 4242, 77};
  auto m = decode_message(c_message("ctxt", bytes_of(c)));
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m->type, "ctxt");
  auto ctx = decode_context(m->payload);
  ASSERT_TRUE(ctx) << ctx.error();
  EXPECT_EQ(ctx->gpu, 3);
  EXPECT_EQ(ctx->pid, 4242);
  EXPECT_EQ(ctx->job_id, 77);

  CRequestHead h{kConfigActivities, 3, 9};
  int32_t pids[3] = {100, 50, 1};
  std::string payload = bytes_of(h) + std::string(reinterpret_cast<const char*>(pids), sizeof pids);
  auto r = decode_message(c_message("req", payload));
  ASSERT_TRUE(r);
  auto req = decode_request(r->payload);
  ASSERT_TRUE(req) << req.error();
  EXPECT_EQ(req->type, kConfigActivities);
  EXPECT_EQ(req->job_id, 9);
  EXPECT_EQ(req->pids, (std::vector<int32_t>{100, 50, 1}));
}

TEST(KinetoIpc, EncodesWhatTheCStructsRead) {
  std::string reply = encode_context_reply(5);
  ASSERT_EQ(reply.size(), kMetadataSize + 4);
  CMetadata m;
  std::memcpy(&m, reply.data(), sizeof m);
  EXPECT_EQ(m.size, 4u);
  EXPECT_STREQ(m.type, "ctxt");
  int32_t n;
  std::memcpy(&n, reply.data() + kMetadataSize, 4);
  EXPECT_EQ(n, 5);

  std::string cfg = encode_config_reply("A=1\n");
  std::memcpy(&m, cfg.data(), sizeof m);
  EXPECT_EQ(m.size, 4u);
  EXPECT_STREQ(m.type, "req");
  EXPECT_EQ(cfg.substr(kMetadataSize), "A=1\n");
  EXPECT_EQ(encode_config_reply("").size(), kMetadataSize);  // "nothing to do"

  Request rq;
  rq.type = 2;
  rq.job_id = 1;
  rq.pids = {7, 6};
  EXPECT_EQ(encode_request(rq),
            c_message("req", bytes_of(CRequestHead{2, 2, 1}) + bytes_of(int32_t{7}) + bytes_of(int32_t{6})));
  EXPECT_EQ(encode_context({1, 2, 3}), c_message("ctxt", bytes_of(CContext{1, 2, 3})));
}

TEST(KinetoIpc, RejectsBadLengths) {
  EXPECT_FALSE(decode_message(std::string(39, '\0')));
  std::string m = c_message("req", "abcd");
  EXPECT_FALSE(decode_message(m.substr(0, m.size() - 1)));  // size says more than there is
  EXPECT_FALSE(decode_message(m + "x"));                    // and less
  std::string no_nul = m;
  std::memset(no_nul.data() + 8, 'a', 32);
  EXPECT_FALSE(decode_message(no_nul));
  EXPECT_FALSE(decode_context(std::string(15, '\0')));
  EXPECT_FALSE(decode_context(bytes_of(CContext{0, 0, 0})));  // pid 0
  EXPECT_FALSE(decode_request(bytes_of(CRequestHead{2, 0, 0})));
  EXPECT_FALSE(decode_request(bytes_of(CRequestHead{2, -1, 0})));
  EXPECT_FALSE(decode_request(bytes_of(CRequestHead{2, 2, 0}) + bytes_of(int32_t{5})));
  auto e = decode_request(bytes_of(CRequestHead{2, 1 << 30, 0}));
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("n = 1073741824"), std::string::npos) << e.error();
}

TEST(ProcessTable, RegistersMatchesAndHandsOutConfigsOnce) {
  ProcessTable t;
  EXPECT_EQ(t.on_context({0, 100, 7}, 0, 1000), 1);
  EXPECT_EQ(t.on_context({0, 101, 7}, 0, 1000), 2);
  EXPECT_EQ(t.on_context({1, 102, 7}, 0, 1000), 1);
  EXPECT_EQ(t.on_request({kConfigActivities, 7, {100, 50, 1}}, 0, 1100), "");
  EXPECT_EQ(t.on_request({kConfigActivities, 7, {101, 50, 1}}, 0, 1100), "");
  EXPECT_EQ(t.on_request({kConfigActivities, 8, {200, 1}}, 0, 1100), "");  // poll without ctxt: registered
  EXPECT_EQ(t.list(1200).size(), 4u);

  auto pids = [&](const Selector& s) {
    std::vector<int32_t> v;
    for (const auto& p : t.match(s, 1200)) v.push_back(p.pid);
    return v;
  };
  EXPECT_EQ(pids({}), (std::vector<int32_t>{100, 101, 102, 200}));
  EXPECT_EQ(pids({50, {}, {}}), (std::vector<int32_t>{100, 101}));  // a launcher selects its workers
  EXPECT_EQ(pids({{}, 0, {}}), (std::vector<int32_t>{100, 101}));
  EXPECT_EQ(pids({{}, {}, 8}), (std::vector<int32_t>{200}));
  EXPECT_EQ(pids({{}, 1, 8}), (std::vector<int32_t>{}));

  ASSERT_TRUE(t.install(100, "X=1\n"));
  EXPECT_FALSE(t.install(100, "Y=1\n"));  // busy
  EXPECT_FALSE(t.install(999, "Y=1\n"));  // unknown
  EXPECT_TRUE(t.pending(100));
  EXPECT_EQ(t.on_request({kConfigEvents, 7, {100, 50, 1}}, 0, 1300), "");  // events only: not for us
  EXPECT_EQ(t.on_request({kConfigActivities | kConfigEvents, 7, {100, 50, 1}}, 0, 1300), "X=1\n");
  EXPECT_FALSE(t.pending(100));
  EXPECT_EQ(t.on_request({kConfigActivities, 7, {100, 50, 1}}, 0, 1400), "");  // once

  // Forgotten after a minute without a poll.
  EXPECT_EQ(t.list(1400 + kForgetAfterMs + 1).size(), 0u);
}

TEST(KinetoConfig, DurationAndIterationConfigsAsDynoSendsThem) {
  CaptureSpec d;
  d.duration_ms = 42;
  EXPECT_EQ(kineto_config(d, "/t/a.json"),
            "ACTIVITIES_LOG_FILE=/t/a.json\nPROFILE_START_TIME=0\nACTIVITIES_DURATION_MSECS=42\n"
            "PROFILE_REPORT_INPUT_SHAPES=false\nPROFILE_PROFILE_MEMORY=false\nPROFILE_WITH_STACK=false\n"
            "PROFILE_WITH_FLOPS=false\nPROFILE_WITH_MODULES=false\n");
  CaptureSpec i;
  i.iterations = 3;
  i.with_stack = true;
  std::string c = kineto_config(i, "/t/a.json");
  EXPECT_NE(c.find("PROFILE_START_ITERATION=0\nPROFILE_START_ITERATION_ROUNDUP=1\nACTIVITIES_ITERATIONS=3\n"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("PROFILE_WITH_STACK=true\n"), std::string::npos);
  EXPECT_EQ(c.find("DURATION"), std::string::npos);

  EXPECT_EQ(trace_stem("gpu01.example/x", 12, 1764777600123), "gpu01.example_x_12_20251203T160000.123Z");
  auto p = expected_trace_paths("/d", "h_12_T", 12);
  EXPECT_EQ(p[0], "/d/h_12_T_12.json");
  EXPECT_EQ(p[1], "/d/h_12_T.json");
  EXPECT_TRUE(looks_complete("{\"traceEvents\": []}\n"));
  EXPECT_FALSE(looks_complete("{\"traceEvents\": [{},"));
}

// A Kineto stand-in on a real abstract socket: registers, polls every 20 ms,
// writes a trace where the config says (with Kineto's _<pid>).
class FakeKineto {
 public:
  FakeKineto(const std::string& daemon, int32_t pid, int32_t gpu, bool write) : pid_(pid) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::string me = "llmon-test-client-" + std::to_string(::getpid()) + "-" + std::to_string(pid);
    std::memcpy(a.sun_path + 1, me.data(), me.size());
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), static_cast<socklen_t>(sizeof(sa_family_t) + me.size() + 2));
    std::memset(&to_, 0, sizeof to_);
    to_.sun_family = AF_UNIX;
    std::memcpy(to_.sun_path + 1, daemon.data(), daemon.size());
    to_len_ = static_cast<socklen_t>(sizeof(sa_family_t) + daemon.size() + 2);
    timeval tv{0, 100000};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    auto reply = exchange(encode_context({gpu, pid, 0}));
    registered_ = reply ? decode_context_reply(decode_message(*reply)->payload).value() : -1;
    thread_ = std::thread([this, write] { loop(write); });
  }
  ~FakeKineto() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  int32_t registered() const { return registered_; }
  std::string config() {
    std::lock_guard<std::mutex> g(mu_);
    return config_;
  }

 private:
  std::optional<std::string> exchange(const std::string& msg) {
    if (::sendto(fd_, msg.data(), msg.size(), 0, reinterpret_cast<sockaddr*>(&to_), to_len_) < 0) return {};
    char buf[65536];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0) return {};
    return std::string(buf, static_cast<size_t>(n));
  }
  void loop(bool write) {
    while (!stop_) {
      auto r = exchange(encode_request({kConfigActivities, 0, {pid_, 1}}));
      if (r) {
        auto m = decode_message(*r);
        if (m && !m->payload.empty()) {
          std::string cfg(m->payload);
          {
            std::lock_guard<std::mutex> g(mu_);
            config_ = cfg;
          }
          auto at = cfg.find("ACTIVITIES_LOG_FILE=");
          std::string file = cfg.substr(at + 20, cfg.find('\n', at) - at - 20);
          file.replace(file.rfind(".json"), 5, "_" + std::to_string(pid_) + ".json");
          if (write) {
            std::ofstream(file) << R"({"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 100, "dur": 60, "args": {"stream": 7, "device": 0, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "vectorized_elementwise_kernel", "pid": 0, "tid": 7, "ts": 180, "dur": 20, "args": {"stream": 7, "device": 0, "correlation": 2}}
], "displayTimeUnit": "ms"}
)";
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  int fd_ = -1;
  int32_t pid_;
  int32_t registered_ = -1;
  sockaddr_un to_;
  socklen_t to_len_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::string config_;
  std::thread thread_;
};

class CaptureRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("llmon-capture-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    name_ = "llmon-test-dynolog-" + std::to_string(::getpid());
    auto s = IpcServer::start(name_, table_, clock_, log_);
    ASSERT_TRUE(s) << s.error();
    server_ = std::move(*s);
    CaptureServiceOptions o;
    o.dir = dir_.string();
    o.host = "testhost";
    o.socket_name = name_;
    o.pickup_timeout_ms = 3000;
    o.settle_ms = 100;
    o.poll_interval_ms = 10;
    service_ = std::make_unique<CaptureService>(o, table_, clock_, log_);
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
  std::string name_;
  ProcessTable table_;
  base::SystemClock clock_;
  base::Logger log_{base::LogLevel::kError};
  std::unique_ptr<IpcServer> server_;
  std::unique_ptr<CaptureService> service_;
};

TEST_F(CaptureRoundTrip, NoProcessesNamesTheSocket) {
  CaptureOutcome o = service_->capture({});
  EXPECT_FALSE(o.ok());
  EXPECT_NE(o.error.find("No processes were matched"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find(name_), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("KINETO_USE_DAEMON=1"), std::string::npos) << o.error;
}

TEST_F(CaptureRoundTrip, CapturesGzipsAndAnalyses) {
  FakeKineto a(name_, 4001, 0, true);
  FakeKineto b(name_, 4002, 1, true);
  EXPECT_EQ(a.registered(), 1);
  EXPECT_EQ(b.registered(), 1);
  CaptureRequest req;
  req.selector.gpu = 1;
  req.spec.duration_ms = 10;
  req.timeout_ms = 5000;
  CaptureOutcome o = service_->capture(req);
  ASSERT_TRUE(o.ok()) << o.error;
  ASSERT_EQ(o.matched, std::vector<int32_t>{4002});
  ASSERT_EQ(o.traces.size(), 1u);
  const CapturedTrace& t = o.traces[0];
  EXPECT_NE(b.config().find("ACTIVITIES_DURATION_MSECS=10\n"), std::string::npos) << b.config();
  EXPECT_EQ(a.config(), "");
  EXPECT_TRUE(t.path.starts_with(dir_.string() + "/testhost_4002_")) << t.path;
  EXPECT_TRUE(t.path.ends_with(".json.gz")) << t.path;
  EXPECT_TRUE(std::filesystem::exists(t.path));
  EXPECT_FALSE(std::filesystem::exists(t.awaited));  // the plain file is replaced by the .gz
  EXPECT_EQ(t.report["kernels"]["total"], 2);
  EXPECT_NEAR(t.report["temporal"]["idle_pct"].get<double>(), 20.0, 1e-9);
  EXPECT_NE(t.headline.find("top kernel ampere_sgemm_128x64_nn 75.0%"), std::string::npos) << t.headline;
  EXPECT_EQ(o.registered.size(), 2u);
}

TEST_F(CaptureRoundTrip, ATraceNeverWrittenTimesOutNamingTheFile) {
  FakeKineto a(name_, 4003, 0, false);
  CaptureRequest req;
  req.spec.duration_ms = 10;
  req.timeout_ms = 300;
  CaptureOutcome o = service_->capture(req);
  ASSERT_FALSE(o.ok());
  ASSERT_EQ(o.traces.size(), 1u);
  EXPECT_NE(o.error.find("timed out"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find(o.traces[0].awaited), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("KINETO_ONDEMAND_TRACE_DIR=" + dir_.string()), std::string::npos) << o.error;
}

TEST_F(CaptureRoundTrip, SecondServerOnTheSameNameIsRefused) {
  ProcessTable t2;
  auto s = IpcServer::start(name_, t2, clock_, log_);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("already in use"), std::string::npos) << s.error();
}

}  // namespace
}  // namespace llmon::trace::capture
