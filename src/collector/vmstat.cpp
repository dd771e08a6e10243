// vmstat collector (node_exporter 1.5 vmstat_linux.go): node_vmstat_<field>
// (untyped) for each /proc/vmstat field matching --collector.vmstat.fields
// (default ^(oom_kill|pgpg|pswp|pg.*fault).*, searched unanchored like Go's
// MatchString). The regex runs only when the field list changes; steady-state
// cycles reuse the cached decision, name and help per line.
#include "procfs/vmstat.h"

#include <regex>
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/option_regex.h"
#include "collector/options.h"

namespace llmon::collector {
namespace {

struct FieldInfo {
  std::string field;
  bool wanted = false;
  std::string name, help;
};

class VmstatCollector final : public Collector {
 public:
  explicit VmstatCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("vmstat")) {
    regex_error_ = compile_option_regex(ctx, flag::kCollectorVmstatFields, fields_re_);
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!regex_error_.empty()) return Status::error(regex_error_);
    auto text = file_.read();
    if (!text) return text.status();
    // Like node_exporter, which emits while scanning, the fields before a bad
    // line are still exported when the collector fails.
    Status s = procfs::parse_vmstat(*text, fields_, file_.path());
    if (info_.size() != fields_.size()) info_.resize(fields_.size());
    for (size_t i = 0; i < fields_.size(); ++i) {
      FieldInfo& f = info_[i];
      if (f.field != fields_[i].name) describe(f, fields_[i].name);
      if (f.wanted) out.family(f.name, f.help, model::MetricType::kUntyped).add(fields_[i].value);
    }
    return s;
  }

 private:
  void describe(FieldInfo& f, std::string_view field) {
    f.field.assign(field);
    f.wanted = std::regex_search(f.field, fields_re_);
    f.name = "node_vmstat_" + f.field;
    f.help = "/proc/vmstat information field " + f.field + ".";
  }

  base::CachedFile file_;
  std::regex fields_re_;
  std::string regex_error_;
  std::vector<procfs::VmstatField> fields_;
  std::vector<FieldInfo> info_;
};

}  // namespace

std::unique_ptr<Collector> make_vmstat(const CollectorContext& ctx) {
  return std::make_unique<VmstatCollector>(ctx);
}

}  // namespace llmon::collector
