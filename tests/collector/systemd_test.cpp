#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector/registry.h"
#include "collector/systemd_bus.h"
#include "collector/systemd_units.h"
#include "collector_test_util.h"

namespace llmon::collector {
namespace {

using systemd::Unit;
using testing::collect_once;
using testing::expect_family;
using testing::series_count;
using testing::value_of;

// Units and properties from maps; records the calls; fails what it lacks
// (as systemd answers an unknown property with an error).
class FakeBus final : public SystemdBus {
 public:
  Status connect() override {
    ++connects;
    return connect_error.empty() ? Status::ok() : Status::error(connect_error);
  }
  Status list_units(std::vector<Unit>& out) override {
    if (!list_error.empty()) return Status::error(list_error);
    out = units;
    return Status::ok();
  }
  Expected<std::string> manager_string(std::string_view property) override {
    auto it = manager.find(std::string(property));
    if (it == manager.end()) return Status::error("org.freedesktop.DBus.Error.UnknownProperty");
    return it->second;
  }
  Expected<std::string> unit_string(const Unit& u, std::string_view iface, std::string_view property) override {
    calls.push_back(u.name + " " + std::string(iface) + "." + std::string(property));
    auto it = strings.find(key(u, iface, property));
    if (it == strings.end()) return Status::error("org.freedesktop.DBus.Error.UnknownProperty");
    return it->second;
  }
  Expected<uint64_t> unit_uint(const Unit& u, std::string_view iface, std::string_view property) override {
    calls.push_back(u.name + " " + std::string(iface) + "." + std::string(property));
    auto it = uints.find(key(u, iface, property));
    if (it == uints.end()) return Status::error("org.freedesktop.DBus.Error.UnknownProperty");
    return it->second;
  }

  void add(std::string name, std::string active, std::string load = "loaded") {
    units.push_back({name, std::move(load), std::move(active), "/org/freedesktop/systemd1/unit/x"});
  }
  // iface without the org.freedesktop.systemd1. prefix.
  void set(const std::string& unit, const std::string& iface, const std::string& prop, uint64_t v) {
    uints[unit + "/org.freedesktop.systemd1." + iface + "." + prop] = v;
  }
  void set(const std::string& unit, const std::string& iface, const std::string& prop, std::string v) {
    strings[unit + "/org.freedesktop.systemd1." + iface + "." + prop] = std::move(v);
  }

  std::vector<Unit> units;
  std::map<std::string, std::string> manager{{"Version", "252.22-1~deb12u1"}, {"SystemState", "running"}};
  std::map<std::string, std::string> strings;
  std::map<std::string, uint64_t> uints;
  std::string connect_error, list_error;
  std::vector<std::string> calls;
  int connects = 0;

 private:
  static std::string key(const Unit& u, std::string_view iface, std::string_view prop) {
    return u.name + "/" + std::string(iface) + "." + std::string(prop);
  }
};

CollectorContext context(bool all_metrics) {
  CollectorContext ctx = testing::fixture_context();
  if (all_metrics) {
    ctx.set_option(flag::kCollectorSystemdEnableTaskMetrics, "true");
    ctx.set_option(flag::kCollectorSystemdEnableRestartsMetrics, "true");
    ctx.set_option(flag::kCollectorSystemdEnableStartTimeMetrics, "true");
  }
  return ctx;
}

// A few units of each kind the collector reads properties of.
std::unique_ptr<FakeBus> host_bus() {
  auto bus = std::make_unique<FakeBus>();
  bus->add("ssh.service", "active");
  bus->set("ssh.service", "Service", "Type", "notify");
  bus->set("ssh.service", "Service", "NRestarts", 3);
  bus->set("ssh.service", "Service", "TasksCurrent", 2);
  bus->set("ssh.service", "Service", "TasksMax", UINT64_MAX);
  bus->set("ssh.service", "Unit", "ActiveEnterTimestamp", 1764633600123456);
  bus->add("nginx.service", "failed");
  bus->set("nginx.service", "Service", "Type", "forking");
  bus->add("apt-daily.timer", "active");
  bus->set("apt-daily.timer", "Timer", "LastTriggerUSec", 1764644400250000);
  bus->set("apt-daily.timer", "Unit", "ActiveEnterTimestamp", 1764633599000000);
  bus->add("dbus.socket", "active");
  bus->set("dbus.socket", "Socket", "NAccepted", 1234);
  bus->set("dbus.socket", "Socket", "NConnections", 3);
  bus->set("dbus.socket", "Socket", "NRefused", 7);
  bus->set("dbus.socket", "Unit", "ActiveEnterTimestamp", 1764633597000000);
  bus->add("data.mount", "active");  // excluded by default
  bus->set("data.mount", "Mount", "Type", "xfs");
  bus->add("session-3.scope", "active");
  bus->add("multi-user.target", "reloading");
  bus->add("gone.service", "inactive", "not-found");
  return bus;
}

TEST(SystemdVersion, ParsesAsNodeExporter) {
  auto v = systemd::parse_version("252.22-1~deb12u1");
  EXPECT_EQ(v.number, 252.22);
  EXPECT_EQ(v.label, "252.22-1~deb12u1");
  EXPECT_EQ(systemd::parse_version("systemd 249 (249.11-0ubuntu3)").number, 249);
  EXPECT_EQ(systemd::parse_version("v12.252").number, 252);  // the first run of 3+ digits
  EXPECT_EQ(systemd::parse_version("252.").number, 252);
  auto none = systemd::parse_version("unknown");
  EXPECT_EQ(none.number, 0);
  EXPECT_EQ(none.label, "");
  // The label is godbus' quoted form without its outer quotes.
  EXPECT_EQ(systemd::parse_version("253\t\"x\"").label, "253\\t\\\"x\\\"");
}

TEST(SystemdUnitFilter, AnchoredIncludeAndExcludeOfLoadedUnits) {
  systemd::UnitFilter def(".+", flag::kSystemdDefaultUnitExclude);
  ASSERT_TRUE(def.status().is_ok());
  EXPECT_TRUE(def.keep({"ssh.service", "loaded", "active", ""}));
  EXPECT_FALSE(def.keep({"data.mount", "loaded", "active", ""}));
  EXPECT_FALSE(def.keep({"system.slice", "loaded", "active", ""}));
  EXPECT_FALSE(def.keep({"ssh.service", "not-found", "inactive", ""}));
  systemd::UnitFilter anchored("ssh", "");
  EXPECT_FALSE(anchored.keep({"ssh.service", "loaded", "active", ""}));  // ^(?:ssh)$
  EXPECT_TRUE(anchored.keep({"ssh", "loaded", "active", ""}));
  systemd::UnitFilter bad("(", "");
  EXPECT_FALSE(bad.status().is_ok());
  EXPECT_NE(bad.status().message().find("unit-include"), std::string::npos);
}

TEST(SystemdSummary, FiveStatesAndAnyOther) {
  std::vector<Unit> units{
      {"a", "loaded", "active", ""}, {"b", "not-found", "active", ""}, {"c", "loaded", "reloading", ""}};
  auto s = systemd::summarize(units);
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[0], (std::pair<std::string, double>{"active", 2}));
  EXPECT_EQ(s[4], (std::pair<std::string, double>{"failed", 0}));
  EXPECT_EQ(s[5], (std::pair<std::string, double>{"reloading", 1}));
}

TEST(SystemdCollector, DefaultFamilies) {
  auto bus = host_bus();
  FakeBus* fake = bus.get();
  auto c = make_systemd_with(context(false), std::move(bus));
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap).is_ok());

  expect_family(snap, "node_systemd_version", model::MetricType::kGauge, "Detected systemd version");
  EXPECT_EQ(value_of(snap, "node_systemd_version", {{"version", "252.22-1~deb12u1"}}), 252.22);
  expect_family(snap, "node_systemd_units", model::MetricType::kGauge, "Summary of systemd unit states");
  EXPECT_EQ(value_of(snap, "node_systemd_units", {{"state", "active"}}), 5);  // all listed units
  EXPECT_EQ(value_of(snap, "node_systemd_units", {{"state", "inactive"}}), 1);
  EXPECT_EQ(value_of(snap, "node_systemd_units", {{"state", "activating"}}), 0);
  EXPECT_EQ(value_of(snap, "node_systemd_units", {{"state", "reloading"}}), 1);

  expect_family(snap, "node_systemd_unit_state", model::MetricType::kGauge, "Systemd unit");
  // ssh, nginx, timer, socket, target: 5 states each; not the mount, scope or not-found unit.
  EXPECT_EQ(series_count(snap, "node_systemd_unit_state"), 25u);
  EXPECT_EQ(
      value_of(snap, "node_systemd_unit_state", {{"name", "ssh.service"}, {"state", "active"}, {"type", "notify"}}), 1);
  EXPECT_EQ(
      value_of(snap, "node_systemd_unit_state", {{"name", "nginx.service"}, {"state", "failed"}, {"type", "forking"}}),
      1);
  EXPECT_EQ(value_of(snap, "node_systemd_unit_state", {{"name", "dbus.socket"}, {"state", "active"}, {"type", ""}}), 1);
  // A state outside the five: every one 0.
  EXPECT_EQ(
      value_of(snap, "node_systemd_unit_state", {{"name", "multi-user.target"}, {"state", "active"}, {"type", ""}}), 0);

  expect_family(snap, "node_systemd_timer_last_trigger_seconds", model::MetricType::kGauge,
                "Seconds since epoch of last trigger.");
  EXPECT_DOUBLE_EQ(value_of(snap, "node_systemd_timer_last_trigger_seconds", {{"name", "apt-daily.timer"}}),
                   1764644400.25);
  expect_family(snap, "node_systemd_socket_accepted_connections_total", model::MetricType::kCounter,
                "Total number of accepted socket connections");
  EXPECT_EQ(value_of(snap, "node_systemd_socket_accepted_connections_total", {{"name", "dbus.socket"}}), 1234);
  expect_family(snap, "node_systemd_socket_current_connections", model::MetricType::kGauge,
                "Current number of socket connections");
  EXPECT_EQ(value_of(snap, "node_systemd_socket_current_connections", {{"name", "dbus.socket"}}), 3);
  expect_family(snap, "node_systemd_socket_refused_connections_total", model::MetricType::kGauge,
                "Total number of refused socket connections");
  EXPECT_EQ(value_of(snap, "node_systemd_socket_refused_connections_total", {{"name", "dbus.socket"}}), 7);
  expect_family(snap, "node_systemd_system_running", model::MetricType::kGauge,
                "Whether the system is operational (see 'systemctl is-system-running')");
  EXPECT_EQ(value_of(snap, "node_systemd_system_running", {}), 1);

  // Off by default.
  EXPECT_EQ(snap.find("node_systemd_unit_start_time_seconds"), nullptr);
  EXPECT_EQ(snap.find("node_systemd_service_restart_total"), nullptr);
  EXPECT_EQ(snap.find("node_systemd_unit_tasks_current"), nullptr);
  for (const std::string& call : fake->calls) EXPECT_EQ(call.find("data.mount"), std::string::npos) << call;
}

TEST(SystemdCollector, EnabledExtras) {
  auto c = make_systemd_with(context(true), host_bus());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap).is_ok());
  expect_family(snap, "node_systemd_unit_start_time_seconds", model::MetricType::kGauge,
                "Start time of the unit since unix epoch in seconds.");
  EXPECT_DOUBLE_EQ(value_of(snap, "node_systemd_unit_start_time_seconds", {{"name", "ssh.service"}}),
                   1764633600.123456);
  EXPECT_EQ(value_of(snap, "node_systemd_unit_start_time_seconds", {{"name", "nginx.service"}}), 0);  // not active
  // Not active (reloading): 0 without asking.
  EXPECT_EQ(value_of(snap, "node_systemd_unit_start_time_seconds", {{"name", "multi-user.target"}}), 0);
  EXPECT_EQ(series_count(snap, "node_systemd_unit_start_time_seconds"), 5u);
  expect_family(snap, "node_systemd_service_restart_total", model::MetricType::kCounter,
                "Service unit count of Restart triggers");
  EXPECT_EQ(value_of(snap, "node_systemd_service_restart_total", {{"name", "ssh.service"}}), 3);
  EXPECT_EQ(series_count(snap, "node_systemd_service_restart_total"), 1u);  // nginx has no NRestarts
  expect_family(snap, "node_systemd_unit_tasks_current", model::MetricType::kGauge,
                "Current number of tasks per Systemd unit");
  EXPECT_EQ(value_of(snap, "node_systemd_unit_tasks_current", {{"name", "ssh.service"}}), 2);
  // TasksMax UINT64_MAX (no limit): no series, so no family.
  EXPECT_EQ(snap.find("node_systemd_unit_tasks_max"), nullptr);
}

TEST(SystemdCollector, IncludeAndExcludeFlags) {
  CollectorContext ctx = context(false);
  ctx.set_option(flag::kCollectorSystemdUnitInclude, ".+\\.(service|mount)");
  ctx.set_option(flag::kCollectorSystemdUnitExclude, "nginx\\.service");
  auto c = make_systemd_with(ctx, host_bus());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap).is_ok());
  EXPECT_EQ(series_count(snap, "node_systemd_unit_state"), 10u);  // ssh and the mount
  EXPECT_EQ(value_of(snap, "node_systemd_unit_state", {{"name", "data.mount"}, {"state", "active"}, {"type", "xfs"}}),
            1);
  EXPECT_EQ(snap.find("node_systemd_socket_accepted_connections_total"), nullptr);
}

TEST(SystemdCollector, NoBusFailsTheCollector) {
  auto bus = std::make_unique<FakeBus>();
  bus->connect_error = "system bus: No such file or directory";
  auto c = make_systemd_with(context(false), std::move(bus));
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  EXPECT_FALSE(s.is_ok());
  EXPECT_FALSE(s.is_no_data());  // node_exporter logs it as an error, success 0
  EXPECT_NE(s.message().find("couldn't get dbus connection"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(SystemdCollector, ListUnitsFailureKeepsTheVersion) {
  auto bus = host_bus();
  bus->list_error = "org.freedesktop.DBus.Error.AccessDenied";
  auto c = make_systemd_with(context(false), std::move(bus));
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  EXPECT_NE(s.message().find("couldn't get units"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 1u);
  EXPECT_EQ(value_of(snap, "node_systemd_version", {{"version", "252.22-1~deb12u1"}}), 252.22);
}

TEST(SystemdCollector, OldOrUnknownVersionSkipsTimersAndSystemState) {
  auto bus = host_bus();
  bus->manager.erase("Version");
  auto c = make_systemd_with(context(false), std::move(bus));
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap).is_ok());
  EXPECT_EQ(value_of(snap, "node_systemd_version", {{"version", ""}}), 0);
  EXPECT_EQ(snap.find("node_systemd_timer_last_trigger_seconds"), nullptr);
  EXPECT_EQ(snap.find("node_systemd_system_running"), nullptr);
  EXPECT_EQ(series_count(snap, "node_systemd_unit_state"), 25u);
}

TEST(SystemdCollector, MissingSystemStateFailsAfterTheUnits) {
  auto bus = host_bus();
  bus->manager["SystemState"] = "degraded";
  auto c = make_systemd_with(context(false), std::move(bus));
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap).is_ok());
  EXPECT_EQ(value_of(snap, "node_systemd_system_running", {}), 0);

  auto bus2 = host_bus();
  bus2->manager.erase("SystemState");
  auto c2 = make_systemd_with(context(false), std::move(bus2));
  model::Snapshot snap2;
  Status s = collect_once(*c2, snap2);
  EXPECT_NE(s.message().find("couldn't get system state"), std::string::npos) << s.message();
  EXPECT_EQ(series_count(snap2, "node_systemd_unit_state"), 25u);
}

TEST(SystemdCollector, SocketWithoutNAcceptedHasNoSocketSeries) {
  auto bus = std::make_unique<FakeBus>();
  bus->add("a.socket", "active");
  bus->set("a.socket", "Socket", "NConnections", 3);
  bus->add("b.socket", "active");
  bus->set("b.socket", "Socket", "NAccepted", 1);
  bus->set("b.socket", "Socket", "NConnections", 2);  // no NRefused (systemd < 239)
  auto c = make_systemd_with(context(false), std::move(bus));
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap).is_ok());
  EXPECT_EQ(series_count(snap, "node_systemd_socket_accepted_connections_total"), 1u);
  EXPECT_EQ(series_count(snap, "node_systemd_socket_current_connections"), 1u);
  EXPECT_EQ(snap.find("node_systemd_socket_refused_connections_total"), nullptr);
}

TEST(SystemdCollector, ConnectsEveryCycleAndRecyclesItsStorage) {
  auto bus = host_bus();
  FakeBus* fake = bus.get();
  auto c = make_systemd_with(context(true), std::move(bus));
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap, 1000).is_ok());
  size_t n = snap.series_count();
  ASSERT_TRUE(collect_once(*c, snap, 2000).is_ok());
  EXPECT_EQ(snap.series_count(), n);
  EXPECT_EQ(fake->connects, 2);
}

TEST(SystemdCollector, OffByDefault) {
  const CollectorInfo* info = find_collector("systemd");
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->enabled_by_default);
}

}  // namespace
}  // namespace llmon::collector
