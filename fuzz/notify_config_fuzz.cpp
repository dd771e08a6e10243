// Fuzz target: the notification config parser (notify/notify_config.h, the
// alertmanager.yml subset: YAML through yaml-cpp, matchers, durations, URLs,
// smarthosts). Checked besides "no crash, no sanitizer report": an accepted
// config has a root route whose receiver exists, every receiver a route
// names exists, and receiver names are unique; a refused one has an error
// naming the file; the same bytes give the same verdict twice.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "notify/config/notify_config.h"

using namespace llmon;

namespace {

void check_routes(const notify::NotifyConfig& c, const notify::RouteConfig& r) {
  if (!r.receiver.empty() && c.receiver(r.receiver) == nullptr) std::abort();
  for (const auto& child : r.routes) check_routes(c, child);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto c = notify::parse_notify_config(in, "fuzz.yml");
  auto again = notify::parse_notify_config(in, "fuzz.yml");
  if (c.has_value() != again.has_value()) std::abort();
  if (!c) {
    if (c.error().rfind("fuzz.yml", 0) != 0 || c.error() != again.error()) std::abort();
    return 0;
  }
  if (c->route.receiver.empty() || c->receiver(c->route.receiver) == nullptr) std::abort();
  check_routes(*c, c->route);
  std::set<std::string> names;
  for (const auto& r : c->receivers)
    if (!names.insert(r.name).second) std::abort();
  return 0;
}
