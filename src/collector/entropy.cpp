// entropy collector (node_exporter 1.5 entropy_linux.go):
// node_entropy_available_bits and node_entropy_pool_size_bits from
// /proc/sys/kernel/random/{entropy_avail,poolsize}. A missing or malformed
// file fails the collector (success 0), as node_exporter's "couldn't get
// entropy_avail"; the available bits are still written when only poolsize is
// bad, as node_exporter does.
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/kernel_random.h"

namespace llmon::collector {
namespace {

class EntropyCollector final : public Collector {
 public:
  explicit EntropyCollector(const CollectorContext& ctx)
      : avail_(ctx.fs.proc("sys/kernel/random/entropy_avail")), pool_(ctx.fs.proc("sys/kernel/random/poolsize")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto avail = read(avail_, "entropy_avail");
    if (!avail) return avail.status();
    out.family("node_entropy_available_bits", "Bits of available entropy.", model::MetricType::kGauge).add(*avail);
    auto pool = read(pool_, "entropy poolsize");
    if (!pool) return pool.status();
    out.family("node_entropy_pool_size_bits", "Bits of entropy pool.", model::MetricType::kGauge).add(*pool);
    return Status::ok();
  }

 private:
  static Expected<double> read(base::CachedFile& file, const std::string& what) {
    auto text = file.read();
    if (!text) return text.status().with_context("couldn't get " + what);
    auto v = procfs::parse_kernel_random_value(*text, file.path());
    if (!v) return v.status().with_context("couldn't get " + what);
    return static_cast<double>(*v);
  }

  base::CachedFile avail_, pool_;
};

}  // namespace

std::unique_ptr<Collector> make_entropy(const CollectorContext& ctx) {
  return std::make_unique<EntropyCollector>(ctx);
}

}  // namespace llmon::collector
