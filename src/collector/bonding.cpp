// bonding collector (node_exporter 1.5 bonding_linux.go):
// node_bonding_slaves{master} and node_bonding_active{master} from
// /sys/class/net/bonding_masters, <master>/bonding/slaves and each slave's
// lower_<slave>/bonding_slave/mii_status (slave_<slave>/ on older kernels).
// As node_exporter, any failure drops the whole collection, and a missing
// file (no bonding module loaded: no bonding_masters) is "no data".
#include "procfs/bonding.h"

#include <cerrno>
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

struct Bond {
  std::string master;
  int slaves = 0, active = 0;
};

class BondingCollector final : public Collector {
 public:
  explicit BondingCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("class/net")) {}

  Status collect(model::SnapshotBuilder& out) override {
    bonds_.clear();
    if (Status s = read_all(); !s) return s;
    {
      auto w = out.family("node_bonding_slaves", "Number of configured slaves per bonding interface.",
                          model::MetricType::kGauge, {"master"});
      for (const auto& b : bonds_) w.add({b.master}, b.slaves);
    }
    auto w = out.family("node_bonding_active", "Number of active slaves per bonding interface.",
                        model::MetricType::kGauge, {"master"});
    for (const auto& b : bonds_) w.add({b.master}, b.active);
    return Status::ok();
  }

 private:
  Status read(const std::string& path) {
    Status s = base::read_file(path, text_);
    if (s) return s;
    return errno == ENOENT ? Status::no_data("not collecting bonding: " + s.message()) : s;
  }

  Status read_all() {
    if (Status s = read(dir_ + "/bonding_masters"); !s) return s;
    for (const std::string& master : procfs::parse_bonding_names(text_)) {
      const std::string dir = dir_ + "/" + master;
      if (Status s = read(dir + "/bonding/slaves"); !s) return s;
      Bond b{master};
      for (const std::string& slave : procfs::parse_bonding_names(text_)) {
        Status s = base::read_file(dir + "/lower_" + slave + "/bonding_slave/mii_status", text_);
        if (!s && errno == ENOENT) s = read(dir + "/slave_" + slave + "/bonding_slave/mii_status");
        if (!s) return s;
        ++b.slaves;
        if (procfs::bonding_slave_up(text_)) ++b.active;
      }
      // A master listed twice is one series (node_exporter's map).
      bool seen = false;
      for (auto& old : bonds_)
        if (old.master == master) {
          old = b;
          seen = true;
        }
      if (!seen) bonds_.push_back(std::move(b));
    }
    return Status::ok();
  }

  std::string dir_, text_;
  std::vector<Bond> bonds_;
};

}  // namespace

std::unique_ptr<Collector> make_bonding(const CollectorContext& ctx) {
  return std::make_unique<BondingCollector>(ctx);
}

}  // namespace llmon::collector
