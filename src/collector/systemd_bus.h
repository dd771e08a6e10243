// The systemd collector's source: systemd's D-Bus API (the Manager object
// /org/freedesktop/systemd1 of the name org.freedesktop.systemd1), behind an
// interface so tests feed made-up units. The real one speaks D-Bus through
// libsystemd's sd-bus (systemd_bus.cpp); the calls are the ones node_exporter
// 1.5 makes through go-systemd: Manager.ListUnits, and
// org.freedesktop.DBus.Properties.Get of Manager properties (Version,
// SystemState) and of unit properties on the unit objects.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "collector/collector.h"
#include "collector/systemd_units.h"

namespace llmon::collector {

class SystemdBus {
 public:
  virtual ~SystemdBus() = default;
  // Makes sure a connection is open (the first cycle, or after one was lost);
  // cheap when it is.
  virtual Status connect() = 0;
  virtual Status list_units(std::vector<systemd::Unit>& out) = 0;
  // A string property of the Manager object (interface org.freedesktop.systemd1.Manager).
  virtual Expected<std::string> manager_string(std::string_view property) = 0;
  // Properties of a unit's object (u.path) on interface ("org.freedesktop.systemd1.Service", ...):
  // a string one, and an unsigned one (D-Bus "u" or "t").
  virtual Expected<std::string> unit_string(const systemd::Unit& u, std::string_view interface,
                                            std::string_view property) = 0;
  virtual Expected<uint64_t> unit_uint(const systemd::Unit& u, std::string_view interface,
                                       std::string_view property) = 0;
};

struct SdBusOptions {
  // D-Bus address to connect to ("unix:path=/run/dbus/system_bus_socket").
  // Empty: the system bus, from $DBUS_SYSTEM_BUS_ADDRESS when set (as
  // node_exporter's godbus), else its well-known socket.
  std::string address;
  // A direct peer connection to systemd's private socket instead of the bus
  // (--collector.systemd.private): no bus daemon, root only.
  bool private_connection = false;
  std::string private_address = "unix:path=/run/systemd/private";
  // Longest one call (a connection's set-up included) may take. A call that
  // times out closes the connection, so the rest of the cycle fails at once
  // instead of waiting again per unit; the next cycle reconnects.
  uint64_t call_timeout_us = 2'000'000;
};

std::unique_ptr<SystemdBus> make_sdbus_systemd_bus(SdBusOptions options);

// The systemd collector over a given source (make_systemd uses sd-bus with
// the options of ctx).
std::unique_ptr<Collector> make_systemd_with(const CollectorContext& ctx, std::unique_ptr<SystemdBus> bus);

}  // namespace llmon::collector
