// filefd collector (node_exporter 1.5 filefd_linux.go): node_filefd_allocated
// and node_filefd_maximum from /proc/sys/fs/file-nr. A missing or malformed
// file fails the collector (success 0).
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/file_nr.h"

namespace llmon::collector {
namespace {

class FilefdCollector final : public Collector {
 public:
  explicit FilefdCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("sys/fs/file-nr")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto text = file_.read();
    if (!text) return text.status().with_context("couldn't get file-nr");
    auto nr = procfs::parse_file_nr(*text, file_.path());
    if (!nr) return nr.status().with_context("couldn't get file-nr");
    out.family("node_filefd_allocated", "File descriptor statistics: allocated.", model::MetricType::kGauge)
        .add(nr->allocated);
    out.family("node_filefd_maximum", "File descriptor statistics: maximum.", model::MetricType::kGauge)
        .add(nr->maximum);
    return Status::ok();
  }

 private:
  base::CachedFile file_;
};

}  // namespace

std::unique_ptr<Collector> make_filefd(const CollectorContext& ctx) {
  return std::make_unique<FilefdCollector>(ctx);
}

}  // namespace llmon::collector
