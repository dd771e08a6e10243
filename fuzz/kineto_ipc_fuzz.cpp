// Fuzz target: Kineto's daemon IPC decoder (trace/capture/kineto_ipc.h) and
// the process table behind it. Any datagram must decode or give an error,
// never crash; what decodes must re-encode to the same bytes; the table must
// answer it without growing past one entry per datagram.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trace/capture/kineto_ipc.h"
#include "trace/capture/process_table.h"

using namespace llmon::trace::capture;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view d(reinterpret_cast<const char*>(data), size);
  auto m = decode_message(d);
  if (!m) return 0;
  // Bytes after the type's NUL are not kept; only a clean header must round-trip.
  bool clean = true;
  for (size_t i = 8 + m->type.size(); i < kMetadataSize; ++i) clean = clean && d[i] == '\0';
  if (clean && encode_message(m->type, m->payload) != d) std::abort();
  ProcessTable t;
  if (m->type == kContextType) {
    auto c = decode_context(m->payload);
    if (c) {
      if (clean && encode_context(*c) != d) std::abort();
      if (t.on_context(*c, 0, 1) != 1) std::abort();
    }
  } else if (m->type == kRequestType) {
    auto r = decode_request(m->payload);
    if (r) {
      if (clean && encode_request(*r) != d) std::abort();
      (void)t.on_request(*r, 0, 1);
      if (t.list(1).size() != 1) std::abort();
      if (t.match({r->pids.back(), {}, {}}, 1).size() != 1) std::abort();
    }
  }
  return 0;
}
