// nvme collector (node_exporter 1.5 nvme_linux.go over procfs'
// sysfs/class_nvme.go): node_nvme_info{device,firmware_revision,model,serial,
// state}, value 1, per /sys/class/nvme/<device>. As node_exporter, a device
// missing one of the four attributes drops the whole collection; no
// /sys/class/nvme, or a missing attribute, is "no data".
#include <cerrno>
#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "base/utf8.h"
#include "collector/builtin.h"
#include "procfs/thermal.h"

namespace llmon::collector {
namespace {

constexpr const char* kFiles[] = {"firmware_rev", "model", "serial", "state"};

class NvmeCollector final : public Collector {
 public:
  explicit NvmeCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("class/nvme")) {}

  Status collect(model::SnapshotBuilder& out) override {
    rows_.clear();
    if (Status s = base::list_dir(dir_, entries_); !s) return failed(s, errno);
    for (const auto& e : entries_) {
      std::vector<std::string> row{e.name};
      for (const char* f : kFiles) {
        if (Status s = base::read_file(dir_ + "/" + e.name + "/" + f, text_); !s) return failed(s, errno);
        row.push_back(base::to_valid_utf8(procfs::sysfs_trimmed(text_)));
      }
      rows_.push_back(std::move(row));
    }
    auto w = out.family("node_nvme_info", "Non-numeric data from /sys/class/nvme/<device>, value is always 1.",
                        model::MetricType::kGauge, {"device", "firmware_revision", "model", "serial", "state"});
    for (const auto& r : rows_) w.add(r, 1);
    return Status::ok();
  }

 private:
  static Status failed(const Status& s, int err) {
    if (err == ENOENT) return Status::no_data("nvme statistics not found: " + s.message());
    return s.with_context("error obtaining NVMe class info");
  }

  std::string dir_, text_;
  std::vector<base::DirEntry> entries_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace

std::unique_ptr<Collector> make_nvme(const CollectorContext& ctx) {
  return std::make_unique<NvmeCollector>(ctx);
}

}  // namespace llmon::collector
