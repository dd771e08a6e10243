#include "collector/uname.h"

#include <sys/utsname.h>

#include <cerrno>
#include <cstring>

#include "base/utf8.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

void assign(std::string& dst, const char* src) {
  std::string_view v(src, ::strnlen(src, sizeof(utsname::sysname)));
  if (base::is_valid_utf8(v)) {
    if (dst != v) dst.assign(v);
  } else {
    dst = base::to_valid_utf8(v);
  }
}

class UnameCollector final : public Collector {
 public:
  explicit UnameCollector(UnameSource source) : source_(std::move(source)) {}

  Status collect(model::SnapshotBuilder& out) override {
    Status s = source_(info_);
    if (!s) return s;
    out.family("node_uname_info", "Labeled system information as provided by the uname system call.",
               model::MetricType::kGauge, {"domainname", "machine", "nodename", "release", "sysname", "version"})
        .add({info_.domainname, info_.machine, info_.nodename, info_.release, info_.sysname, info_.version}, 1);
    return Status::ok();
  }

 private:
  UnameSource source_;
  UnameInfo info_;
};

}  // namespace

Status system_uname(UnameInfo& out) {
  struct utsname u {};
  if (::uname(&u) != 0) return Status::error(std::string("uname: ") + std::strerror(errno));
  assign(out.sysname, u.sysname);
  assign(out.release, u.release);
  assign(out.version, u.version);
  assign(out.machine, u.machine);
  assign(out.nodename, u.nodename);
  assign(out.domainname, u.domainname);
  return Status::ok();
}

std::unique_ptr<Collector> make_uname_with(UnameSource source) {
  return std::make_unique<UnameCollector>(std::move(source));
}

std::unique_ptr<Collector> make_uname(const CollectorContext&) {
  return make_uname_with(system_uname);
}

}  // namespace llmon::collector
