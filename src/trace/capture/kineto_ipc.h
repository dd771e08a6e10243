// The messages PyTorch's Kineto exchanges with a dynolog daemon over its IPC
// fabric (docs/trace.md#capture-protocol), encoded and decoded as bytes. Pure:
// no sockets here (ipc_server.h does the I/O). Layouts are the C structs of
// dynolog's ipcfabric on LP64 little-endian machines (x86-64, aarch64), which
// is what a Kineto build there sends:
//   Metadata         { size_t size; char type[32]; }            40 bytes, then `size` payload bytes
//   LibkinetoContext { int32 gpu; int32 pid; int64 jobid; }      16 bytes ("ctxt")
//   LibkinetoRequest { int32 type; int32 n; int64 jobid; int32 pids[n]; }  16 + 4n bytes ("req")
// Replies: "ctxt" with an int32 (processes registered for that job and GPU),
// "req" with the Kineto config as text (empty: nothing to do).
// Decoders never trust a length field: every size is checked against the
// datagram, and errors say which field is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::trace::capture {

inline constexpr size_t kTypeSize = 32;
inline constexpr size_t kMetadataSize = 8 + kTypeSize;
inline constexpr size_t kContextSize = 16;
inline constexpr size_t kRequestHeaderSize = 16;
// Far above any real ancestor chain; bounds what one datagram may ask for.
inline constexpr int32_t kMaxRequestPids = 4096;
inline constexpr std::string_view kContextType = "ctxt";
inline constexpr std::string_view kRequestType = "req";
// LibkinetoConfigType bits of LibkinetoRequest::type.
inline constexpr int32_t kConfigEvents = 0x1;
inline constexpr int32_t kConfigActivities = 0x2;

struct Message {
  std::string type;          // Metadata.type up to its first NUL
  std::string_view payload;  // into the datagram
};

struct Context {  // LibkinetoContext
  int32_t gpu = 0;
  int32_t pid = 0;
  int64_t job_id = 0;
};

struct Request {  // LibkinetoRequest
  int32_t type = 0;
  int64_t job_id = 0;
  std::vector<int32_t> pids;  // the poller first, then its ancestors
};

// One datagram: the header and exactly Metadata.size bytes after it.
Expected<Message> decode_message(std::string_view datagram);
Expected<Context> decode_context(std::string_view payload);
Expected<Request> decode_request(std::string_view payload);

// A datagram of `type` (at most 31 bytes) carrying `payload`.
std::string encode_message(std::string_view type, std::string_view payload);
// The daemon's replies.
std::string encode_context_reply(int32_t registered);
std::string encode_config_reply(std::string_view config);
// The client's messages (the test client and the fuzz target's round trip).
std::string encode_context(const Context& c);
std::string encode_request(const Request& r);
// The int32 of a "ctxt" reply's payload.
Expected<int32_t> decode_context_reply(std::string_view payload);

}  // namespace llmon::trace::capture
