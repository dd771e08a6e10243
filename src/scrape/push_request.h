// One Pushgateway push-API request answered against a PushStore, as
// Pushgateway 1.5's router and handlers answer it: status and body only, no
// HTTP (the caller's route reads the request, undoes a gzip
// Content-Encoding, and writes the reply; a non-empty body is
// "text/plain; charset=utf-8"). Pure apart from the store it is given.
//   PUT / POST   200, empty body; 400 with the store's message
//   DELETE       202, empty body (also when there was no such group)
//   OPTIONS      200 with Allow (Go's router answers it itself)
//   other        405 "Method Not Allowed", Allow: DELETE, OPTIONS, POST, PUT
//   not a push path (is_push_path): 404 "404 page not found"
// A 400 for the path (push_path.h) comes before the method is looked at only
// for PUT/POST/DELETE, as there.
#pragma once

#include <string>
#include <string_view>

#include "scrape/push_store.h"

namespace llmon::scrape {

struct PushReply {
  int status = 200;
  std::string body;   // "" or the message and a newline (Go's http.Error)
  std::string allow;  // the Allow header for 405 and OPTIONS, else ""
};

// `content_type`: the request's; the delimited protobuf (push_protobuf.h) is
// read as such, anything else as the text format (Pushgateway's fallback).
PushReply handle_push_request(PushStore& store, std::string_view method, std::string_view raw_path,
                              std::string_view body, std::string_view content_type = "");

}  // namespace llmon::scrape
