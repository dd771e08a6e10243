// Fuzz target: the parsers behind GPU process attribution (procfs/cgroup.h,
// procfs/pid_stat.h, procfs/passwd.h, procfs/kubelet_logs.h). The first byte
// picks the parser ('c' cgroup, 's' stat, 'u' status, 'p' passwd, 'k' kubelet
// log names, 'a' cmdline); any other first byte runs all of them on the whole
// input. Parsers must return, never crash, hang or read out of bounds, and
// what they return must keep their documented shape.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "procfs/cgroup.h"
#include "procfs/kubelet_logs.h"
#include "procfs/passwd.h"
#include "procfs/pid_stat.h"

using namespace llmon::procfs;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void cgroup(std::string_view text) {
  CgroupInfo c = parse_cgroup(text);
  check(c.container_id.empty() || c.container_id.size() == 64);
  check(c.container_id.empty() == c.runtime.empty());
  check(c.pod_uid.empty() == c.qos_class.empty());
  check(c.pod_uid.find('_') == std::string::npos);
}

void kubelet(std::string_view text) {
  if (auto c = parse_container_log_name(text)) check(c->container_id.size() == 64 && !c->container.empty());
  if (auto p = parse_pod_log_dir(text)) check(!p->namespace_.empty() && !p->pod.empty() && !p->pod_uid.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::string_view text = all.substr(1);
  switch (data[0]) {
    case 'c': cgroup(text); break;
    case 's': (void)parse_pid_stat(text); break;
    case 'u': (void)parse_pid_status(text); break;
    case 'p': (void)parse_passwd(text); break;
    case 'k': kubelet(text); break;
    case 'a': (void)cmdline_command(text); break;
    default:
      cgroup(all);
      (void)parse_pid_stat(all);
      (void)parse_pid_status(all);
      (void)parse_passwd(all);
      kubelet(all);
      (void)cmdline_command(all);
      break;
  }
  return 0;
}
