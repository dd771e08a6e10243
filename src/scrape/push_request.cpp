// Push-API requests (push_request.h).
#include "scrape/push_request.h"

namespace llmon::scrape {

namespace {

constexpr std::string_view kAllow = "DELETE, OPTIONS, POST, PUT";

PushReply error(int status, const std::string& message) {
  return PushReply{status, message + "\n", ""};
}

}  // namespace

PushReply handle_push_request(PushStore& store, std::string_view method, std::string_view raw_path,
                              std::string_view body) {
  if (!is_push_path(raw_path)) return error(404, "404 page not found");
  if (method == "OPTIONS") return PushReply{200, "", std::string(kAllow)};
  if (method != "PUT" && method != "POST" && method != "DELETE") {
    PushReply r = error(405, "Method Not Allowed");
    r.allow = kAllow;
    return r;
  }
  auto key = parse_push_path(raw_path);
  if (!key) return error(400, key.error());
  if (method == "DELETE") {
    store.remove(*key);
    return PushReply{202, "", ""};
  }
  Status s = store.push(*key, body, method == "PUT" ? PushMode::kReplaceGroup : PushMode::kReplaceFamilies);
  if (!s) return error(400, s.message());
  return PushReply{};
}

}  // namespace llmon::scrape
