// sockstat collector (node_exporter 1.5 sockstat_linux.go):
// node_sockstat_sockets_used and node_sockstat_<PROTO>_<key> gauges from
// /proc/net/sockstat and /proc/net/sockstat6, plus <PROTO>_mem_bytes (mem
// pages times the page size). A missing file (IPv4 or IPv6 disabled) is
// skipped and the collector still succeeds; a malformed one fails it before
// any series is written, as node_exporter reads both files first.
#include <unistd.h>

#include <array>
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/net_sockstat.h"

namespace llmon::collector {
namespace {

class SockstatCollector final : public Collector {
 public:
  explicit SockstatCollector(const CollectorContext& ctx)
      : files_{base::CachedFile(ctx.fs.proc("net/sockstat")), base::CachedFile(ctx.fs.proc("net/sockstat6"))},
        page_size_(static_cast<int64_t>(::sysconf(_SC_PAGESIZE))) {}

  Status collect(model::SnapshotBuilder& out) override {
    for (size_t i = 0; i < files_.size(); ++i) {
      present_[i] = false;
      auto text = files_[i].read();
      if (!text) {
        if (::access(files_[i].path().c_str(), F_OK) != 0) continue;  // IPv4/IPv6 disabled
        return text.status();
      }
      Status s = procfs::parse_sockstat(*text, files_[i].path(), stats_[i]);
      if (!s) return s;
      present_[i] = true;
    }
    for (size_t i = 0; i < files_.size(); ++i)
      if (present_[i]) emit(out, stats_[i], i == 1);
    return Status::ok();
  }

 private:
  void emit(model::SnapshotBuilder& out, const procfs::Sockstat& s, bool ipv6) {
    if (!ipv6 && s.used)
      out.family("node_sockstat_sockets_used", "Number of IPv4 sockets in use.", model::MetricType::kGauge)
          .add(static_cast<double>(*s.used));
    for (const auto& p : s.protocols) {
      gauge(out, p.name, "inuse", p.inuse);
      if (p.orphan) gauge(out, p.name, "orphan", *p.orphan);
      if (p.tw) gauge(out, p.name, "tw", *p.tw);
      if (p.alloc) gauge(out, p.name, "alloc", *p.alloc);
      if (p.mem) gauge(out, p.name, "mem", *p.mem);
      if (p.memory) gauge(out, p.name, "memory", *p.memory);
      if (p.mem) gauge(out, p.name, "mem_bytes", *p.mem * page_size_);
    }
  }

  void gauge(model::SnapshotBuilder& out, std::string_view proto, std::string_view key, int64_t v) {
    name_.assign("node_sockstat_").append(proto).append("_").append(key);
    help_.assign("Number of ").append(proto).append(" sockets in state ").append(key).append(".");
    out.family(name_, help_, model::MetricType::kGauge).add(static_cast<double>(v));
  }

  std::array<base::CachedFile, 2> files_;
  std::array<procfs::Sockstat, 2> stats_;
  std::array<bool, 2> present_{};
  int64_t page_size_;
  std::string name_, help_;
};

}  // namespace

std::unique_ptr<Collector> make_sockstat(const CollectorContext& ctx) {
  return std::make_unique<SockstatCollector>(ctx);
}

}  // namespace llmon::collector
