// The pure part of the systemd collector (node_exporter 1.5
// systemd_linux.go): what one cycle read from systemd (the unit list of
// Manager.ListUnits and the few properties asked per unit) as plain values,
// the unit filter, the version parsing and the families written from them.
// No D-Bus here: systemd_bus.h is the source, systemd.cpp asks it.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/snapshot_builder.h"

namespace llmon::collector::systemd {

// One row of Manager.ListUnits (the fields the collector reads).
struct Unit {
  std::string name;          // "ssh.service"
  std::string load_state;    // "loaded", "not-found", ...
  std::string active_state;  // "active", "failed", ...
  std::string path;          // the unit's object path, /org/freedesktop/systemd1/unit/ssh_2eservice
};

// node_exporter's five states, in its order (node_systemd_unit_state{state}).
inline constexpr std::string_view kUnitStates[] = {"active", "activating", "deactivating", "inactive", "failed"};

// Version and SystemState are read only from this version on (node_exporter's
// minSystemdVersionSystemState): older systemds lack SystemState and
// Timer.LastTriggerUSec.
inline constexpr double kMinVersionSystemState = 212;

// Manager.Version as node_exporter reads it: the value Go-quoted with the
// outer quotes trimmed (the label), and the first "[0-9]{3,}(\.[0-9]+)?" in
// it as a number ("252.22-1~deb12u1" -> 252.22). No number: {0, ""}.
struct Version {
  double number = 0;
  std::string label;
};
Version parse_version(std::string_view value);

// --collector.systemd.unit-include / unit-exclude, each anchored at both ends
// (node_exporter compiles ^(?:PATTERN)$). A unit is kept when its name matches
// include, does not match exclude and its load state is "loaded".
class UnitFilter {
 public:
  UnitFilter() = default;
  // Invalid patterns: status() says which; the filter then keeps nothing.
  UnitFilter(const std::string& include, const std::string& exclude);
  bool keep(const Unit& u) const;
  const Status& status() const { return status_; }

 private:
  std::regex include_, exclude_;
  Status status_;
};

// What was read about one kept unit. An absent value is a property that could
// not be read (or was not asked for): its series is left out, as node_exporter
// does after a failed property call.
struct UnitReading {
  std::string name;
  std::string active_state;
  std::string type;                     // Service.Type or Mount.Type; "" for other units or when unreadable
  std::optional<double> restarts;       // Service.NRestarts
  std::optional<double> start_time;     // Unit.ActiveEnterTimestamp in seconds; 0 when not active
  std::optional<double> tasks_current;  // Service.TasksCurrent (absent when UINT64_MAX)
  std::optional<double> tasks_max;      // Service.TasksMax (absent when UINT64_MAX)
  std::optional<double> last_trigger;   // Timer.LastTriggerUSec in seconds
  std::optional<double> accepted;       // Socket.NAccepted
  std::optional<double> connections;    // Socket.NConnections
  std::optional<double> refused;        // Socket.NRefused
};

// node_systemd_units{state}: every one of the five states (0 when no unit is
// in it), then any other active state some unit reports, counted over all
// listed units (before the filter), as node_exporter's summarizeUnits.
std::vector<std::pair<std::string, double>> summarize(const std::vector<Unit>& units);

bool has_suffix(std::string_view name, std::string_view suffix);
// USec property values (uint64 microseconds) as node_exporter converts them.
inline double usec_to_seconds(uint64_t usec) {
  return static_cast<double>(usec) / 1e6;
}

// The families, each written once. node_systemd_version comes first, on its
// own, because node_exporter exposes it even when listing the units fails.
void write_version(model::SnapshotBuilder& out, const Version& v);
void write_summary(model::SnapshotBuilder& out, const std::vector<std::pair<std::string, double>>& summary);
void write_units(model::SnapshotBuilder& out, const std::vector<UnitReading>& units);
void write_system_running(model::SnapshotBuilder& out, bool running);

}  // namespace llmon::collector::systemd
