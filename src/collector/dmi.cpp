// dmi collector (node_exporter 1.5 dmi.go over procfs' sysfs/class_dmi.go):
// node_dmi_info, value 1, labelled by the /sys/class/dmi/id attributes that
// exist (regular files; unreadable ones, such as the root-only serials, are
// left out). The labels are read once, as node_exporter does at start-up
// (they change only with a reboot); a failed read is retried next cycle.
// No /sys/class/dmi/id (ARM boards, some VMs) is "no data".
#include "procfs/dmi.h"

#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

constexpr std::string_view kHelp =
    "A metric with a constant '1' value labeled by bios_date, bios_release, bios_vendor, bios_version, "
    "board_asset_tag, board_name, board_serial, board_vendor, board_version, chassis_asset_tag, chassis_serial, "
    "chassis_vendor, chassis_version, product_family, product_name, product_serial, product_sku, product_uuid, "
    "product_version, system_vendor if provided by DMI.";

class DmiCollector final : public Collector {
 public:
  explicit DmiCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("class/dmi/id")) {}

  Status collect(model::SnapshotBuilder& out) override {
    if (!read_) {
      Status s = read();
      if (!s) return s;
      read_ = true;
    }
    if (values_.empty()) return Status::no_data("no DMI information in " + dir_);
    out.family("node_dmi_info", kHelp, model::MetricType::kGauge, labels_).add(values_, 1);
    return Status::ok();
  }

 private:
  Status read() {
    labels_.clear();
    values_.clear();
    std::vector<base::DirEntry> entries;
    if (Status s = base::list_dir(dir_, entries); !s) {
      // The platform has no DMI: node_exporter keeps an empty label set (no data).
      if (errno == ENOENT) return Status::ok();
      return s.with_context("failed to read Desktop Management Interface (DMI) information");
    }
    const auto attrs = procfs::dmi_attributes();
    std::vector<std::optional<std::string>> found(attrs.size());
    std::string text;
    for (const auto& e : entries) {
      if (e.kind != base::EntryKind::kFile && e.kind != base::EntryKind::kUnknown) continue;
      if (e.name == "modalias" || e.name == "uevent") continue;
      const std::string path = dir_ + "/" + e.name;
      if (Status s = base::read_file(path, text); !s) {
        if (errno == EACCES || errno == EPERM) continue;  // only root may read the serials and product_uuid
        return s.with_context("failed to read Desktop Management Interface (DMI) information");
      }
      const size_t i = procfs::dmi_attribute_index(e.name);
      if (i < attrs.size()) found[i] = procfs::dmi_value(text);
    }
    for (size_t i = 0; i < attrs.size(); ++i) {
      if (!found[i]) continue;
      labels_.emplace_back(attrs[i].label);
      values_.push_back(std::move(*found[i]));
    }
    return Status::ok();
  }

  std::string dir_;
  bool read_ = false;
  std::vector<std::string> labels_, values_;
};

}  // namespace

std::unique_ptr<Collector> make_dmi(const CollectorContext& ctx) {
  return std::make_unique<DmiCollector>(ctx);
}

}  // namespace llmon::collector
