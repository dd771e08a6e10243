// softnet collector (node_exporter 1.5 softnet_linux.go):
// node_softnet_{processed,dropped,times_squeezed}_total{cpu} from
// /proc/net/softnet_stat. Like 1.5, the cpu label is the line's position in
// the file (newer releases read the kernel's cpu index column and add more
// families). A missing or malformed file fails the collector.
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/net_softnet.h"

namespace llmon::collector {
namespace {

class SoftnetCollector final : public Collector {
 public:
  explicit SoftnetCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("net/softnet_stat")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto text = file_.read();
    if (!text) return text.status().with_context("could not get softnet statistics");
    Status s = procfs::parse_softnet(*text, file_.path(), lines_);
    if (!s) return s.with_context("could not get softnet statistics");
    while (cpus_.size() < lines_.size()) cpus_.push_back(std::to_string(cpus_.size()));
    using model::MetricType;
    auto processed =
        out.family("node_softnet_processed_total", "Number of processed packets", MetricType::kCounter, {"cpu"});
    for (size_t i = 0; i < lines_.size(); ++i) processed.add({cpus_[i]}, lines_[i].processed);
    auto dropped = out.family("node_softnet_dropped_total", "Number of dropped packets", MetricType::kCounter, {"cpu"});
    for (size_t i = 0; i < lines_.size(); ++i) dropped.add({cpus_[i]}, lines_[i].dropped);
    auto squeezed = out.family("node_softnet_times_squeezed_total",
                               "Number of times processing packets ran out of quota", MetricType::kCounter, {"cpu"});
    for (size_t i = 0; i < lines_.size(); ++i) squeezed.add({cpus_[i]}, lines_[i].time_squeezed);
    return Status::ok();
  }

 private:
  base::CachedFile file_;
  std::vector<procfs::SoftnetLine> lines_;
  std::vector<std::string> cpus_;  // "0", "1", ...: label values kept between cycles
};

}  // namespace

std::unique_ptr<Collector> make_softnet(const CollectorContext& ctx) {
  return std::make_unique<SoftnetCollector>(ctx);
}

}  // namespace llmon::collector
