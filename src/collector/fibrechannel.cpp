// fibrechannel collector (node_exporter 1.5 fibrechannel_linux.go over procfs'
// sysfs/class_fibrechannel.go): per /sys/class/fc_host/<host>
// node_fibrechannel_info{fc_host,speed,port_state,...} and the statistics/
// counters as node_fibrechannel_*_total{fc_host}, leaving out counters the HBA
// does not implement (all ones). As node_exporter: no fc_host class or no
// statistics directory is "no data", a missing attribute fails the collector.
// A counter that does not parse fails it with the file named (node_exporter
// 1.5 panics).
#include "procfs/fibrechannel.h"

#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "base/utf8.h"
#include "collector/builtin.h"
#include "procfs/thermal.h"

namespace llmon::collector {
namespace {

struct Host {
  std::string name;
  std::vector<std::string> attrs;               // by fc_attributes() index
  std::vector<std::optional<uint64_t>> counts;  // by fc_counters() index
};

// node_fibrechannel_info's labels, sorted, and the fc_attributes() index of
// each (-1: the host name).
constexpr std::pair<std::string_view, int> kInfoLabels[] = {
    {"dev_loss_tmo", 7},      {"fabric_name", 6},       {"fc_host", -1},      {"port_id", 4},
    {"port_name", 5},         {"port_state", 1},        {"port_type", 2},     {"speed", 0},
    {"supported_classes", 9}, {"supported_speeds", 10}, {"symbolic_name", 8},
};

class FibrechannelCollector final : public Collector {
 public:
  explicit FibrechannelCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("class/fc_host")) {}

  Status collect(model::SnapshotBuilder& out) override {
    hosts_.clear();
    if (Status s = read_all(); !s) return s;
    {
      std::vector<std::string> names;
      for (const auto& [label, index] : kInfoLabels) names.emplace_back(label);
      auto w =
          out.family("node_fibrechannel_info", "Non-numeric data from /sys/class/fc_host/<host>, value is always 1.",
                     model::MetricType::kGauge, names);
      std::vector<std::string> values;
      for (const auto& h : hosts_) {
        values.clear();
        for (const auto& [label, index] : kInfoLabels) values.push_back(index < 0 ? h.name : h.attrs[index]);
        w.add(values, 1);
      }
    }
    const auto counters = procfs::fc_counters();
    for (size_t i = 0; i < counters.size(); ++i) {
      name_.assign("node_fibrechannel_").append(counters[i].metric);
      auto w = out.family(name_, counters[i].help, model::MetricType::kCounter, {"fc_host"});
      for (const auto& h : hosts_) {
        const uint64_t v = h.counts[i].value_or(0);  // a counter file that is absent reads as 0
        if (!procfs::fc_counter_unimplemented(v)) w.add({h.name}, static_cast<double>(v));
      }
    }
    return Status::ok();
  }

 private:
  Status read_all() {
    if (Status s = base::list_dir(dir_, entries_); !s) {
      if (errno == ENOENT) return Status::no_data("fibrechannel statistics not found: " + s.message());
      return s.with_context("error obtaining FibreChannel class info");
    }
    for (const auto& e : entries_) {
      const std::string dir = dir_ + "/" + e.name;
      Host h{e.name, {}, std::vector<std::optional<uint64_t>>(procfs::fc_counters().size())};
      for (const auto& a : procfs::fc_attributes()) {
        if (Status s = base::read_file(dir + "/" + std::string(a.file), text_); !s)
          return s.with_context("error obtaining FibreChannel class info");
        h.attrs.push_back(base::to_valid_utf8(procfs::fc_attribute_value(a, text_)));
      }
      if (Status s = read_statistics(dir + "/statistics", h); !s) return s;
      hosts_.push_back(std::move(h));
    }
    return Status::ok();
  }

  Status read_statistics(const std::string& dir, Host& h) {
    if (Status s = base::list_dir(dir, files_); !s) {
      if (errno == ENOENT) return Status::no_data("fibrechannel statistics not found: " + s.message());
      return s.with_context("error obtaining FibreChannel class info");
    }
    const auto counters = procfs::fc_counters();
    for (const auto& f : files_) {
      if ((f.kind != base::EntryKind::kFile && f.kind != base::EntryKind::kUnknown) || f.name == "reset_statistics")
        continue;
      const std::string path = dir + "/" + f.name;
      if (Status s = base::read_file(path, text_); !s) {
        const int err = errno;
        if (err == ENOENT || err == EOPNOTSUPP || err == EINVAL) continue;  // write-only files
        return s.with_context("error obtaining FibreChannel class info");
      }
      for (size_t i = 0; i < counters.size(); ++i) {
        if (counters[i].file != f.name) continue;
        h.counts[i] = procfs::parse_fc_counter(text_);
        if (!h.counts[i])
          return Status::error("error obtaining FibreChannel class info: " + path + ": not an unsigned integer: \"" +
                               std::string(procfs::sysfs_trimmed(text_)) + "\"");
      }
    }
    return Status::ok();
  }

  std::string dir_, text_, name_;
  std::vector<base::DirEntry> entries_, files_;
  std::vector<Host> hosts_;
};

}  // namespace

std::unique_ptr<Collector> make_fibrechannel(const CollectorContext& ctx) {
  return std::make_unique<FibrechannelCollector>(ctx);
}

}  // namespace llmon::collector
