// edac collector (node_exporter 1.5 edac_linux.go): per memory controller
// /sys/devices/system/edac/mc/mc<N> node_edac_correctable_errors_total and
// node_edac_uncorrectable_errors_total{controller}, the no-info counts as
// node_edac_csrow_*_errors_total{controller,csrow="unknown"}, and per
// csrow<M> node_edac_csrow_*_errors_total{controller,csrow}. No EDAC driver
// means no controllers: nothing to report, success (as node_exporter's empty
// glob). A counter that cannot be read fails the cycle after the series
// before it, as node_exporter.
#include "procfs/edac.h"

#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

struct Count {
  std::string controller, csrow;  // csrow empty for the controller families
  double value = 0;
};

class EdacCollector final : public Collector {
 public:
  explicit EdacCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("devices/system/edac/mc")) {}

  Status collect(model::SnapshotBuilder& out) override {
    for (auto& v : counts_) v.clear();
    Status s = read_all();
    emit(out, "node_edac_correctable_errors_total", "Total correctable memory errors.", counts_[kCe]);
    emit(out, "node_edac_uncorrectable_errors_total", "Total uncorrectable memory errors.", counts_[kUe]);
    emit(out, "node_edac_csrow_correctable_errors_total", "Total correctable memory errors for this csrow.",
         counts_[kRowCe]);
    emit(out, "node_edac_csrow_uncorrectable_errors_total", "Total uncorrectable memory errors for this csrow.",
         counts_[kRowUe]);
    return s;
  }

 private:
  enum { kCe, kUe, kRowCe, kRowUe, kKinds };

  static void emit(model::SnapshotBuilder& out, std::string_view name, std::string_view help,
                   const std::vector<Count>& counts) {
    const bool rows = name.find("csrow") != std::string_view::npos;
    auto w = rows ? out.family(name, help, model::MetricType::kCounter, {"controller", "csrow"})
                  : out.family(name, help, model::MetricType::kCounter, {"controller"});
    for (const auto& c : counts) {
      if (rows)
        w.add({c.controller, c.csrow}, c.value);
      else
        w.add({c.controller}, c.value);
    }
  }

  // Reads dir/file into counts_[kind]; the error as node_exporter words it.
  Status count(const std::string& dir, const char* file, int kind, const std::string& controller,
               const std::string& csrow, const std::string& what) {
    const std::string path = dir + "/" + file;
    Status s = base::read_file(path, text_);
    Expected<uint64_t> v = s ? procfs::parse_edac_count(text_, path) : Expected<uint64_t>(s);
    if (!v) return v.status().with_context("couldn't get " + std::string(file) + " for " + what);
    counts_[kind].push_back({controller, csrow, static_cast<double>(*v)});
    return Status::ok();
  }

  Status read_all() {
    // A missing edac/mc is an empty glob for node_exporter.
    if (!base::list_dir(dir_, controllers_)) return Status::ok();
    for (const auto& mc : controllers_) {
      auto n = procfs::edac_entry_number(mc.name, "mc");
      if (!n) continue;
      const std::string dir = dir_ + "/" + mc.name;
      const std::string what = "controller " + *n;
      if (Status s = count(dir, "ce_count", kCe, *n, "", what); !s) return s;
      if (Status s = count(dir, "ce_noinfo_count", kRowCe, *n, "unknown", what); !s) return s;
      if (Status s = count(dir, "ue_count", kUe, *n, "", what); !s) return s;
      if (Status s = count(dir, "ue_noinfo_count", kRowUe, *n, "unknown", what); !s) return s;
      if (!base::list_dir(dir, rows_)) continue;
      for (const auto& row : rows_) {
        auto r = procfs::edac_entry_number(row.name, "csrow");
        if (!r) continue;
        const std::string row_dir = dir + "/" + row.name;
        const std::string row_what = "controller/csrow " + *n + "/" + *r;
        if (Status s = count(row_dir, "ce_count", kRowCe, *n, *r, row_what); !s) return s;
        if (Status s = count(row_dir, "ue_count", kRowUe, *n, *r, row_what); !s) return s;
      }
    }
    return Status::ok();
  }

  std::string dir_, text_;
  std::vector<base::DirEntry> controllers_, rows_;
  std::vector<Count> counts_[kKinds];
};

}  // namespace

std::unique_ptr<Collector> make_edac(const CollectorContext& ctx) {
  return std::make_unique<EdacCollector>(ctx);
}

}  // namespace llmon::collector
