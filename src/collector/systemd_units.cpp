#include "collector/systemd_units.h"

#include <cctype>
#include <cstdlib>

#include "go/strconv.h"

namespace llmon::collector::systemd {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The leftmost match of [0-9]{3,}(\.[0-9]+)? in s, or "".
std::string_view find_version_number(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (!is_digit(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && is_digit(s[j])) ++j;
    if (j - i >= 3) {
      size_t k = j;
      if (k + 1 < s.size() && s[k] == '.' && is_digit(s[k + 1])) {
        k += 1;
        while (k < s.size() && is_digit(s[k])) ++k;
        j = k;
      }
      return s.substr(i, j - i);
    }
    // A shorter run cannot start a match anywhere inside it either.
    i = j;
  }
  return {};
}

}  // namespace

Version parse_version(std::string_view value) {
  // node_exporter reads the property through godbus' Variant.String()
  // (strconv.Quote of the string) and trims one quote from each end.
  std::string quoted = go::quote(value);
  Version v;
  std::string label = quoted.substr(1, quoted.size() - 2);
  std::string number(find_version_number(label));
  if (number.empty()) return v;
  v.number = std::strtod(number.c_str(), nullptr);
  v.label = std::move(label);
  return v;
}

UnitFilter::UnitFilter(const std::string& include, const std::string& exclude) {
  try {
    include_ = std::regex("(?:" + include + ")", std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    status_ = Status::error("invalid --collector.systemd.unit-include \"" + include + "\": " + e.what());
    return;
  }
  try {
    exclude_ = std::regex("(?:" + exclude + ")", std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    status_ = Status::error("invalid --collector.systemd.unit-exclude \"" + exclude + "\": " + e.what());
  }
}

bool UnitFilter::keep(const Unit& u) const {
  if (!status_) return false;
  // regex_match is anchored at both ends: node_exporter's ^(?:...)$.
  return std::regex_match(u.name, include_) && !std::regex_match(u.name, exclude_) && u.load_state == "loaded";
}

bool has_suffix(std::string_view name, std::string_view suffix) {
  return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
}

std::vector<std::pair<std::string, double>> summarize(const std::vector<Unit>& units) {
  std::vector<std::pair<std::string, double>> out;
  for (std::string_view s : kUnitStates) out.emplace_back(std::string(s), 0.0);
  for (const Unit& u : units) {
    bool found = false;
    for (auto& [state, n] : out)
      if (state == u.active_state) {
        n += 1;
        found = true;
        break;
      }
    if (!found) out.emplace_back(u.active_state, 1.0);
  }
  return out;
}

void write_version(model::SnapshotBuilder& out, const Version& v) {
  out.family("node_systemd_version", "Detected systemd version", model::MetricType::kGauge, {"version"})
      .add({v.label}, v.number);
}

void write_summary(model::SnapshotBuilder& out, const std::vector<std::pair<std::string, double>>& summary) {
  auto f = out.family("node_systemd_units", "Summary of systemd unit states", model::MetricType::kGauge, {"state"});
  for (const auto& [state, n] : summary) f.add({state}, n);
}

namespace {

// One {name}-labelled family of the values `field` holds.
void write_by_name(model::SnapshotBuilder& out, const std::vector<UnitReading>& units, std::string_view name,
                   std::string_view help, model::MetricType type, std::optional<double> UnitReading::*field) {
  bool any = false;
  for (const UnitReading& u : units) any = any || (u.*field).has_value();
  if (!any) return;
  auto f = out.family(name, help, type, {"name"});
  for (const UnitReading& u : units)
    if ((u.*field).has_value()) f.add({u.name}, *(u.*field));
}

}  // namespace

void write_units(model::SnapshotBuilder& out, const std::vector<UnitReading>& units) {
  using model::MetricType;
  if (!units.empty()) {
    auto f = out.family("node_systemd_unit_state", "Systemd unit", MetricType::kGauge, {"name", "state", "type"});
    for (const UnitReading& u : units)
      for (std::string_view s : kUnitStates) f.add({u.name, s, u.type}, s == u.active_state ? 1.0 : 0.0);
  }
  write_by_name(out, units, "node_systemd_unit_start_time_seconds",
                "Start time of the unit since unix epoch in seconds.", MetricType::kGauge, &UnitReading::start_time);
  write_by_name(out, units, "node_systemd_unit_tasks_current", "Current number of tasks per Systemd unit",
                MetricType::kGauge, &UnitReading::tasks_current);
  write_by_name(out, units, "node_systemd_unit_tasks_max", "Maximum number of tasks per Systemd unit",
                MetricType::kGauge, &UnitReading::tasks_max);
  write_by_name(out, units, "node_systemd_service_restart_total", "Service unit count of Restart triggers",
                MetricType::kCounter, &UnitReading::restarts);
  write_by_name(out, units, "node_systemd_timer_last_trigger_seconds", "Seconds since epoch of last trigger.",
                MetricType::kGauge, &UnitReading::last_trigger);
  write_by_name(out, units, "node_systemd_socket_accepted_connections_total",
                "Total number of accepted socket connections", MetricType::kCounter, &UnitReading::accepted);
  write_by_name(out, units, "node_systemd_socket_current_connections", "Current number of socket connections",
                MetricType::kGauge, &UnitReading::connections);
  write_by_name(out, units, "node_systemd_socket_refused_connections_total",
                "Total number of refused socket connections", MetricType::kGauge, &UnitReading::refused);
}

void write_system_running(model::SnapshotBuilder& out, bool running) {
  out.family("node_systemd_system_running", "Whether the system is operational (see 'systemctl is-system-running')",
             model::MetricType::kGauge)
      .add(running ? 1.0 : 0.0);
}

}  // namespace llmon::collector::systemd
