// netclass collector: node_network_{up,info,mtu_bytes,speed_bytes,carrier,...}
// {device} from /sys/class/net/<iface>/ (node_exporter 1.5 netclass_linux.go,
// sysfs mode). Attribute files that are missing or refuse reading (EINVAL on
// a down link's speed, EOPNOTSUPP, EACCES) are left out like node_exporter does.
// Cost per cycle: one listing of class/net (sysfs does not update a
// directory's mtime, so the listing is the change check) and one pread per
// attribute on descriptors kept open (sysfs regenerates an attribute on a read
// at offset 0). Interfaces that vanish are dropped with their descriptors; one
// re-created under the same name (new inode, or ENODEV on the old
// descriptors) is re-opened. Refused attributes are remembered and retried
// when the interface's flags, operstate or carrier change, or after 60 s.
#include "collector/netclass.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collector/builtin.h"
#include "collector/device_filter.h"
#include "collector/options.h"
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

constexpr size_t kAttrCount = procfs::kNetClassAttributeCount;
constexpr int64_t kRetryRefusedMs = 60'000;
constexpr size_t kMaxFdBudget = 4096;

// One interface's open attribute descriptors and what it remembers between cycles.
struct IfaceCache {
  std::string name;
  ino_t ino = 0;         // of the class/net entry: a re-created interface has a new one
  bool ignored = false;  // collector.netclass.ignored-devices
  bool checked = false;  // its directory was found since the last reset
  std::array<int, kAttrCount> fd;
  std::array<bool, kAttrCount> refused{};  // answered ENOENT/EINVAL/EOPNOTSUPP/EACCES/EPERM
  bool any_refused = false;
  int64_t refused_since_ms = 0;
  // Link state of the last cycle; a change retries the refused attributes.
  bool have_state = false;
  std::optional<int64_t> flags, carrier;
  std::string operstate;

  IfaceCache() { fd.fill(-1); }
};

struct ListEntry {
  std::string name;
  ino_t ino = 0;
};

enum class Read { kOk, kSkipped, kGone, kError };

class NetclassCollector final : public Collector {
 public:
  NetclassCollector(const CollectorContext& ctx, size_t max_open_fds)
      : dir_(ctx.fs.sys("class/net")),
        ignored_(ctx.option(flag::kCollectorNetclassIgnoredDevices), ""),
        ignore_invalid_speed_(ctx.option(flag::kCollectorNetclassIgnoreInvalidSpeed)),
        clock_(ctx.clock ? ctx.clock : &system_clock_),
        max_open_fds_(max_open_fds) {
    auto files = procfs::net_class_attribute_files();
    const size_t first[] = {procfs::net_class_attribute_index("flags"), procfs::net_class_attribute_index("operstate"),
                            procfs::net_class_attribute_index("carrier")};
    carrier_ = first[2];
    size_t n = 0;
    for (size_t i : first) order_[n++] = i;
    for (size_t i = 0; i < files.size(); ++i)
      if (std::find(std::begin(first), std::end(first), i) == std::end(first)) order_[n++] = i;
  }

  ~NetclassCollector() override {
    for (auto& c : caches_) close_all(c);
    if (dir_handle_) ::closedir(dir_handle_);
  }
  NetclassCollector(const NetclassCollector&) = delete;
  NetclassCollector& operator=(const NetclassCollector&) = delete;

  Status collect(model::SnapshotBuilder& out) override {
    if (!ignored_.status()) return ignored_.status();
    Status s = list_devices();
    if (!s) return s;
    now_ms_ = clock_->now_ms();
    used_ = 0;
    for (auto& c : caches_) {
      if (c.ignored) continue;
      if (used_ == ifaces_.size()) ifaces_.emplace_back();
      NetClassIface& iface = ifaces_[used_];
      Read r = read_iface(c, iface);
      if (r == Read::kGone) {
        // Removed, or removed and re-created under the same name: start afresh.
        close_all(c);
        r = read_iface(c, iface);
      }
      if (r == Read::kError) return error_;
      if (r == Read::kOk) ++used_;
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
  // and a regular bonding_masters file), sorted; caches_ follows them.
  Status list_devices() {
    if (dir_handle_) {
      ::rewinddir(dir_handle_);
    } else {
      dir_handle_ = ::opendir(dir_.c_str());
      if (!dir_handle_) return Status::error("open " + dir_ + ": " + std::strerror(errno));
    }
    size_t n = 0;
    for (;;) {
      errno = 0;
      const dirent* e = ::readdir(dir_handle_);
      if (!e) break;
      std::string_view name(e->d_name);
      if (name == "." || name == "..") continue;
      bool regular = e->d_type == DT_REG;
      if (e->d_type == DT_UNKNOWN) {
        struct stat st;
        regular = ::fstatat(::dirfd(dir_handle_), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
      }
      if (regular) continue;
      if (n == listing_.size()) listing_.emplace_back();
      listing_[n].name.assign(name);
      listing_[n].ino = e->d_ino;
      ++n;
    }
    if (errno != 0) {
      int err = errno;
      ::closedir(dir_handle_);
      dir_handle_ = nullptr;
      return Status::error("read " + dir_ + ": " + std::strerror(err));
    }
    listing_.resize(n);
    std::sort(listing_.begin(), listing_.end(), [](const ListEntry& a, const ListEntry& b) { return a.name < b.name; });
    if (!same_as_caches()) reconcile();
    return Status::ok();
  }

  bool same_as_caches() const {
    if (listing_.size() != caches_.size()) return false;
    for (size_t i = 0; i < listing_.size(); ++i)
      if (listing_[i].name != caches_[i].name || listing_[i].ino != caches_[i].ino) return false;
    return true;
  }

  // Keeps the caches of interfaces still listed with the same inode, drops
  // (closes) the others, adds the new ones. Both lists are sorted by name.
  void reconcile() {
    std::vector<IfaceCache> next;
    next.reserve(listing_.size());
    size_t j = 0;
    for (const auto& e : listing_) {
      while (j < caches_.size() && caches_[j].name < e.name) close_all(caches_[j++]);
      if (j < caches_.size() && caches_[j].name == e.name && caches_[j].ino == e.ino) {
        next.push_back(std::move(caches_[j++]));
        continue;
      }
      if (j < caches_.size() && caches_[j].name == e.name) close_all(caches_[j++]);  // re-created
      IfaceCache& c = next.emplace_back();
      c.name = e.name;
      c.ino = e.ino;
      c.ignored = ignored_.ignored(c.name);
    }
    while (j < caches_.size()) close_all(caches_[j++]);
    caches_ = std::move(next);
  }

  void close_all(IfaceCache& c) {
    for (int& fd : c.fd) {
      if (fd < 0) continue;
      ::close(fd);
      fd = -1;
      --open_fds_;
    }
    c.refused.fill(false);
    c.any_refused = false;
    c.have_state = false;
    c.checked = false;
  }

  void clear_refused(IfaceCache& c) {
    c.refused.fill(false);
    c.any_refused = false;
  }

  // Reads the attributes of one interface into iface (reset first).
  Read read_iface(IfaceCache& c, NetClassIface& iface) {
    procfs::reset(iface);
    iface.name = c.name;
    if (!c.checked) {
      // A fresh interface: is its directory there at all?
      struct stat st;
      if (::fstatat(::dirfd(dir_handle_), c.name.c_str(), &st, 0) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return Read::kGone;
        return fail("stat", c.name, "", errno);
      }
      if (!S_ISDIR(st.st_mode)) return Read::kGone;
      c.checked = true;
    }
    if (c.any_refused && (now_ms_ - c.refused_since_ms >= kRetryRefusedMs || now_ms_ < c.refused_since_ms))
      clear_refused(c);
    // flags, operstate and carrier first: when they changed, what was refused
    // (speed and duplex on a down link, carrier on an admin-down one) is retried.
    for (size_t k = 0; k < 3; ++k) {
      Read r = read_attr(c, order_[k], iface);
      if (r == Read::kGone || r == Read::kError) return r;
    }
    if (c.have_state && c.any_refused &&
        (iface.flags != c.flags || iface.operstate != c.operstate || iface.carrier != c.carrier)) {
      bool carrier_was_refused = c.refused[carrier_];
      clear_refused(c);
      if (carrier_was_refused) {
        Read r = read_attr(c, carrier_, iface);
        if (r == Read::kGone || r == Read::kError) return r;
      }
    }
    c.have_state = true;
    c.flags = iface.flags;
    c.carrier = iface.carrier;
    c.operstate = iface.operstate;
    for (size_t k = 3; k < kAttrCount; ++k) {
      Read r = read_attr(c, order_[k], iface);
      if (r == Read::kGone || r == Read::kError) return r;
    }
    return Read::kOk;
  }

  // One attribute: pread on the kept descriptor, or open (and keep, within
  // the budget) first. kSkipped when refused now or in an earlier cycle.
  Read read_attr(IfaceCache& c, size_t idx, NetClassIface& iface) {
    if (c.refused[idx]) return Read::kSkipped;
    std::string_view file = procfs::net_class_attribute_files()[idx];
    int fd = c.fd[idx];
    bool transient = false;
    if (fd < 0) {
      rel_.assign(c.name).append("/").append(file);
      fd = ::openat(::dirfd(dir_handle_), rel_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        int err = errno;
        if (skippable(err)) return refuse(c, idx);
        if (err == ENODEV) return Read::kGone;
        return fail("open", c.name, file, err);
      }
      if (open_fds_ < max_open_fds_) {
        c.fd[idx] = fd;
        ++open_fds_;
      } else {
        transient = true;
      }
    }
    // node_exporter reads at most 128 bytes of each attribute (procfs SysReadFile).
    char buf[128];
    ssize_t r = 0;
    do {
      r = ::pread(fd, buf, sizeof buf, 0);
    } while (r < 0 && errno == EINTR);
    int err = errno;
    if (transient) ::close(fd);
    if (r < 0) {
      // ENODEV: the interface was removed (sysfs files of a gone device).
      if (err == ENODEV) return Read::kGone;
      if (skippable(err)) return refuse(c, idx);
      return fail("read", c.name, file, err);
    }
    procfs::set_attribute_at(iface, idx, std::string_view(buf, static_cast<size_t>(r)));
    return Read::kOk;
  }

  Read refuse(IfaceCache& c, size_t idx) {
    if (!c.any_refused) c.refused_since_ms = now_ms_;
    c.refused[idx] = true;
    c.any_refused = true;
    return Read::kSkipped;
  }

  Read fail(std::string_view what, const std::string& iface, std::string_view file, int err) {
    std::string path = dir_ + "/" + iface;
    if (!file.empty()) path.append("/").append(file);
    error_ = Status::error(std::string(what) + " " + path + ": " + std::strerror(err));
    return Read::kError;
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
  base::SystemClock system_clock_;
  const base::Clock* clock_;
  size_t max_open_fds_;
  size_t open_fds_ = 0;
  std::array<size_t, kAttrCount> order_{};  // attribute indices, flags/operstate/carrier first
  size_t carrier_ = 0;

  DIR* dir_handle_ = nullptr;  // class/net, kept open and rewound each cycle
  std::vector<ListEntry> listing_;
  std::vector<IfaceCache> caches_;  // sorted by name, as listed
  std::string rel_;                 // "<iface>/<attribute>" scratch
  int64_t now_ms_ = 0;
  Status error_;
  std::vector<NetClassIface> ifaces_;
  size_t used_ = 0;
};

}  // namespace

size_t default_netclass_fd_budget() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return kMaxFdBudget;
  return std::min<size_t>(kMaxFdBudget, static_cast<size_t>(rl.rlim_cur / 4));
}

std::unique_ptr<Collector> make_netclass_with(const CollectorContext& ctx, size_t max_open_fds) {
  return std::make_unique<NetclassCollector>(ctx, max_open_fds);
}

std::unique_ptr<Collector> make_netclass(const CollectorContext& ctx) {
  return make_netclass_with(ctx, default_netclass_fd_budget());
}

}  // namespace llmon::collector
