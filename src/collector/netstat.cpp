// netstat collector (node_exporter 1.5 netstat_linux.go): node_netstat_<Proto>_<Name>
// (untyped, help "Statistic <Proto><Name>.") for each field of /proc/net/netstat,
// /proc/net/snmp and /proc/net/snmp6 whose "<Proto>_<Name>" matches
// --collector.netstat.fields (searched like Go's MatchString). As in 1.5, a
// protocol seen again (a later header line, a later file) replaces the earlier
// one, every kept value must parse as a float or the collector fails, netstat
// and snmp must exist and a missing snmp6 (IPv6 off) is skipped. The merge and
// the regex run only when the files' layout (protocols and names) changes.
#include <unistd.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/option_regex.h"
#include "collector/options.h"
#include "go/strconv.h"
#include "procfs/net_snmp.h"

namespace llmon::collector {
namespace {

struct Kept {
  size_t index;  // into fields_
  bool wanted;
  std::string name, help;
};

struct LayoutEntry {
  std::string protocol, name;
  int section;
};

class NetstatCollector final : public Collector {
 public:
  explicit NetstatCollector(const CollectorContext& ctx)
      : netstat_(ctx.fs.proc("net/netstat")), snmp_(ctx.fs.proc("net/snmp")), snmp6_(ctx.fs.proc("net/snmp6")) {
    regex_error_ = compile_option_regex(ctx, flag::kCollectorNetstatFields, fields_re_);
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!regex_error_.empty()) return Status::error(regex_error_);
    fields_.clear();
    int section = 0;
    auto netstat = netstat_.read();
    if (!netstat) return netstat.status().with_context("couldn't get netstats");
    Status s = procfs::parse_net_stats(*netstat, netstat_.path(), section, fields_);
    if (!s) return s.with_context("couldn't get netstats");
    const int snmp_first = section;
    auto snmp = snmp_.read();
    if (!snmp) return snmp.status().with_context("couldn't get SNMP stats");
    s = procfs::parse_net_stats(*snmp, snmp_.path(), section, fields_);
    if (!s) return s.with_context("couldn't get SNMP stats");
    const int snmp6_first = section;
    auto snmp6 = snmp6_.read();
    if (snmp6)
      procfs::parse_snmp6(*snmp6, section, fields_);
    else if (::access(snmp6_.path().c_str(), F_OK) == 0)
      return snmp6.status().with_context("couldn't get SNMP6 stats");

    if (!same_layout()) plan();
    values_.resize(kept_.size());
    for (size_t i = 0; i < kept_.size(); ++i) {
      const procfs::NetStatField& f = fields_[kept_[i].index];
      auto v = go::parse_float(f.value);
      if (!v) {
        const auto& file = f.section < snmp_first ? netstat_ : f.section < snmp6_first ? snmp_ : snmp6_;
        return Status::error(file.path() + ": invalid value \"" + std::string(f.value) + "\" for " +
                             std::string(f.protocol) + " " + std::string(f.name) + ": " + v.error());
      }
      values_[i] = *v;
    }
    for (size_t i = 0; i < kept_.size(); ++i)
      if (kept_[i].wanted) out.family(kept_[i].name, kept_[i].help, model::MetricType::kUntyped).add(values_[i]);
    return Status::ok();
  }

 private:
  bool same_layout() const {
    if (layout_.size() != fields_.size()) return false;
    for (size_t i = 0; i < fields_.size(); ++i)
      if (layout_[i].section != fields_[i].section || layout_[i].protocol != fields_[i].protocol ||
          layout_[i].name != fields_[i].name)
        return false;
    return true;
  }

  // node_exporter's maps: the last section of each protocol wins, and within
  // it the last field of each name.
  void plan() {
    layout_.clear();
    for (const auto& f : fields_) layout_.push_back({std::string(f.protocol), std::string(f.name), f.section});
    std::map<std::string_view, int> last_section;
    for (const auto& f : fields_) last_section[f.protocol] = f.section;
    std::map<std::pair<std::string_view, std::string_view>, size_t> last_field;
    for (size_t i = 0; i < fields_.size(); ++i)
      if (fields_[i].section == last_section[fields_[i].protocol])
        last_field[{fields_[i].protocol, fields_[i].name}] = i;
    kept_.clear();
    for (const auto& [key, i] : last_field) {
      std::string k = std::string(key.first) + "_" + std::string(key.second);
      kept_.push_back(Kept{i, std::regex_search(k, fields_re_), "node_netstat_" + k,
                           "Statistic " + std::string(key.first) + std::string(key.second) + "."});
    }
  }

  base::CachedFile netstat_, snmp_, snmp6_;
  std::regex fields_re_;
  std::string regex_error_;
  std::vector<procfs::NetStatField> fields_;
  std::vector<LayoutEntry> layout_;
  std::vector<Kept> kept_;
  std::vector<double> values_;
};

}  // namespace

std::unique_ptr<Collector> make_netstat(const CollectorContext& ctx) {
  return std::make_unique<NetstatCollector>(ctx);
}

}  // namespace llmon::collector
