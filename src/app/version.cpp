#include "app/commands.h"

#ifndef LLMON_VERSION
#define LLMON_VERSION "0.1.0-dev"
#endif

namespace llmon::app {
const char* const kVersion = LLMON_VERSION;
}  // namespace llmon::app
