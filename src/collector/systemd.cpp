// systemd collector (node_exporter 1.5 systemd_linux.go, off by default):
// unit states, counts and the system state from systemd over D-Bus
// (systemd_bus.h), turned into families by systemd_units.h.
//   node_systemd_version{version}, node_systemd_units{state} (all listed units),
//   node_systemd_unit_state{name,state,type} for the units kept by
//   --collector.systemd.unit-include/unit-exclude (type: Service.Type or
//   Mount.Type), node_systemd_timer_last_trigger_seconds, node_systemd_socket_*,
//   node_systemd_system_running, and with their enable-* flags
//   node_systemd_unit_start_time_seconds, node_systemd_service_restart_total,
//   node_systemd_unit_tasks_{current,max}.
// As node_exporter: no connection ("couldn't get dbus connection") or no unit
// list ("couldn't get units") fails the collector, the version series already
// written; a property that cannot be read leaves its series out (debug log);
// SystemState and Timer.LastTriggerUSec are read from version 212 on, and a
// failed SystemState fails the collector after the unit series are written.
#include <cstdint>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector/systemd_bus.h"
#include "collector/systemd_units.h"

namespace llmon::collector {
namespace {

constexpr char kUnitInterface[] = "org.freedesktop.systemd1.Unit";
constexpr char kServiceInterface[] = "org.freedesktop.systemd1.Service";
constexpr char kMountInterface[] = "org.freedesktop.systemd1.Mount";
constexpr char kTimerInterface[] = "org.freedesktop.systemd1.Timer";
constexpr char kSocketInterface[] = "org.freedesktop.systemd1.Socket";

class SystemdCollector final : public Collector {
 public:
  SystemdCollector(const CollectorContext& ctx, std::unique_ptr<SystemdBus> bus)
      : bus_(std::move(bus)),
        log_(ctx.log),
        filter_(ctx.option(flag::kCollectorSystemdUnitInclude), ctx.option(flag::kCollectorSystemdUnitExclude)),
        start_time_(ctx.option(flag::kCollectorSystemdEnableStartTimeMetrics)),
        tasks_(ctx.option(flag::kCollectorSystemdEnableTaskMetrics)),
        restarts_(ctx.option(flag::kCollectorSystemdEnableRestartsMetrics)) {}

  Status collect(model::SnapshotBuilder& out) override {
    if (!filter_.status()) return filter_.status();
    if (Status s = bus_->connect(); !s) return s.with_context("couldn't get dbus connection");

    systemd::Version version;
    if (auto v = bus_->manager_string("Version"); v) {
      version = systemd::parse_version(*v);
      if (version.label.empty()) debug("Got invalid systemd version", *v);
    } else {
      debug("Unable to get systemd version property, defaulting to 0", v.error());
    }
    systemd::write_version(out, version);
    const bool new_enough = version.number >= systemd::kMinVersionSystemState;

    if (Status s = bus_->list_units(units_); !s) return s.with_context("couldn't get units");
    systemd::write_summary(out, systemd::summarize(units_));

    readings_.clear();
    for (const systemd::Unit& u : units_)
      if (filter_.keep(u)) readings_.push_back(read_unit(u, new_enough));
    systemd::write_units(out, readings_);

    if (new_enough) {
      auto state = bus_->manager_string("SystemState");
      if (!state) return state.status().with_context("couldn't get system state");
      systemd::write_system_running(out, *state == "running");
    }
    return Status::ok();
  }

 private:
  systemd::UnitReading read_unit(const systemd::Unit& u, bool new_enough) {
    using systemd::has_suffix;
    systemd::UnitReading r;
    r.name = u.name;
    r.active_state = u.active_state;
    const bool service = has_suffix(u.name, ".service");
    if (service || has_suffix(u.name, ".mount")) {
      auto t = bus_->unit_string(u, service ? kServiceInterface : kMountInterface, "Type");
      if (t) {
        r.type = *t;
      } else {
        debug("couldn't get unit type", t.error(), u.name);
      }
    }
    if (restarts_ && service) r.restarts = number(u, kServiceInterface, "NRestarts");
    if (start_time_) {
      if (u.active_state != "active") {
        r.start_time = 0;
      } else if (auto t = read_uint(u, kUnitInterface, "ActiveEnterTimestamp")) {
        r.start_time = systemd::usec_to_seconds(*t);
      }
    }
    if (tasks_ && service) {
      // UINT64_MAX is systemd's "no value" (no accounting, no limit).
      if (auto v = read_uint(u, kServiceInterface, "TasksCurrent"); v && *v != UINT64_MAX) r.tasks_current = double(*v);
      if (auto v = read_uint(u, kServiceInterface, "TasksMax"); v && *v != UINT64_MAX) r.tasks_max = double(*v);
    }
    if (new_enough && has_suffix(u.name, ".timer")) {
      if (auto t = read_uint(u, kTimerInterface, "LastTriggerUSec")) r.last_trigger = systemd::usec_to_seconds(*t);
    }
    if (has_suffix(u.name, ".socket")) {
      // As node_exporter: without NAccepted nothing else, without
      // NConnections no NRefused.
      r.accepted = number(u, kSocketInterface, "NAccepted");
      if (r.accepted) r.connections = number(u, kSocketInterface, "NConnections");
      if (r.connections) r.refused = number(u, kSocketInterface, "NRefused");
    }
    return r;
  }

  std::optional<uint64_t> read_uint(const systemd::Unit& u, const char* interface, const char* property) {
    auto v = bus_->unit_uint(u, interface, property);
    if (!v) {
      debug(std::string("couldn't get unit ") + property, v.error(), u.name);
      return std::nullopt;
    }
    return *v;
  }

  std::optional<double> number(const systemd::Unit& u, const char* interface, const char* property) {
    auto v = read_uint(u, interface, property);
    return v ? std::optional<double>(double(*v)) : std::nullopt;
  }

  void debug(std::string_view msg, std::string_view err, std::string_view unit = {}) {
    if (!log_ || !log_->enabled(base::LogLevel::kDebug)) return;
    if (unit.empty()) {
      log_->debug(msg, {{"collector", "systemd"}, {"err", err}});
    } else {
      log_->debug(msg, {{"collector", "systemd"}, {"unit", unit}, {"err", err}});
    }
  }

  std::unique_ptr<SystemdBus> bus_;
  base::Logger* log_;
  systemd::UnitFilter filter_;
  bool start_time_, tasks_, restarts_;
  std::vector<systemd::Unit> units_;
  std::vector<systemd::UnitReading> readings_;
};

}  // namespace

std::unique_ptr<Collector> make_systemd_with(const CollectorContext& ctx, std::unique_ptr<SystemdBus> bus) {
  return std::make_unique<SystemdCollector>(ctx, std::move(bus));
}

std::unique_ptr<Collector> make_systemd(const CollectorContext& ctx) {
  SdBusOptions o;
  o.private_connection = ctx.option(flag::kCollectorSystemdPrivate);
  return make_systemd_with(ctx, make_sdbus_systemd_bus(std::move(o)));
}

}  // namespace llmon::collector
