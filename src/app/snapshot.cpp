// `llmon snapshot`: placeholder replaced by the snapshot summary (in progress).
#include "app/commands.h"

namespace llmon::app {

int run_snapshot(const config::Settings&, std::FILE*) {
  std::fprintf(stderr, "llmon snapshot: not built yet\n");
  return 1;
}

}  // namespace llmon::app
