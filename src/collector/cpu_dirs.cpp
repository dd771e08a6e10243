#include "collector/cpu_dirs.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace llmon::collector {
namespace {

bool is_cpu_entry(const char* name) {
  return std::strncmp(name, "cpu", 3) == 0 && name[3] >= '0' && name[3] <= '9';
}

// Re-reads f and compares it with last; false (and last updated) when it
// changed or cannot be read.
bool unchanged(base::CachedFile& f, std::string& last) {
  auto text = f.read();
  if (!text) {
    last.clear();
    return false;
  }
  if (*text == last) return true;
  last.assign(text->data(), text->size());
  return false;
}

}  // namespace

CpuDirs::CpuDirs(std::string dir) : dir_(std::move(dir)), present_(dir_ + "/present"), online_(dir_ + "/online") {}

bool CpuDirs::list_changed_input() {
  // Both files are always read so that both remembered texts stay current.
  bool same_present = unchanged(present_, present_text_);
  bool same_online = unchanged(online_, online_text_);
  return !(same_present && same_online);
}

bool CpuDirs::refresh() {
  bool changed = list_changed_input() || first_;
  first_ = false;
  if (changed) list();
  return changed;
}

void CpuDirs::list() {
  names_.clear();
  int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  if (buf_.empty()) buf_.resize(16384);
  for (;;) {
    ssize_t got = ::getdents64(fd, buf_.data(), buf_.size());
    if (got <= 0) break;  // 0: end; <0: unreadable, keep what we have
    for (ssize_t off = 0; off < got;) {
      const auto* d = reinterpret_cast<const struct dirent64*>(buf_.data() + off);
      if (is_cpu_entry(d->d_name)) names_.emplace_back(d->d_name);
      off += d->d_reclen;
    }
  }
  ::close(fd);
  std::sort(names_.begin(), names_.end());
}

}  // namespace llmon::collector
