// netclass collector: node_network_{up,info,mtu_bytes,speed_bytes,carrier,...}
// {device} from /sys/class/net/<iface>/ (node_exporter 1.5 netclass_linux.go,
// sysfs mode). Attribute files that are missing or refuse reading (EINVAL on
// a down link's speed, EOPNOTSUPP, EACCES) are left out like node_exporter does.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "collector/builtin.h"
#include "collector/device_filter.h"
#include "procfs/net_class.h"

namespace llmon::collector {
namespace {

using procfs::NetClassIface;
using IntField = std::optional<int64_t> NetClassIface::*;

struct PropertyMetric {
  IntField field;
  std::string_view name;
  std::string_view help;
  model::MetricType type;
};

// Emitted in node_exporter's order; HELP is "Network device property: <name>".
constexpr PropertyMetric kProperties[] = {
    {&NetClassIface::addr_assign_type, "node_network_address_assign_type",
     "Network device property: address_assign_type", model::MetricType::kGauge},
    {&NetClassIface::carrier, "node_network_carrier", "Network device property: carrier", model::MetricType::kGauge},
    {&NetClassIface::carrier_changes, "node_network_carrier_changes_total",
     "Network device property: carrier_changes_total", model::MetricType::kCounter},
    {&NetClassIface::carrier_up_count, "node_network_carrier_up_changes_total",
     "Network device property: carrier_up_changes_total", model::MetricType::kCounter},
    {&NetClassIface::carrier_down_count, "node_network_carrier_down_changes_total",
     "Network device property: carrier_down_changes_total", model::MetricType::kCounter},
    {&NetClassIface::dev_id, "node_network_device_id", "Network device property: device_id",
     model::MetricType::kGauge},
    {&NetClassIface::dormant, "node_network_dormant", "Network device property: dormant", model::MetricType::kGauge},
    {&NetClassIface::flags, "node_network_flags", "Network device property: flags", model::MetricType::kGauge},
    {&NetClassIface::ifindex, "node_network_iface_id", "Network device property: iface_id",
     model::MetricType::kGauge},
    {&NetClassIface::iflink, "node_network_iface_link", "Network device property: iface_link",
     model::MetricType::kGauge},
    {&NetClassIface::link_mode, "node_network_iface_link_mode", "Network device property: iface_link_mode",
     model::MetricType::kGauge},
    {&NetClassIface::mtu, "node_network_mtu_bytes", "Network device property: mtu_bytes", model::MetricType::kGauge},
    {&NetClassIface::name_assign_type, "node_network_name_assign_type",
     "Network device property: name_assign_type", model::MetricType::kGauge},
    {&NetClassIface::netdev_group, "node_network_net_dev_group", "Network device property: net_dev_group",
     model::MetricType::kGauge},
    // speed_bytes goes here (computed, see below).
    {&NetClassIface::tx_queue_len, "node_network_transmit_queue_length",
     "Network device property: transmit_queue_length", model::MetricType::kGauge},
    {&NetClassIface::type, "node_network_protocol_type", "Network device property: protocol_type",
     model::MetricType::kGauge},
};

// Errors procfs skips a file for instead of failing the interface.
bool skippable(int err) {
  return err == ENOENT || err == EACCES || err == EPERM || err == EOPNOTSUPP || err == EINVAL;
}

bool is_true(const std::string& v) { return v == "true" || v == "1" || v == "yes" || v == "on"; }

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

class NetclassCollector final : public Collector {
 public:
  explicit NetclassCollector(const CollectorContext& ctx)
      : dir_(ctx.fs.sys("class/net")),
        ignored_(ctx.option("collector.netclass.ignored-devices", "^$"), ""),
        ignore_invalid_speed_(is_true(ctx.option("collector.netclass.ignore-invalid-speed"))) {}

  Status collect(model::SnapshotBuilder& out) override {
    if (!ignored_.status()) return ignored_.status();
    Status s = list_devices();
    if (!s) return s;
    used_ = 0;
    for (const auto& name : names_) {
      if (ignored_.ignored(name)) continue;
      if (used_ == ifaces_.size()) ifaces_.emplace_back();
      NetClassIface& iface = ifaces_[used_];
      procfs::reset(iface);
      iface.name = name;
      bool gone = false;
      s = read_iface(iface, gone);
      if (!s) return s;
      if (!gone) ++used_;
    }
    const std::span<const NetClassIface> ifs(ifaces_.data(), used_);

    auto up = out.family("node_network_up", "Value is 1 if operstate is 'up', 0 otherwise.",
                         model::MetricType::kGauge, {"device"});
    for (const auto& i : ifs) up.add({i.name}, i.operstate == "up" ? 1 : 0);
    auto info = out.family("node_network_info", "Non-numeric data from /sys/class/net/<iface>, value is always 1.",
                           model::MetricType::kGauge,
                           {"address", "broadcast", "device", "duplex", "ifalias", "operstate"});
    for (const auto& i : ifs) info.add({i.address, i.broadcast, i.name, i.duplex, i.ifalias, i.operstate}, 1);

    for (const auto& p : kProperties) {
      if (p.field == &NetClassIface::tx_queue_len) emit_speed(out, ifs);
      auto fam = out.family(p.name, p.help, p.type, {"device"});
      for (const auto& i : ifs)
        if (const auto& v = i.*p.field) fam.add({i.name}, static_cast<double>(*v));
    }
    return Status::ok();
  }

 private:
  // Entries of class/net that are not regular files (sysfs has symlinks there,
  // and a regular bonding_masters file), sorted.
  Status list_devices() {
    DIR* d = ::opendir(dir_.c_str());
    if (!d) return Status::error("open " + dir_ + ": " + std::strerror(errno));
    size_t n = 0;
    while (const dirent* e = ::readdir(d)) {
      std::string_view name(e->d_name);
      if (name == "." || name == "..") continue;
      bool regular = e->d_type == DT_REG;
      if (e->d_type == DT_UNKNOWN) {
        struct stat st;
        regular = ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
      }
      if (regular) continue;
      if (n == names_.size()) names_.emplace_back();
      names_[n++].assign(name);
    }
    ::closedir(d);
    names_.resize(n);
    std::sort(names_.begin(), names_.end());
    return Status::ok();
  }

  // Reads the attribute files of one interface; gone=true when it vanished.
  Status read_iface(NetClassIface& iface, bool& gone) {
    std::string path = dir_ + "/" + iface.name;
    int dfd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) {
        gone = true;
        return Status::ok();
      }
      return Status::error("open " + path + ": " + std::strerror(errno));
    }
    FdCloser closer(dfd);
    for (std::string_view file : procfs::net_class_attribute_files()) {
      // node_exporter reads at most 128 bytes of each attribute (procfs SysReadFile).
      // The names are string literals, so file.data() is NUL-terminated.
      char buf[128];
      int fd = ::openat(dfd, file.data(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        if (skippable(errno)) continue;
        return Status::error("open " + path + "/" + std::string(file) + ": " + std::strerror(errno));
      }
      ssize_t r;
      do {
        r = ::read(fd, buf, sizeof buf);
      } while (r < 0 && errno == EINTR);
      int err = errno;
      ::close(fd);
      if (r < 0) {
        if (skippable(err)) continue;
        return Status::error("read " + path + "/" + std::string(file) + ": " + std::strerror(err));
      }
      procfs::set_attribute(iface, file, std::string_view(buf, static_cast<size_t>(r)));
    }
    return Status::ok();
  }

  void emit_speed(model::SnapshotBuilder& out, std::span<const NetClassIface> ifs) const {
    auto fam = out.family("node_network_speed_bytes", "Network device property: speed_bytes",
                          model::MetricType::kGauge, {"device"});
    for (const auto& i : ifs) {
      if (!i.speed) continue;
      // Some drivers report -1 when the speed is unknown.
      if (*i.speed < 0 && ignore_invalid_speed_) continue;
      // Go's int64(speed * 1000 * 1000 / 8), wrapping like Go on overflow.
      auto wrapped = static_cast<int64_t>(static_cast<uint64_t>(*i.speed) * 1000u * 1000u);
      fam.add({i.name}, static_cast<double>(wrapped / 8));
    }
  }

  std::string dir_;
  DeviceFilter ignored_;
  bool ignore_invalid_speed_;
  std::vector<std::string> names_;
  std::vector<NetClassIface> ifaces_;
  size_t used_ = 0;
};

}  // namespace

std::unique_ptr<Collector> make_netclass(const CollectorContext& ctx) {
  return std::make_unique<NetclassCollector>(ctx);
}

}  // namespace llmon::collector
