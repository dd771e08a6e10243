#include "gpu/amd/fdinfo.h"

#include <unistd.h>

#include <algorithm>
#include <climits>

#include "base/file_reader.h"
#include "base/strings.h"

namespace llmon::gpu::amd {
namespace {

std::optional<uint32_t> parse_pid(std::string_view name) {
  if (name.empty() || name.size() > 10 || name[0] == '0') return std::nullopt;
  auto v = base::parse_u64(name);
  if (!v || *v > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

bool is_fd_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (c < '0' || c > '9') return false;
  return true;
}

// A DRM device node: /dev/dri/renderD128, /dev/dri/card0.
bool is_drm_node(std::string_view target) {
  constexpr std::string_view kDri = "/dev/dri/";
  if (!base::starts_with(target, kDri)) return false;
  std::string_view node = target.substr(kDri.size());
  return base::starts_with(node, "renderD") || base::starts_with(node, "card");
}

void add(std::optional<uint64_t>& sum, const std::optional<uint64_t>& v) {
  if (v) sum = sum.value_or(0) + *v;
}

}  // namespace

DrmFdinfoScanner::DrmFdinfoScanner(procfs::Fs fs, std::string driver)
    : fs_(std::move(fs)), driver_(std::move(driver)) {}

Status DrmFdinfoScanner::scan(std::vector<DrmProcessUsage>& out) {
  out.clear();
  Status s = base::list_dir(fs_.proc_root, pids_);
  if (!s) return s;
  for (const auto& e : pids_)
    if (auto pid = parse_pid(e.name)) scan_pid(*pid, out);
  std::sort(out.begin(), out.end(), [](const DrmProcessUsage& a, const DrmProcessUsage& b) {
    return a.pid != b.pid ? a.pid < b.pid : a.pdev < b.pdev;
  });
  return Status::ok();
}

void DrmFdinfoScanner::scan_pid(uint32_t pid, std::vector<DrmProcessUsage>& out) {
  const std::string pid_dir = fs_.proc(std::to_string(pid));
  if (!base::list_dir(pid_dir + "/fd", fds_)) return;  // not ours to read, or gone
  seen_.clear();
  const size_t first = out.size();  // this pid's entries start here
  char target[PATH_MAX];
  for (const auto& fd : fds_) {
    if (!is_fd_name(fd.name)) continue;
    path_ = pid_dir;
    path_ += "/fd/";
    path_ += fd.name;
    ssize_t n = ::readlink(path_.c_str(), target, sizeof target);
    if (n <= 0 || !is_drm_node(std::string_view(target, static_cast<size_t>(n)))) continue;
    path_ = pid_dir;
    path_ += "/fdinfo/";
    path_ += fd.name;
    if (!base::read_file(path_, text_)) continue;
    auto info = parse_drm_fdinfo(text_);
    if (!info || info->driver != driver_ || info->pdev.empty()) continue;
    if (info->client_id) {
      bool dup = std::any_of(seen_.begin(), seen_.end(),
                             [&](const Client& c) { return c.client_id == info->client_id && c.pdev == info->pdev; });
      if (dup) continue;
      seen_.push_back({std::string(info->pdev), info->client_id});
    }
    auto it = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                           [&](const DrmProcessUsage& u) { return u.pdev == info->pdev; });
    if (it == out.end()) {
      out.emplace_back();
      it = out.end() - 1;
      it->pid = pid;
      it->pdev.assign(info->pdev);
    }
    add(it->vram_bytes, info->vram_bytes);
    add(it->gtt_bytes, info->gtt_bytes);
    for (size_t e = 0; e < kDrmEngineCount; ++e) add(it->engine_ns[e], info->engine_ns[e]);
  }
}

}  // namespace llmon::gpu::amd
