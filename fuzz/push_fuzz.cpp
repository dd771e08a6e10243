// Fuzz target: Pushgateway push paths and bodies (scrape/push_path.h,
// scrape/push_store.h). The first line is the raw request path, the rest the
// body. Any bytes must parse or give an error, never crash; a parsed key
// must survive push_path() and parse_push_path() unchanged; what the store
// accepts must come out as a page and as snapshot families.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "model/snapshot_builder.h"
#include "scrape/push_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmon::scrape;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t nl = text.find('\n');
  const std::string_view path = text.substr(0, nl);
  const std::string_view body = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  (void)is_push_path(path);
  auto key = parse_push_path(path);
  if (!key) return 0;
  auto again = parse_push_path(push_path(*key));
  if (!again || !(*again == *key)) std::abort();
  llmon::base::ManualClock clock(1000);
  PushStore store(clock);
  (void)store.push(*key, body, PushMode::kReplaceGroup);
  (void)store.push(GroupingKey{{{"job", "other"}}}, body, PushMode::kReplaceFamilies);
  std::string page;
  write_push_page(store.families(), page);
  llmon::model::Snapshot snap;
  llmon::model::SnapshotBuilder b(snap, 1000);
  add_to_snapshot(store.families(), b);
  b.finish();
  store.remove(*key);
  return 0;
}
