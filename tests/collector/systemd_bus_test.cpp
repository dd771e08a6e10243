// The sd-bus SystemdBus against a private dbus-daemon and tests/fake_systemd:
// the bus address is injected (no environment), per-call timeouts, and the
// collector end to end. Skipped where dbus-daemon is not installed.
#include "collector/systemd_bus.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "collector/options.h"
#include "collector_test_util.h"
#include "support/subprocess.h"
#include "support/test_paths.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using namespace std::chrono_literals;

bool wait_for_path(const std::string& path, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  struct stat st;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::stat(path.c_str(), &st) == 0) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

class SystemdBusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string daemon = testing::find_program("dbus-daemon");
    if (daemon.empty()) GTEST_SKIP() << "dbus-daemon not installed (apt-get install dbus-daemon)";
    fake_ = (std::filesystem::path(testing::llmon_binary()).parent_path() / "fake_systemd" / "fake_systemd").string();
    ASSERT_TRUE(std::filesystem::exists(fake_)) << fake_ << " not built";
    address_ = "unix:path=" + dir_.path("bus");
    daemon_ = testing::spawn({daemon, "--session", "--nofork", "--nopidfile", "--address=" + address_},
                             dir_.path("dbus.log"), {{}, true});
    ASSERT_GT(daemon_, 0);
    ASSERT_TRUE(wait_for_path(dir_.path("bus"), 30s)) << testing::read_text(dir_.path("dbus.log"));
  }
  void TearDown() override {
    testing::stop_process(fake_pid_, 2s);
    testing::stop_process(daemon_, 2s);
  }

  void start_fake(const std::string& scenario) {
    fake_pid_ =
        testing::spawn({fake_, "--address=" + address_, "--scenario=" + scenario, "--ready=" + dir_.path("ready")},
                       dir_.path("fake.log"), {{}, true});
    ASSERT_GT(fake_pid_, 0);
    ASSERT_TRUE(wait_for_path(dir_.path("ready"), 30s)) << testing::read_text(dir_.path("fake.log"));
  }

  std::unique_ptr<SystemdBus> bus(uint64_t timeout_us = 2'000'000) {
    SdBusOptions o;
    o.address = address_;
    o.call_timeout_us = timeout_us;
    return make_sdbus_systemd_bus(o);
  }

  static std::string host_scenario() { return testing::source_dir() + "/tests/fake_systemd/scenarios/host.json"; }

  testing::TempFixture dir_{std::initializer_list<const char*>{}};
  std::string fake_, address_;
  pid_t daemon_ = -1, fake_pid_ = -1;
};

TEST_F(SystemdBusTest, ListsUnitsAndReadsProperties) {
  start_fake(host_scenario());
  auto b = bus();
  ASSERT_TRUE(b->connect().is_ok());
  std::vector<systemd::Unit> units;
  ASSERT_TRUE(b->list_units(units).is_ok());
  ASSERT_EQ(units.size(), 17u);
  EXPECT_EQ(units[0].name, "ssh.service");
  EXPECT_EQ(units[0].load_state, "loaded");
  EXPECT_EQ(units[0].active_state, "active");
  EXPECT_EQ(units[0].path, "/org/freedesktop/systemd1/unit/ssh_2eservice");
  EXPECT_EQ(units.back().load_state, "not-found");

  auto version = b->manager_string("Version");
  ASSERT_TRUE(version) << version.error();
  EXPECT_EQ(*version, "252.22-1~deb12u1");
  auto type = b->unit_string(units[0], "org.freedesktop.systemd1.Service", "Type");
  ASSERT_TRUE(type) << type.error();
  EXPECT_EQ(*type, "notify");
  auto restarts = b->unit_uint(units[1], "org.freedesktop.systemd1.Service", "NRestarts");  // "u"
  ASSERT_TRUE(restarts) << restarts.error();
  EXPECT_EQ(*restarts, 2u);
  auto tasks = b->unit_uint(units[1], "org.freedesktop.systemd1.Service", "TasksMax");  // "t"
  ASSERT_TRUE(tasks) << tasks.error();
  EXPECT_EQ(*tasks, UINT64_MAX);

  auto missing = b->unit_uint(units[5], "org.freedesktop.systemd1.Service", "NRestarts");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("UnknownProperty"), std::string::npos) << missing.error();
  auto wrong_type = b->unit_uint(units[0], "org.freedesktop.systemd1.Service", "Type");
  EXPECT_FALSE(wrong_type);
  // The connection stays usable after errors replied by the peer.
  EXPECT_TRUE(b->manager_string("SystemState"));
}

TEST_F(SystemdBusTest, NoBusIsAConnectError) {
  SdBusOptions o;
  o.address = "unix:path=" + dir_.path("no-such-bus");
  auto b = make_sdbus_systemd_bus(o);
  Status s = b->connect();
  if (s.is_ok()) {  // sd-bus may connect lazily: the first call fails then
    std::vector<systemd::Unit> units;
    s = b->list_units(units);
  }
  EXPECT_FALSE(s.is_ok());
}

TEST_F(SystemdBusTest, AStalledCallTimesOutAndClosesTheConnection) {
  std::string scenario = dir_.path("stall.json");
  std::ofstream(scenario) << R"({"manager": {"Version": "252"}, "units": [{"name": "a.service",
      "interfaces": {"Service": {"Type": "simple", "NRestarts": {"u": 1}}}}], "stall": ["Get:NRestarts"]})";
  start_fake(scenario);
  auto b = bus(300'000);
  ASSERT_TRUE(b->connect().is_ok());
  std::vector<systemd::Unit> units;
  ASSERT_TRUE(b->list_units(units).is_ok());
  ASSERT_EQ(units.size(), 1u);
  auto t0 = std::chrono::steady_clock::now();
  auto r = b->unit_uint(units[0], "org.freedesktop.systemd1.Service", "NRestarts");
  auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_FALSE(r);
  EXPECT_GE(waited, 250ms);
  EXPECT_LT(waited, 2s);
  // The rest of the cycle fails at once.
  t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(b->unit_string(units[0], "org.freedesktop.systemd1.Service", "Type"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 100ms);
  // The next cycle reconnects.
  ASSERT_TRUE(b->connect().is_ok());
  auto type = b->unit_string(units[0], "org.freedesktop.systemd1.Service", "Type");
  ASSERT_TRUE(type) << type.error();
  EXPECT_EQ(*type, "simple");
}

TEST_F(SystemdBusTest, CollectorOverTheBus) {
  start_fake(host_scenario());
  CollectorContext ctx = testing::fixture_context();
  ctx.set_option(flag::kCollectorSystemdEnableRestartsMetrics, "true");
  auto c = make_systemd_with(ctx, bus());
  model::Snapshot snap;
  Status s = testing::collect_once(*c, snap);
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(testing::value_of(snap, "node_systemd_unit_state",
                              {{"name", "ssh.service"}, {"state", "active"}, {"type", "notify"}}),
            1);
  EXPECT_EQ(testing::value_of(snap, "node_systemd_service_restart_total", {{"name", "nginx.service"}}), 5);
  EXPECT_EQ(testing::value_of(snap, "node_systemd_system_running", {}), 0);  // degraded
  // Stopping the fake: the next cycle fails ("couldn't get units": the name has no owner).
  testing::stop_process(fake_pid_, 2s);
  fake_pid_ = -1;
  model::Snapshot snap2;
  EXPECT_FALSE(testing::collect_once(*c, snap2, 2000).is_ok());
}

}  // namespace
}  // namespace llmon::collector
