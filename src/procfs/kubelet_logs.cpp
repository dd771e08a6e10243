#include "procfs/kubelet_logs.h"

#include "base/strings.h"

namespace llmon::procfs {
namespace {

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

// Non-empty, no '/', no NUL: anything else is not a name the kubelet wrote.
bool is_name(std::string_view s) {
  return !s.empty() && s.find('/') == std::string_view::npos && s.find('\0') == std::string_view::npos;
}

Status bad(std::string_view what, std::string_view name, std::string_view why) {
  return Status::error(std::string(what) + " \"" + std::string(name) + "\": " + std::string(why));
}

}  // namespace

Expected<ContainerLogName> parse_container_log_name(std::string_view file_name) {
  constexpr std::string_view kWhat = "/var/log/containers entry";
  constexpr std::string_view kSuffix = ".log";
  std::string_view s = file_name;
  if (s.size() < kSuffix.size() || s.substr(s.size() - kSuffix.size()) != kSuffix)
    return bad(kWhat, file_name, "no .log suffix");
  s.remove_suffix(kSuffix.size());
  auto parts = base::split(s, '_');
  if (parts.size() != 3) return bad(kWhat, file_name, "expected <pod>_<namespace>_<container>-<id>.log");
  std::string_view last = parts[2];
  // "<container>-<64 hex>": at least one character of container name.
  if (last.size() < 66 || last[last.size() - 65] != '-') return bad(kWhat, file_name, "no -<container id>");
  std::string_view id = last.substr(last.size() - 64);
  for (char c : id)
    if (!is_hex(c)) return bad(kWhat, file_name, "container id is not 64 hex digits");
  std::string_view container = last.substr(0, last.size() - 65);
  if (!is_name(parts[0]) || !is_name(parts[1]) || !is_name(container)) return bad(kWhat, file_name, "empty name");
  return ContainerLogName{std::string(parts[0]), std::string(parts[1]), std::string(container), std::string(id)};
}

Expected<PodLogDir> parse_pod_log_dir(std::string_view dir_name) {
  constexpr std::string_view kWhat = "/var/log/pods entry";
  auto parts = base::split(dir_name, '_');
  if (parts.size() != 3) return bad(kWhat, dir_name, "expected <namespace>_<pod>_<pod-uid>");
  if (!is_name(parts[0]) || !is_name(parts[1])) return bad(kWhat, dir_name, "empty name");
  std::string_view uid = parts[2];
  if (uid.size() < 8) return bad(kWhat, dir_name, "pod uid too short");
  for (char c : uid)
    if (!is_hex(c) && c != '-') return bad(kWhat, dir_name, "pod uid is not hex digits and dashes");
  return PodLogDir{std::string(parts[0]), std::string(parts[1]), std::string(uid)};
}

}  // namespace llmon::procfs
