#include "procfs/cgroup.h"

#include <array>
#include <vector>

#include "base/strings.h"

namespace llmon::procfs {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_container_id(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// A pod UID as the cgroup name carries it: hex digits and `sep` ('-' for the
// cgroupfs driver, '_' for systemd). Static pods have 32-digit hash UIDs.
bool is_pod_uid(std::string_view s, char sep) {
  if (s.size() < 8 || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == sep)) return false;
  return true;
}

struct Prefix {
  std::string_view prefix;
  std::string_view runtime;  // "" for a monitor process (conmon): not in the container
};

// Longer prefixes first where one is a prefix of another.
constexpr std::array<Prefix, 7> kPrefixes = {{
    {"cri-containerd-", "containerd"},
    {"crio-conmon-", ""},
    {"crio-", "cri-o"},
    {"docker-", "docker"},
    {"libpod-conmon-", ""},
    {"libpod-", "podman"},
    {"nerdctl-", "containerd"},
}};

// "kubepods-burstable-pod1b2c_….slice" and the like (systemd driver; kind's
// "kubelet-kubepods-…" too). Returns true when the slice is a kubepods one.
bool parse_kubepods_slice(std::string_view name, CgroupInfo& out) {
  auto tokens = base::split(name, '-');
  size_t k = 0;
  while (k < tokens.size() && tokens[k] != "kubepods") ++k;
  if (k == tokens.size()) return false;
  for (size_t i = k + 1; i < tokens.size(); ++i) {
    std::string_view t = tokens[i];
    if (t == "burstable" || t == "besteffort") {
      out.qos_class = std::string(t);
    } else if (i + 1 == tokens.size() && base::starts_with(t, "pod") && is_pod_uid(t.substr(3), '_')) {
      out.pod_uid = std::string(t.substr(3));
      for (char& c : out.pod_uid)
        if (c == '_') c = '-';
    }
  }
  return true;
}

}  // namespace

CgroupInfo parse_cgroup_path(std::string_view path) {
  constexpr std::string_view kDeleted = " (deleted)";
  if (ends_with(path, kDeleted)) path.remove_suffix(kDeleted.size());
  std::vector<std::string_view> comps;
  for (std::string_view c : base::split(path, '/'))
    if (!c.empty() && c != "." && c != "..") comps.push_back(c);

  CgroupInfo out;
  // Pass 1, root to leaf: the Kubernetes pod, if any.
  bool kube = false;
  for (size_t i = 0; i < comps.size(); ++i) {
    std::string_view c = comps[i];
    if (ends_with(c, ".slice")) {
      if (parse_kubepods_slice(c.substr(0, c.size() - 6), out)) kube = true;
    } else if (c == "kubepods") {
      kube = true;
    } else if (kube && i > 0 && comps[i - 1] == "kubepods" && (c == "burstable" || c == "besteffort")) {
      out.qos_class = std::string(c);
    } else if (kube && out.pod_uid.empty() && base::starts_with(c, "pod") && is_pod_uid(c.substr(3), '-')) {
      out.pod_uid = std::string(c.substr(3));
    }
  }
  if (!out.pod_uid.empty() && out.qos_class.empty()) out.qos_class = "guaranteed";
  if (out.pod_uid.empty()) out.qos_class.clear();

  // Pass 2, leaf to root: the deepest component that names a container.
  for (size_t i = comps.size(); i-- > 0;) {
    std::string_view c = comps[i];
    std::string_view name = ends_with(c, ".scope") ? c.substr(0, c.size() - 6) : c;
    for (const Prefix& p : kPrefixes) {
      if (!base::starts_with(name, p.prefix)) continue;
      if (p.runtime.empty()) return out;  // a monitor (conmon) next to the container
      if (is_container_id(name.substr(p.prefix.size()))) {
        out.runtime = std::string(p.runtime);
        out.container_id = std::string(name.substr(p.prefix.size()));
        return out;
      }
      break;
    }
    if (name.size() == c.size() && is_container_id(c)) {  // a bare id: cgroupfs driver
      if (i > 0 && comps[i - 1] == "docker") {
        out.runtime = "docker";
      } else if (kube) {
        out.runtime = "cri";
      } else {
        continue;  // a hex name in an unknown place: not ours to guess
      }
      out.container_id = std::string(c);
      return out;
    }
  }
  return out;
}

CgroupInfo parse_cgroup(std::string_view text) {
  base::LineIterator it(text);
  std::string_view line;
  CgroupInfo pod_only;
  while (it.next(line)) {
    size_t c1 = line.find(':');
    if (c1 == std::string_view::npos || !base::parse_u64(line.substr(0, c1))) continue;
    size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    std::string_view path = line.substr(c2 + 1);
    if (!base::starts_with(path, "/")) continue;
    CgroupInfo info = parse_cgroup_path(path);
    if (info.in_container()) return info;
    if (pod_only.pod_uid.empty() && !info.pod_uid.empty()) pod_only = std::move(info);
  }
  return pod_only;
}

}  // namespace llmon::procfs
