// Push-API requests (push_request.h).
#include "scrape/push_request.h"

#include "scrape/push_protobuf.h"

namespace llmon::scrape {

namespace {

constexpr std::string_view kAllow = "DELETE, OPTIONS, POST, PUT";

PushReply error(int status, const std::string& message) {
  return PushReply{status, message + "\n", ""};
}

}  // namespace

PushReply handle_push_request(PushStore& store, std::string_view method, std::string_view raw_path,
                              std::string_view body, std::string_view content_type) {
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
  const PushMode mode = method == "PUT" ? PushMode::kReplaceGroup : PushMode::kReplaceFamilies;
  Status s;
  if (is_protobuf_push(content_type)) {
    auto proto = parse_protobuf_push(body);
    if (!proto) return error(400, proto.error());
    const std::string refusal = protobuf_refusal(*proto, key->labels);
    s = store.push_families(*key, std::move(proto->families), mode, refusal);
  } else {
    s = store.push(*key, body, mode);
  }
  if (!s) return error(400, s.message());
  return PushReply{};
}

}  // namespace llmon::scrape
