#include "base/footprint.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdio>

namespace llmon::base {

void release_free_heap() {
  ::malloc_trim(0);
}

int release_code_pages() {
  std::FILE* f = std::fopen("/proc/self/maps", "re");
  if (!f) return 0;
  int n = 0;
  char line[4096];
  while (std::fgets(line, sizeof line, f)) {
    unsigned long start = 0, end = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end, perms, &path_at) < 3) continue;
    // "r-xp" of a file: a private, read-only, executable segment.
    if (perms[0] != 'r' || perms[1] != '-' || perms[2] != 'x' || perms[3] != 'p') continue;
    if (path_at <= 0 || line[path_at] != '/') continue;
    if (::madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED) == 0) ++n;
  }
  std::fclose(f);
  return n;
}

}  // namespace llmon::base
