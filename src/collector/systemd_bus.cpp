// SystemdBus over libsystemd's sd-bus. One connection, kept between cycles
// and reopened after it is lost; every call bounded by call_timeout_us.
#include "collector/systemd_bus.h"

#include <systemd/sd-bus.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace llmon::collector {
namespace {

constexpr char kService[] = "org.freedesktop.systemd1";
constexpr char kManagerPath[] = "/org/freedesktop/systemd1";
constexpr char kManagerInterface[] = "org.freedesktop.systemd1.Manager";

// sd_bus_error freed at scope exit.
struct BusError {
  sd_bus_error e = SD_BUS_ERROR_NULL;
  ~BusError() { sd_bus_error_free(&e); }
  std::string text(int r) const {
    if (sd_bus_error_is_set(&e)) return std::string(e.name) + ": " + (e.message ? e.message : "");
    return std::strerror(-r);
  }
};

struct Message {
  sd_bus_message* m = nullptr;
  ~Message() { sd_bus_message_unref(m); }
};

class SdBus final : public SystemdBus {
 public:
  explicit SdBus(SdBusOptions o) : o_(std::move(o)) {}
  ~SdBus() override { close(); }

  Status connect() override {
    if (bus_ && sd_bus_is_open(bus_) > 0) return Status::ok();
    close();
    sd_bus* b = nullptr;
    int r;
    const std::string& addr = o_.private_connection ? o_.private_address : o_.address;
    if (addr.empty()) {
      r = sd_bus_open_system(&b);
    } else {
      r = sd_bus_new(&b);
      if (r >= 0) r = sd_bus_set_address(b, addr.c_str());
      // A bus daemon wants Hello; systemd's private socket is a direct peer.
      if (r >= 0) r = sd_bus_set_bus_client(b, o_.private_connection ? 0 : 1);
      if (r >= 0) r = sd_bus_start(b);
    }
    if (r < 0) {
      sd_bus_unref(b);
      return Status::error((addr.empty() ? std::string("system bus") : addr) + ": " + std::strerror(-r));
    }
    sd_bus_set_method_call_timeout(b, o_.call_timeout_us);
    bus_ = b;
    return Status::ok();
  }

  Status list_units(std::vector<systemd::Unit>& out) override {
    out.clear();
    if (!bus_) return not_connected();
    BusError err;
    Message reply;
    int r = sd_bus_call_method(bus_, kService, kManagerPath, kManagerInterface, "ListUnits", &err.e, &reply.m, "");
    if (r < 0) return failed(r, err, "ListUnits");
    r = sd_bus_message_enter_container(reply.m, 'a', "(ssssssouso)");
    if (r < 0) return failed(r, err, "ListUnits reply");
    for (;;) {
      const char *name, *description, *load, *active, *sub, *following, *path, *job_type, *job_path;
      uint32_t job_id;
      r = sd_bus_message_read(reply.m, "(ssssssouso)", &name, &description, &load, &active, &sub, &following, &path,
                              &job_id, &job_type, &job_path);
      if (r < 0) return failed(r, err, "ListUnits reply");
      if (r == 0) break;
      out.push_back({name, load, active, path});
    }
    return Status::ok();
  }

  Expected<std::string> manager_string(std::string_view property) override {
    return get_string(kManagerPath, kManagerInterface, property);
  }

  Expected<std::string> unit_string(const systemd::Unit& u, std::string_view interface,
                                    std::string_view property) override {
    return get_string(u.path, interface, property);
  }

  Expected<uint64_t> unit_uint(const systemd::Unit& u, std::string_view interface, std::string_view property) override {
    Message reply;
    if (Status s = get(u.path, interface, property, reply); !s) return s;
    char type;
    const char* contents = nullptr;
    int r = sd_bus_message_peek_type(reply.m, &type, &contents);
    BusError none;
    if (r < 0) return failed(r, none, std::string(property));
    if (type != SD_BUS_TYPE_VARIANT || !contents || (std::strcmp(contents, "u") && std::strcmp(contents, "t")))
      return Status::error(std::string(property) + ": not an unsigned integer (" + (contents ? contents : "?") + ")");
    uint64_t v = 0;
    if (contents[0] == 't') {
      r = sd_bus_message_read(reply.m, "v", "t", &v);
    } else {
      uint32_t v32 = 0;
      r = sd_bus_message_read(reply.m, "v", "u", &v32);
      v = v32;
    }
    if (r < 0) return failed(r, none, std::string(property));
    return v;
  }

 private:
  // Properties.Get; reply positioned at the variant.
  Status get(const std::string& path, std::string_view interface, std::string_view property, Message& reply) {
    if (!bus_) return not_connected();
    BusError err;
    std::string iface(interface), prop(property);
    int r = sd_bus_call_method(bus_, kService, path.c_str(), "org.freedesktop.DBus.Properties", "Get", &err.e, &reply.m,
                               "ss", iface.c_str(), prop.c_str());
    if (r < 0) return failed(r, err, path + " " + iface + "." + prop);
    return Status::ok();
  }

  Expected<std::string> get_string(const std::string& path, std::string_view interface, std::string_view property) {
    Message reply;
    if (Status s = get(path, interface, property, reply); !s) return s;
    const char* v = nullptr;
    int r = sd_bus_message_read(reply.m, "v", "s", &v);
    BusError none;
    if (r < 0) return failed(r, none, std::string(property) + " (not a string?)");
    return std::string(v ? v : "");
  }

  Status failed(int r, const BusError& err, const std::string& what) {
    Status s = Status::error(what + ": " + err.text(r));
    // A timeout or a lost connection: stop here and reconnect next cycle.
    if (r == -ETIMEDOUT || (bus_ && sd_bus_is_open(bus_) <= 0)) close();
    return s;
  }

  static Status not_connected() {
    return Status::error("D-Bus connection closed (a call timed out or the bus went away)");
  }

  void close() {
    // No flush: a hung peer must not stall the cycle.
    if (bus_) {
      sd_bus_close(bus_);
      sd_bus_unref(bus_);
    }
    bus_ = nullptr;
  }

  SdBusOptions o_;
  sd_bus* bus_ = nullptr;
};

}  // namespace

std::unique_ptr<SystemdBus> make_sdbus_systemd_bus(SdBusOptions options) {
  return std::make_unique<SdBus>(std::move(options));
}

}  // namespace llmon::collector
