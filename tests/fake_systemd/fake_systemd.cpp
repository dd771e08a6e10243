// fake_systemd: a stand-in for systemd's D-Bus API, for the systemd
// collector's tests (README.md). It joins a bus (a private dbus-daemon the
// test started), owns org.freedesktop.systemd1 and serves, from a scenario
// JSON file, the Manager object /org/freedesktop/systemd1 (ListUnits and its
// properties) and one object per unit, /org/freedesktop/systemd1/unit/<escaped
// name>, with org.freedesktop.DBus.Properties Get and GetAll.
//
// Usage: fake_systemd --address=ADDR --scenario=FILE [--ready=FILE] [--call-log=FILE]
//   --ready:    written once the name is owned (the test waits for it)
//   --call-log: one line per call received: "member path interface [property]"
// Exits when the bus goes away or on SIGTERM.
#include <systemd/sd-bus.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr char kManagerPath[] = "/org/freedesktop/systemd1";
constexpr char kManagerInterface[] = "org.freedesktop.systemd1.Manager";
constexpr char kPrefix[] = "org.freedesktop.systemd1.";

// A property value with its D-Bus type.
struct Value {
  char type = 's';
  std::string s;
  uint64_t u = 0;
  int64_t i = 0;
  double d = 0;
};

using Properties = std::map<std::string, Value>;       // property -> value
using Interfaces = std::map<std::string, Properties>;  // interface -> properties

struct UnitRow {
  std::string name, description, load_state, active_state, sub_state, path;
};

struct State {
  std::map<std::string, Interfaces> objects;  // path -> interfaces
  std::vector<UnitRow> units;
  std::vector<std::string> stall;  // members (or "Get:Property") never answered
  std::FILE* call_log = nullptr;
};

// A JSON string is "s"; {"u": 3}, {"t": 123}, {"i": -1}, {"x": -1}, {"b": true}, {"d": 0.5}, {"o": "/a"} give the type.
Value parse_value(const nlohmann::json& j) {
  Value v;
  if (j.is_string()) {
    v.s = j.get<std::string>();
    return v;
  }
  if (!j.is_object() || j.size() != 1) throw std::runtime_error("property value must be a string or {type: value}");
  auto it = j.begin();
  const std::string& t = it.key();
  if (t.size() != 1 || std::string("sutixbdo").find(t[0]) == std::string::npos)
    throw std::runtime_error("unsupported D-Bus type " + t);
  v.type = t[0];
  switch (v.type) {
    case 's':
    case 'o':
      v.s = it->get<std::string>();
      break;
    case 'u':
    case 't':
      v.u = it->get<uint64_t>();
      break;
    case 'i':
    case 'x':
      v.i = it->get<int64_t>();
      break;
    case 'b':
      v.u = it->get<bool>() ? 1 : 0;
      break;
    case 'd':
      v.d = it->get<double>();
      break;
  }
  return v;
}

Interfaces parse_interfaces(const nlohmann::json& j) {
  Interfaces out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string iface = it.key().find('.') == std::string::npos ? kPrefix + it.key() : it.key();
    for (auto p = it->begin(); p != it->end(); ++p) out[iface][p.key()] = parse_value(*p);
  }
  return out;
}

void load(const std::string& file, State& st) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open " + file);
  nlohmann::json j = nlohmann::json::parse(in);
  Interfaces& manager = st.objects[kManagerPath];
  for (auto p = j["manager"].begin(); p != j["manager"].end(); ++p)
    manager[kManagerInterface][p.key()] = parse_value(*p);
  for (const auto& u : j["units"]) {
    UnitRow row;
    row.name = u.at("name").get<std::string>();
    row.description = u.value("description", row.name);
    row.load_state = u.value("load_state", "loaded");
    row.active_state = u.value("active_state", "active");
    row.sub_state = u.value("sub_state", "running");
    char* path = nullptr;
    if (sd_bus_path_encode("/org/freedesktop/systemd1/unit", row.name.c_str(), &path) < 0)
      throw std::runtime_error("cannot encode the path of " + row.name);
    row.path = path;
    std::free(path);
    Interfaces ifaces = u.contains("interfaces") ? parse_interfaces(u["interfaces"]) : Interfaces{};
    // The Unit interface always carries the states ListUnits shows.
    Properties& unit = ifaces[std::string(kPrefix) + "Unit"];
    unit.emplace("Id", Value{'s', row.name});
    unit.emplace("LoadState", Value{'s', row.load_state});
    unit.emplace("ActiveState", Value{'s', row.active_state});
    unit.emplace("SubState", Value{'s', row.sub_state});
    st.objects[row.path] = std::move(ifaces);
    st.units.push_back(std::move(row));
  }
  if (j.contains("stall"))
    for (const auto& s : j["stall"]) st.stall.push_back(s.get<std::string>());
}

int append_variant(sd_bus_message* m, const Value& v) {
  const char sig[2] = {v.type, 0};
  int r = sd_bus_message_open_container(m, 'v', sig);
  if (r < 0) return r;
  switch (v.type) {
    case 's':
    case 'o':
      r = sd_bus_message_append_basic(m, v.type, v.s.c_str());
      break;
    case 'u': {
      uint32_t x = static_cast<uint32_t>(v.u);
      r = sd_bus_message_append_basic(m, 'u', &x);
      break;
    }
    case 't':
      r = sd_bus_message_append_basic(m, 't', &v.u);
      break;
    case 'i': {
      int32_t x = static_cast<int32_t>(v.i);
      r = sd_bus_message_append_basic(m, 'i', &x);
      break;
    }
    case 'x':
      r = sd_bus_message_append_basic(m, 'x', &v.i);
      break;
    case 'b': {
      int x = v.u ? 1 : 0;
      r = sd_bus_message_append_basic(m, 'b', &x);
      break;
    }
    case 'd':
      r = sd_bus_message_append_basic(m, 'd', &v.d);
      break;
  }
  if (r < 0) return r;
  return sd_bus_message_close_container(m);
}

// A handled call (reply sent) must return > 0, or sd-bus answers it again.
int replied(int r) {
  return r < 0 ? r : 1;
}

bool stalled(const State& st, const std::string& what) {
  for (const auto& s : st.stall)
    if (s == what) return true;
  return false;
}

int reply_get(sd_bus_message* m, State& st, const char* path) {
  const char *iface = nullptr, *prop = nullptr;
  int r = sd_bus_message_read(m, "ss", &iface, &prop);
  if (r < 0) return r;
  if (st.call_log) std::fprintf(st.call_log, "Get %s %s %s\n", path, iface, prop);
  if (stalled(st, std::string("Get:") + prop)) return 1;  // never answered: the caller times out
  auto o = st.objects.find(path);
  if (o == st.objects.end())
    return replied(sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_OBJECT, "Unknown object '%s'.", path));
  auto i = o->second.find(iface);
  if (i == o->second.end())
    return replied(sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_INTERFACE, "Unknown interface '%s'.", iface));
  auto p = i->second.find(prop);
  if (p == i->second.end())
    return replied(sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_PROPERTY, "Unknown property '%s'.", prop));
  sd_bus_message* reply = nullptr;
  r = sd_bus_message_new_method_return(m, &reply);
  if (r >= 0) r = append_variant(reply, p->second);
  if (r >= 0) r = sd_bus_send(nullptr, reply, nullptr);
  sd_bus_message_unref(reply);
  return r < 0 ? r : 1;
}

int reply_get_all(sd_bus_message* m, State& st, const char* path) {
  const char* iface = nullptr;
  int r = sd_bus_message_read(m, "s", &iface);
  if (r < 0) return r;
  if (st.call_log) std::fprintf(st.call_log, "GetAll %s %s\n", path, iface);
  auto o = st.objects.find(path);
  if (o == st.objects.end())
    return replied(sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_OBJECT, "Unknown object '%s'.", path));
  auto i = o->second.find(iface);
  if (i == o->second.end())
    return replied(sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_INTERFACE, "Unknown interface '%s'.", iface));
  sd_bus_message* reply = nullptr;
  r = sd_bus_message_new_method_return(m, &reply);
  if (r >= 0) r = sd_bus_message_open_container(reply, 'a', "{sv}");
  for (const auto& [name, v] : i->second) {
    if (r >= 0) r = sd_bus_message_open_container(reply, 'e', "sv");
    if (r >= 0) r = sd_bus_message_append_basic(reply, 's', name.c_str());
    if (r >= 0) r = append_variant(reply, v);
    if (r >= 0) r = sd_bus_message_close_container(reply);
  }
  if (r >= 0) r = sd_bus_message_close_container(reply);
  if (r >= 0) r = sd_bus_send(nullptr, reply, nullptr);
  sd_bus_message_unref(reply);
  return r < 0 ? r : 1;
}

int reply_list_units(sd_bus_message* m, State& st) {
  if (stalled(st, "ListUnits")) return 1;
  sd_bus_message* reply = nullptr;
  int r = sd_bus_message_new_method_return(m, &reply);
  if (r >= 0) r = sd_bus_message_open_container(reply, 'a', "(ssssssouso)");
  for (const UnitRow& u : st.units) {
    if (r < 0) break;
    r = sd_bus_message_append(reply, "(ssssssouso)", u.name.c_str(), u.description.c_str(), u.load_state.c_str(),
                              u.active_state.c_str(), u.sub_state.c_str(), "", u.path.c_str(), 0u, "", "/");
  }
  if (r >= 0) r = sd_bus_message_close_container(reply);
  if (r >= 0) r = sd_bus_send(nullptr, reply, nullptr);
  sd_bus_message_unref(reply);
  return r < 0 ? r : 1;
}

int handle(sd_bus_message* m, void* userdata, sd_bus_error* /*err*/) {
  State& st = *static_cast<State*>(userdata);
  uint8_t type = 0;
  if (sd_bus_message_get_type(m, &type) < 0 || type != SD_BUS_MESSAGE_METHOD_CALL) return 0;
  const char* path = sd_bus_message_get_path(m);
  const char* iface = sd_bus_message_get_interface(m);
  const char* member = sd_bus_message_get_member(m);
  if (!path || !member) return 0;
  if (iface && std::strcmp(iface, "org.freedesktop.DBus.Properties") == 0) {
    if (std::strcmp(member, "Get") == 0) return reply_get(m, st, path);
    if (std::strcmp(member, "GetAll") == 0) return reply_get_all(m, st, path);
  }
  if (st.call_log) std::fprintf(st.call_log, "%s %s %s\n", member, path, iface ? iface : "-");
  if (std::strcmp(path, kManagerPath) == 0 && (!iface || std::strcmp(iface, kManagerInterface) == 0) &&
      std::strcmp(member, "ListUnits") == 0)
    return reply_list_units(m, st);
  if (!iface || std::strncmp(iface, "org.freedesktop.DBus.", 21) != 0)
    std::fprintf(stderr, "fake_systemd: unhandled call %s on %s (%s)\n", member, path, iface ? iface : "-");
  return 0;  // sd-bus answers Introspect, Peer, or "unknown method"
}

std::string arg(int argc, char** argv, const std::string& name) {
  std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return argv[i] + prefix.size();
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  std::string address = arg(argc, argv, "address"), scenario = arg(argc, argv, "scenario");
  if (address.empty() || scenario.empty()) {
    std::fprintf(stderr, "usage: fake_systemd --address=ADDR --scenario=FILE [--ready=FILE] [--call-log=FILE]\n");
    return 2;
  }
  State st;
  try {
    load(scenario, st);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake_systemd: %s: %s\n", scenario.c_str(), e.what());
    return 2;
  }
  if (std::string log = arg(argc, argv, "call-log"); !log.empty()) {
    st.call_log = std::fopen(log.c_str(), "w");
    if (st.call_log) std::setvbuf(st.call_log, nullptr, _IOLBF, 0);
  }
  sd_bus* bus = nullptr;
  int r = sd_bus_new(&bus);
  if (r >= 0) r = sd_bus_set_address(bus, address.c_str());
  if (r >= 0) r = sd_bus_set_bus_client(bus, 1);
  if (r >= 0) r = sd_bus_start(bus);
  if (r >= 0) r = sd_bus_add_object(bus, nullptr, kManagerPath, handle, &st);
  if (r >= 0) r = sd_bus_add_fallback(bus, nullptr, "/org/freedesktop/systemd1/unit", handle, &st);
  if (r >= 0) r = sd_bus_request_name(bus, "org.freedesktop.systemd1", 0);
  if (r < 0) {
    std::fprintf(stderr, "fake_systemd: %s: %s\n", address.c_str(), std::strerror(-r));
    return 1;
  }
  if (std::string ready = arg(argc, argv, "ready"); !ready.empty()) std::ofstream(ready) << "ready\n";
  for (;;) {
    r = sd_bus_process(bus, nullptr);
    if (r < 0) break;  // the bus went away
    if (r > 0) continue;
    r = sd_bus_wait(bus, UINT64_MAX);
    if (r < 0 && r != -EINTR) break;
  }
  sd_bus_unref(bus);
  return 0;
}
