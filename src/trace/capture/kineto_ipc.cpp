// Kineto's daemon IPC messages (kineto_ipc.h).
#include "trace/capture/kineto_ipc.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace llmon::trace::capture {

static_assert(std::endian::native == std::endian::little, "the IPC layouts are read as little-endian");

namespace {

template <typename T>
T load(std::string_view b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

template <typename T>
void store(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

}  // namespace

Expected<Message> decode_message(std::string_view d) {
  if (d.size() < kMetadataSize)
    return Status::error("datagram of " + std::to_string(d.size()) + " bytes is shorter than the " +
                         std::to_string(kMetadataSize) + "-byte Metadata header");
  uint64_t size = load<uint64_t>(d, 0);
  if (size != d.size() - kMetadataSize)
    return Status::error("Metadata.size says " + std::to_string(size) + " payload bytes, the datagram has " +
                         std::to_string(d.size() - kMetadataSize));
  std::string_view type = d.substr(8, kTypeSize);
  size_t nul = type.find('\0');
  if (nul == std::string_view::npos) return Status::error("Metadata.type is not NUL-terminated within 32 bytes");
  Message m;
  m.type = std::string(type.substr(0, nul));
  m.payload = d.substr(kMetadataSize);
  return m;
}

Expected<Context> decode_context(std::string_view p) {
  if (p.size() != kContextSize)
    return Status::error("ctxt payload of " + std::to_string(p.size()) + " bytes, LibkinetoContext has " +
                         std::to_string(kContextSize));
  Context c;
  c.gpu = load<int32_t>(p, 0);
  c.pid = load<int32_t>(p, 4);
  c.job_id = load<int64_t>(p, 8);
  if (c.pid <= 0) return Status::error("ctxt: pid " + std::to_string(c.pid) + " is not a process id");
  return c;
}

Expected<Request> decode_request(std::string_view p) {
  if (p.size() < kRequestHeaderSize)
    return Status::error("req payload of " + std::to_string(p.size()) + " bytes is shorter than the " +
                         std::to_string(kRequestHeaderSize) + "-byte LibkinetoRequest");
  Request r;
  r.type = load<int32_t>(p, 0);
  int32_t n = load<int32_t>(p, 4);
  r.job_id = load<int64_t>(p, 8);
  if (n <= 0 || n > kMaxRequestPids)
    return Status::error("req: n = " + std::to_string(n) + " pids (1 to " + std::to_string(kMaxRequestPids) +
                         " expected)");
  size_t want = kRequestHeaderSize + 4 * static_cast<size_t>(n);
  if (p.size() != want)
    return Status::error("req: n = " + std::to_string(n) + " needs " + std::to_string(want) + " bytes, payload has " +
                         std::to_string(p.size()));
  r.pids.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) r.pids.push_back(load<int32_t>(p, kRequestHeaderSize + 4 * static_cast<size_t>(i)));
  if (r.pids[0] <= 0) return Status::error("req: pids[0] = " + std::to_string(r.pids[0]) + " is not a process id");
  return r;
}

std::string encode_message(std::string_view type, std::string_view payload) {
  std::string out;
  out.reserve(kMetadataSize + payload.size());
  store<uint64_t>(out, payload.size());
  char t[kTypeSize] = {};
  std::memcpy(t, type.data(), std::min(type.size(), kTypeSize - 1));
  out.append(t, kTypeSize);
  out.append(payload);
  return out;
}

std::string encode_context_reply(int32_t registered) {
  std::string p;
  store<int32_t>(p, registered);
  return encode_message(kContextType, p);
}

std::string encode_config_reply(std::string_view config) {
  return encode_message(kRequestType, config);
}

std::string encode_context(const Context& c) {
  std::string p;
  store<int32_t>(p, c.gpu);
  store<int32_t>(p, c.pid);
  store<int64_t>(p, c.job_id);
  return encode_message(kContextType, p);
}

std::string encode_request(const Request& r) {
  std::string p;
  store<int32_t>(p, r.type);
  store<int32_t>(p, static_cast<int32_t>(r.pids.size()));
  store<int64_t>(p, r.job_id);
  for (int32_t pid : r.pids) store<int32_t>(p, pid);
  return encode_message(kRequestType, p);
}

Expected<int32_t> decode_context_reply(std::string_view p) {
  if (p.size() != 4) return Status::error("ctxt reply of " + std::to_string(p.size()) + " bytes, an int32 expected");
  return load<int32_t>(p, 0);
}

}  // namespace llmon::trace::capture
