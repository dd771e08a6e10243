#include "base/dir_list.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace llmon::base {
namespace {

Status errno_status(const char* what, const std::string& path, int err) {
  return Status::error(std::string(what) + " " + path + ": " + std::strerror(err));
}

EntryKind kind_of(unsigned char d_type) {
  switch (d_type) {
    case DT_REG:
      return EntryKind::kFile;
    case DT_DIR:
      return EntryKind::kDir;
    case DT_LNK:
      return EntryKind::kSymlink;
    case DT_UNKNOWN:
      return EntryKind::kUnknown;
    default:
      return EntryKind::kOther;
  }
}

}  // namespace

Status list_dir(const std::string& path, std::vector<DirEntry>& out) {
  size_t n = 0;
  DIR* d = ::opendir(path.c_str());
  if (!d) {
    out.clear();
    return errno_status("opendir", path, errno);
  }
  for (;;) {
    errno = 0;
    struct dirent* e = ::readdir(d);
    if (!e) {
      if (errno != 0) {
        int err = errno;
        ::closedir(d);
        out.clear();
        return errno_status("readdir", path, err);
      }
      break;
    }
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (n == out.size()) out.emplace_back();
    DirEntry& de = out[n++];
    de.name.assign(e->d_name);
    de.kind = kind_of(e->d_type);
  }
  ::closedir(d);
  out.resize(n);
  std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return Status::ok();
}

Expected<std::string> read_link(const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  if (n < 0) return errno_status("readlink", path, errno);
  return std::string(buf, static_cast<size_t>(n));
}

Expected<std::string> real_path(const std::string& path) {
  char* p = ::realpath(path.c_str(), nullptr);
  if (!p) return errno_status("realpath", path, errno);
  std::string out(p);
  std::free(p);
  return out;
}

EntryKind stat_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return EntryKind::kMissing;
  if (S_ISREG(st.st_mode)) return EntryKind::kFile;
  if (S_ISDIR(st.st_mode)) return EntryKind::kDir;
  return EntryKind::kOther;
}

}  // namespace llmon::base
