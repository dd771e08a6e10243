// Temporary: replaced by the embedded deploy/logwatch/ packs (branch packs).
#include "app/embedded_file.h"

namespace llmon::app {
std::span<const EmbeddedFile> default_logwatch_rule_files() {
  return {};
}
}  // namespace llmon::app
