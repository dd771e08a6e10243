// tapestats collector (node_exporter 1.5 tapestats_linux.go over procfs'
// sysfs/class_scsitape.go): per /sys/class/scsi_tape/st<N>/stats/ the
// node_tape_* families{device} (times in seconds). --collector.tapestats.
// ignored-devices leaves devices out by name. As node_exporter: no scsi_tape
// class or a tape without stats/ is "no data"; any unreadable stats file fails
// the collector. A value that does not parse fails it with the file named
// (node_exporter 1.5 dereferences a nil pointer and crashes).
#include <cerrno>
#include <regex>
#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/option_regex.h"
#include "collector/options.h"
#include "procfs/scsi_tape.h"
#include "procfs/thermal.h"

namespace llmon::collector {
namespace {

struct Tape {
  std::string name;
  std::vector<uint64_t> values;  // by tape_stats() index; an absent file is 0
};

class TapestatsCollector final : public Collector {
 public:
  explicit TapestatsCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("class/scsi_tape")) {
    regex_error_ = compile_option_regex(ctx, flag::kCollectorTapestatsIgnoredDevices, ignored_);
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!regex_error_.empty()) return Status::error(regex_error_);
    tapes_.clear();
    if (Status s = read_all(); !s) return s;
    const auto stats = procfs::tape_stats();
    for (size_t i = 0; i < stats.size(); ++i) {
      name_.assign("node_tape_").append(stats[i].metric);
      auto w = out.family(name_, stats[i].help,
                          stats[i].counter ? model::MetricType::kCounter : model::MetricType::kGauge, {"device"});
      for (const auto& t : tapes_) {
        const double v = static_cast<double>(t.values[i]);
        w.add({t.name}, stats[i].nanoseconds ? v * 0.000000001 : v);
      }
    }
    return Status::ok();
  }

 private:
  static Status failed(const Status& s, int err) {
    if (err == ENOENT) return Status::no_data("scsi_tape stats not found: " + s.message());
    return s.with_context("error obtaining SCSITape class info");
  }

  Status read_all() {
    if (Status s = base::list_dir(dir_, entries_); !s) return failed(s, errno);
    const auto stats = procfs::tape_stats();
    for (const auto& e : entries_) {
      if (!procfs::is_scsi_tape_device(e.name)) continue;
      const std::string dir = dir_ + "/" + e.name + "/stats";
      if (Status s = base::list_dir(dir, files_); !s) return failed(s, errno);
      Tape t{e.name, std::vector<uint64_t>(stats.size())};
      for (const auto& f : files_) {
        const std::string path = dir + "/" + f.name;
        if (Status s = base::read_file(path, text_); !s) return s.with_context("error obtaining SCSITape class info");
        for (size_t i = 0; i < stats.size(); ++i) {
          if (stats[i].file != f.name) continue;
          auto v = procfs::parse_tape_stat(text_);
          if (!v)
            return Status::error("error obtaining SCSITape class info: " + path + ": not an unsigned integer: \"" +
                                 std::string(procfs::sysfs_trimmed(text_)) + "\"");
          t.values[i] = *v;
        }
      }
      if (!std::regex_search(t.name, ignored_)) tapes_.push_back(std::move(t));
    }
    return Status::ok();
  }

  std::string dir_, text_, name_, regex_error_;
  std::regex ignored_;
  std::vector<base::DirEntry> entries_, files_;
  std::vector<Tape> tapes_;
};

}  // namespace

std::unique_ptr<Collector> make_tapestats(const CollectorContext& ctx) {
  return std::make_unique<TapestatsCollector>(ctx);
}

}  // namespace llmon::collector
