// conntrack collector (node_exporter 1.5 conntrack_linux.go):
// node_nf_conntrack_entries and _entries_limit from
// /proc/sys/net/netfilter/nf_conntrack_{count,max}, then
// node_nf_conntrack_stat_* gauges summed over the CPUs of
// /proc/net/stat/nf_conntrack. A missing file (conntrack not loaded) stops
// the collector with "no data" (success 0, the series before it kept), as
// node_exporter's ErrNoData; a malformed one fails it.
#include <unistd.h>

#include <string>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/net_conntrack.h"

namespace llmon::collector {
namespace {

class ConntrackCollector final : public Collector {
 public:
  explicit ConntrackCollector(const CollectorContext& ctx)
      : count_(ctx.fs.proc("sys/net/netfilter/nf_conntrack_count")),
        max_(ctx.fs.proc("sys/net/netfilter/nf_conntrack_max")),
        stat_(ctx.fs.proc("net/stat/nf_conntrack")) {}

  Status collect(model::SnapshotBuilder& out) override {
    using model::MetricType;
    auto count = read_uint(count_);
    if (!count) return count.status();
    out.family("node_nf_conntrack_entries", "Number of currently allocated flow entries for connection tracking.",
               MetricType::kGauge)
        .add(static_cast<double>(*count));
    auto max = read_uint(max_);
    if (!max) return max.status();
    out.family("node_nf_conntrack_entries_limit", "Maximum size of connection tracking table.", MetricType::kGauge)
        .add(static_cast<double>(*max));

    auto text = stat_.read();
    if (!text) return missing_or(stat_, text.status());
    auto st = procfs::parse_conntrack_stat(*text, stat_.path());
    if (!st) return st.status().with_context("failed to retrieve conntrack stats");
    const struct {
      std::string_view name, help;
      uint64_t value;
    } stats[] = {
        {"node_nf_conntrack_stat_found", "Number of searched entries which were successful.", st->found},
        {"node_nf_conntrack_stat_invalid", "Number of packets seen which can not be tracked.", st->invalid},
        {"node_nf_conntrack_stat_ignore", "Number of packets seen which are already connected to a conntrack entry.",
         st->ignore},
        {"node_nf_conntrack_stat_insert", "Number of entries inserted into the list.", st->insert},
        {"node_nf_conntrack_stat_insert_failed", "Number of entries for which list insertion was attempted but failed.",
         st->insert_failed},
        {"node_nf_conntrack_stat_drop", "Number of packets dropped due to conntrack failure.", st->drop},
        {"node_nf_conntrack_stat_early_drop",
         "Number of dropped conntrack entries to make room for new ones, if maximum table size was reached.",
         st->early_drop},
        {"node_nf_conntrack_stat_search_restart",
         "Number of conntrack table lookups which had to be restarted due to hashtable resizes.", st->search_restart},
    };
    for (const auto& s : stats) out.family(s.name, s.help, MetricType::kGauge).add(static_cast<double>(s.value));
    return Status::ok();
  }

 private:
  static Status missing_or(const base::CachedFile& f, const Status& err) {
    if (::access(f.path().c_str(), F_OK) != 0)
      return Status::no_data(f.path() + " is missing (conntrack probably not loaded)");
    return err.with_context("failed to retrieve conntrack stats");
  }

  static Expected<uint64_t> read_uint(base::CachedFile& f) {
    auto text = f.read();
    if (!text) return missing_or(f, text.status());
    auto v = procfs::parse_sysctl_uint(*text, f.path());
    if (!v) return v.status().with_context("failed to retrieve conntrack stats");
    return *v;
  }

  base::CachedFile count_, max_, stat_;
};

}  // namespace

std::unique_ptr<Collector> make_conntrack(const CollectorContext& ctx) {
  return std::make_unique<ConntrackCollector>(ctx);
}

}  // namespace llmon::collector
