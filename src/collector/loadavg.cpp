// loadavg collector: node_load1/5/15 from /proc/loadavg (node_exporter loadavg_linux.go).
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/loadavg.h"

namespace llmon::collector {
namespace {

class LoadavgCollector final : public Collector {
 public:
  explicit LoadavgCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("loadavg")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto text = file_.read();
    if (!text) return text.status();
    auto la = procfs::parse_loadavg(*text);
    if (!la) return la.status().with_context(file_.path());
    out.family("node_load1", "1m load average.", model::MetricType::kGauge).add(la->load1);
    out.family("node_load5", "5m load average.", model::MetricType::kGauge).add(la->load5);
    out.family("node_load15", "15m load average.", model::MetricType::kGauge).add(la->load15);
    return Status::ok();
  }

 private:
  base::CachedFile file_;
};

}  // namespace

std::unique_ptr<Collector> make_loadavg(const CollectorContext& ctx) {
  return std::make_unique<LoadavgCollector>(ctx);
}

}  // namespace llmon::collector
