// interrupts collector (node_exporter 1.5 interrupts_linux.go, off by
// default): node_interrupts_total{cpu,type,info,devices}, one series per
// /proc/interrupts line and CPU column. A missing, empty or malformed file
// fails the collector ("couldn't get interrupts").
#include "procfs/interrupts.h"

#include <string>
#include <vector>

#include "base/file_reader.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

class InterruptsCollector final : public Collector {
 public:
  explicit InterruptsCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("interrupts")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto text = file_.read();
    if (!text) return text.status().with_context("couldn't get interrupts");
    Status s = procfs::parse_interrupts(*text, file_.path(), irqs_);
    if (!s) return s.with_context("couldn't get interrupts");
    auto fam = out.family("node_interrupts_total", "Interrupt details.", model::MetricType::kCounter,
                          {"cpu", "type", "info", "devices"});
    for (const procfs::Interrupt& irq : irqs_) {
      while (cpus_.size() < irq.per_cpu.size()) cpus_.push_back(std::to_string(cpus_.size()));
      for (size_t i = 0; i < irq.per_cpu.size(); ++i)
        fam.add({cpus_[i], irq.name, irq.info, irq.devices}, irq.per_cpu[i]);
    }
    return Status::ok();
  }

 private:
  base::CachedFile file_;  // many records: more than one page on a large host
  std::vector<procfs::Interrupt> irqs_;
  std::vector<std::string> cpus_;  // "0", "1", ...: label values kept between cycles
};

}  // namespace

std::unique_ptr<Collector> make_interrupts(const CollectorContext& ctx) {
  return std::make_unique<InterruptsCollector>(ctx);
}

}  // namespace llmon::collector
