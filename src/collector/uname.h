// uname collector: node_uname_info{domainname,machine,nodename,release,sysname,version} 1
// from the uname(2) system call, as node_exporter 1.5 (uname_linux.go); not
// from procfs, so --path.procfs does not apply. The source is a function so
// tests can supply fixed values; make_uname(ctx) uses the real system call.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "collector/collector.h"

namespace llmon::collector {

struct UnameInfo {
  std::string sysname, release, version, machine, nodename, domainname;
};

// Fills the given struct (its strings are reused between cycles).
using UnameSource = std::function<Status(UnameInfo&)>;

Status system_uname(UnameInfo& out);
std::unique_ptr<Collector> make_uname_with(UnameSource source);

}  // namespace llmon::collector
