// infiniband collector (node_exporter 1.5 infiniband_linux.go over procfs'
// sysfs/class_infiniband.go): node_infiniband_info{device,board_id,
// firmware_version,hca_type} per HCA, and per port node_infiniband_state_id,
// physical_state_id, rate_bytes_per_second and the counters/ and counters_ext/
// files (data counters times 4, as procfs). As node_exporter, any error
// drops the whole collection; a missing file or directory anywhere (no
// /sys/class/infiniband: no RDMA hardware or driver) is "no data".
// Directories are listed every cycle; the files read are kept open and
// re-read with pread (a few hundred per HCA), and closed once not read in a
// cycle.
#include "procfs/infiniband.h"

#include <cerrno>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/thermal.h"

namespace llmon::collector {
namespace {

struct Port {
  std::string device, port;
  uint32_t state = 0, phys_state = 0;
  uint64_t rate = 0;
  std::vector<std::optional<uint64_t>> counters;  // by ib_counter_specs() index
};

struct Device {
  std::string name, board_id, fw_ver, hca_type;
};

// A failed read or listing: ENOENT is node_exporter's ErrNoData (os.ErrNotExist).
Status failure(const Status& s, int err) {
  return err == ENOENT ? Status::no_data(s.message()) : Status::error(s.message());
}

class InfinibandCollector final : public Collector {
 public:
  explicit InfinibandCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("class/infiniband")) {}

  Status collect(model::SnapshotBuilder& out) override {
    devices_.clear();
    ports_.clear();
    ++cycle_;
    Status s = read_all();
    std::erase_if(kept_, [&](const auto& k) { return k.second.cycle != cycle_; });
    if (!s) {
      if (s.is_no_data()) return Status::no_data("infiniband statistics not found: " + s.message());
      return s.with_context("error obtaining InfiniBand class info");
    }
    {
      auto w =
          out.family("node_infiniband_info", "Non-numeric data from /sys/class/infiniband/<device>, value is always 1.",
                     model::MetricType::kGauge, {"board_id", "device", "firmware_version", "hca_type"});
      for (const auto& d : devices_) w.add({d.board_id, d.name, d.fw_ver, d.hca_type}, 1);
    }
    gauge(out, "node_infiniband_state_id",
          "State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed, 4: active, 5: act defer)",
          [](const Port& p) { return static_cast<double>(p.state); });
    gauge(out, "node_infiniband_physical_state_id",
          "Physical state of the InfiniBand port (0: no change, 1: sleep, 2: polling, 3: disable, 4: shift, 5: link "
          "up, 6: link error recover, 7: phytest)",
          [](const Port& p) { return static_cast<double>(p.phys_state); });
    gauge(out, "node_infiniband_rate_bytes_per_second", "Maximum signal transfer rate",
          [](const Port& p) { return static_cast<double>(p.rate); });
    const auto specs = procfs::ib_counter_specs();
    for (size_t i = 0; i < specs.size(); ++i) {
      name_.assign("node_infiniband_").append(specs[i].metric);
      auto w = out.family(name_, specs[i].help, model::MetricType::kCounter, {"device", "port"});
      for (const auto& p : ports_)
        if (p.counters[i]) w.add({p.device, p.port}, static_cast<double>(*p.counters[i]));
    }
    return Status::ok();
  }

 private:
  template <typename Value>
  void gauge(model::SnapshotBuilder& out, std::string_view name, std::string_view help, Value value) {
    auto w = out.family(name, help, model::MetricType::kGauge, {"device", "port"});
    for (const auto& p : ports_) w.add({p.device, p.port}, value(p));
  }

  Status list(const std::string& path, std::vector<base::DirEntry>& entries) {
    Status s = base::list_dir(path, entries);
    return s ? s : failure(s, errno);
  }

  // Reads path into text_ through a kept descriptor; on failure errno is the call's.
  Status fetch(const std::string& path) {
    auto it = kept_.find(path);
    if (it == kept_.end()) it = kept_.emplace(path, Kept{base::CachedFile(path), 0}).first;
    it->second.cycle = cycle_;
    auto text = it->second.file.read();
    if (!text) return text.status();
    text_ = *text;
    return Status::ok();
  }

  Status read(const std::string& path) {
    Status s = fetch(path);
    return s ? s : failure(s, errno);
  }

  Status read_all() {
    std::vector<base::DirEntry> devices;
    if (Status s = list(dir_, devices); !s) return s;
    for (const auto& d : devices) {
      Device dev{d.name, {}, {}, {}};
      const std::string path = dir_ + "/" + d.name;
      for (auto [file, field] : {std::pair{"board_id", &Device::board_id}, std::pair{"fw_ver", &Device::fw_ver},
                                 std::pair{"hca_type", &Device::hca_type}}) {
        if (Status s = read(path + "/" + file); !s) return s.with_context("failed to read file");
        dev.*field = std::string(procfs::sysfs_trimmed(text_));
      }
      std::vector<base::DirEntry> ports;
      if (Status s = list(path + "/ports", ports); !s) return s.with_context("failed to list InfiniBand ports");
      for (const auto& p : ports)
        if (Status s = read_port(d.name, path + "/ports/" + p.name, p.name); !s) return s;
      devices_.push_back(std::move(dev));
    }
    return Status::ok();
  }

  Status read_port(const std::string& device, const std::string& path, const std::string& name) {
    Port port;
    port.device = device;
    auto number = name.find_first_not_of("0123456789") == std::string::npos ? base::parse_u64(name) : std::nullopt;
    if (!number || *number > UINT32_MAX) return Status::error(path + ": port name is not an unsigned integer");
    port.port = std::to_string(*number);
    for (auto [file, field] : {std::pair{"state", &Port::state}, std::pair{"phys_state", &Port::phys_state}}) {
      if (Status s = read(path + "/" + file); !s) return s;
      auto st = procfs::parse_ib_state(text_, path + "/" + file);
      if (!st) return st.status();
      port.*field = st->id;
    }
    if (Status s = read(path + "/rate"); !s) return s;
    auto rate = procfs::parse_ib_rate(text_, path + "/rate");
    if (!rate) return rate.status();
    port.rate = *rate;
    port.counters.assign(procfs::ib_counter_specs().size(), std::nullopt);
    if (Status s = read_counters(path, "counters", port, true); !s) return s;
    if (Status s = read_counters(path, "counters_ext", port, false); !s) return s;
    ports_.push_back(std::move(port));
    return Status::ok();
  }

  Status read_counters(const std::string& port_path, std::string_view dir, Port& port, bool required) {
    const std::string path = port_path + "/" + std::string(dir);
    Status ls = base::list_dir(path, entries_);
    if (!ls) {
      const int err = errno;
      if (!required && err == ENOENT) return Status::ok();
      return failure(ls, err);
    }
    for (const auto& e : entries_) {
      if (e.kind != base::EntryKind::kFile && e.kind != base::EntryKind::kUnknown) continue;
      const size_t i = procfs::ib_counter_index(dir, e.name);
      const std::string file = path + "/" + e.name;
      Status s = fetch(file);
      if (!s) {
        const int err = errno;
        // procfs skips files the kernel refuses to read.
        if (err == ENOENT || err == EACCES || err == EPERM || err == EOPNOTSUPP || err == EINVAL) continue;
        return s;
      }
      if (i == procfs::ib_counter_specs().size()) continue;
      auto v = procfs::parse_ib_counter(procfs::ib_counter_specs()[i], text_, file);
      if (!v) return v.status();
      port.counters[i] = *v;
    }
    return Status::ok();
  }

  struct Kept {
    base::CachedFile file;
    uint64_t cycle;  // the last cycle that read it
  };

  std::string dir_, name_;
  std::string_view text_;  // the last file fetched
  std::unordered_map<std::string, Kept> kept_;
  uint64_t cycle_ = 0;
  std::vector<base::DirEntry> entries_;
  std::vector<Device> devices_;
  std::vector<Port> ports_;
};

}  // namespace

std::unique_ptr<Collector> make_infiniband(const CollectorContext& ctx) {
  return std::make_unique<InfinibandCollector>(ctx);
}

}  // namespace llmon::collector
