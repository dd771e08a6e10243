// The gRPC unary call state machine (grpc_call.h).
#include "kube/grpc_call.h"

#include <charconv>

#include "kube/http2_frame.h"

namespace llmon::kube {
namespace {

constexpr uint32_t kStream = 1;         // the call's stream: the client's first
constexpr size_t kGrpcPrefixBytes = 5;  // compressed flag + 4-byte big-endian length
constexpr uint32_t kMaxHeaderList = 65536;

void settings_entry(std::string& out, uint16_t id, uint32_t value) {
  out += static_cast<char>(id >> 8);
  out += static_cast<char>(id & 0xff);
  h2::put_u32(out, value);
}

void window_update(std::string& out, uint32_t stream, uint32_t increment) {
  std::string p;
  h2::put_u32(p, increment);
  h2::append_frame(out, h2::kWindowUpdate, 0, stream, p);
}

// Removes the Pad Length byte and the padding of a PADDED frame's payload.
bool strip_padding(uint8_t flags, std::string_view& p) {
  if (!(flags & h2::kPadded)) return true;
  if (p.empty()) return false;
  const auto pad = static_cast<uint8_t>(p[0]);
  if (pad > p.size() - 1) return false;
  p = p.substr(1, p.size() - 1 - pad);
  return true;
}

const std::string* find(const std::vector<HeaderField>& fields, std::string_view name) {
  for (const auto& f : fields)
    if (f.name == name) return &f.value;
  return nullptr;
}

}  // namespace

std::string_view grpc_status_name(int code) {
  static constexpr std::string_view kNames[] = {
      "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
      "DATA_LOSS", "UNAUTHENTICATED"};
  if (code < 0 || code >= static_cast<int>(std::size(kNames))) return "UNKNOWN";
  return kNames[code];
}

std::string grpc_percent_decode(std::string_view s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

GrpcUnaryCall::GrpcUnaryCall(const GrpcRequest& request, size_t max_response_bytes)
    : max_response_bytes_(max_response_bytes), hpack_(4096, kMaxHeaderList) {
  out_ += h2::kClientPreface;
  std::string settings;
  settings_entry(settings, h2::kEnablePush, 0);
  settings_entry(settings, h2::kMaxHeaderListSize, kMaxHeaderList);
  h2::append_frame(out_, h2::kSettings, 0, 0, settings);

  std::string block;
  hpack_literal(block, ":method", "POST");
  hpack_literal(block, ":scheme", "http");
  hpack_literal(block, ":path", request.path);
  hpack_literal(block, ":authority", request.authority);
  hpack_literal(block, "content-type", "application/grpc");
  hpack_literal(block, "te", "trailers");
  if (block.size() > h2::kDefaultMaxFrameBytes) {
    error_ = Status::error("grpc: request headers above one frame");
    done_ = true;
    return;
  }
  h2::append_frame(out_, h2::kHeaders, h2::kEndHeaders, kStream, block);

  std::string body;
  body += '\0';
  h2::put_u32(body, static_cast<uint32_t>(request.message.size()));
  body += request.message;
  // The peer's initial stream window is 65535 bytes: a larger request would
  // have to wait for WINDOW_UPDATEs, which no call here needs.
  if (body.size() > h2::kDefaultWindowBytes) {
    error_ = Status::error("grpc: request message above 64 KiB");
    done_ = true;
    return;
  }
  std::string_view rest = body;
  while (rest.size() > h2::kDefaultMaxFrameBytes) {
    h2::append_frame(out_, h2::kData, 0, kStream, rest.substr(0, h2::kDefaultMaxFrameBytes));
    rest.remove_prefix(h2::kDefaultMaxFrameBytes);
  }
  h2::append_frame(out_, h2::kData, h2::kEndStream, kStream, rest);
}

std::string GrpcUnaryCall::take_output() {
  return std::exchange(out_, std::string());
}

Status GrpcUnaryCall::fail(std::string why) {
  if (!done_) {
    error_ =
        Status::error("http2: " + why + " (frame at byte " + std::to_string(consumed_) + " of the server's stream)");
    done_ = true;
  }
  return error_;
}

Status GrpcUnaryCall::feed(std::string_view bytes) {
  if (done_) return error_;
  in_ += bytes;
  size_t pos = 0;
  Status st;
  while (!done_ && in_.size() - pos >= h2::kFrameHeaderBytes) {
    const h2::FrameHeader h = h2::parse_frame_header(std::string_view(in_).substr(pos));
    if (consumed_ == 0 && (h.type != h2::kSettings || (h.flags & h2::kAck)))
      return fail("the server's first frame is not SETTINGS (not an HTTP/2 server?)");
    if (h.length > h2::kDefaultMaxFrameBytes)
      return fail("frame of " + std::to_string(h.length) + " bytes above SETTINGS_MAX_FRAME_SIZE 16384");
    if (in_.size() - pos - h2::kFrameHeaderBytes < h.length) break;
    st = frame(h.type, h.flags, h.stream, std::string_view(in_).substr(pos + h2::kFrameHeaderBytes, h.length));
    pos += h2::kFrameHeaderBytes + h.length;
    consumed_ += h2::kFrameHeaderBytes + h.length;
    if (!st) return st;
  }
  in_.erase(0, pos);
  return done_ ? error_ : Status::ok();
}

Status GrpcUnaryCall::end_of_input() {
  if (done_) return error_;
  return fail("the server closed the connection before the call ended");
}

Status GrpcUnaryCall::frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view p) {
  if (in_block_ && (type != h2::kContinuation || stream != kStream))
    return fail("frame type " + std::to_string(type) + " inside a header block (CONTINUATION expected)");
  switch (type) {
    case h2::kSettings: {
      if (stream != 0) return fail("SETTINGS on stream " + std::to_string(stream));
      if (flags & h2::kAck) return p.empty() ? Status::ok() : fail("SETTINGS ACK with a payload");
      if (p.size() % 6 != 0) return fail("SETTINGS payload of " + std::to_string(p.size()) + " bytes");
      h2::append_frame(out_, h2::kSettings, h2::kAck, 0, {});
      return Status::ok();
    }
    case h2::kPing:
      if (stream != 0 || p.size() != 8) return fail("malformed PING");
      if (!(flags & h2::kAck)) h2::append_frame(out_, h2::kPing, h2::kAck, 0, p);
      return Status::ok();
    case h2::kWindowUpdate:
      return p.size() == 4 ? Status::ok() : fail("WINDOW_UPDATE payload of " + std::to_string(p.size()) + " bytes");
    case h2::kGoAway: {
      if (stream != 0 || p.size() < 8) return fail("malformed GOAWAY");
      const uint32_t last = h2::get_u32(p) & 0x7fffffffu;
      if (last >= kStream) return Status::ok();  // our stream is still answered
      return fail("GOAWAY before the call's stream, error code " + std::to_string(h2::get_u32(p.substr(4))) +
                  (p.size() > 8 ? ": " + std::string(p.substr(8)) : std::string()));
    }
    case h2::kRstStream:
      if (p.size() != 4) return fail("malformed RST_STREAM");
      if (stream != kStream) return Status::ok();
      return fail("the server reset the stream, error code " + std::to_string(h2::get_u32(p)));
    case h2::kPushPromise:
      return fail("PUSH_PROMISE although SETTINGS_ENABLE_PUSH is 0");
    case h2::kHeaders: {
      if (stream != kStream) return fail("HEADERS on stream " + std::to_string(stream));
      if (!strip_padding(flags, p)) return fail("HEADERS padding longer than the frame");
      if (flags & h2::kPriorityFlag) {
        if (p.size() < 5) return fail("HEADERS too short for its priority fields");
        p.remove_prefix(5);
      }
      block_.assign(p);
      block_end_stream_ = (flags & h2::kEndStream) != 0;
      if (flags & h2::kEndHeaders) return header_block_done(block_end_stream_);
      in_block_ = true;
      return Status::ok();
    }
    case h2::kContinuation:
      if (!in_block_) return fail("CONTINUATION outside a header block");
      block_ += p;
      if (block_.size() > kMaxHeaderList) return fail("header block above 64 KiB");
      if (flags & h2::kEndHeaders) {
        in_block_ = false;
        return header_block_done(block_end_stream_);
      }
      return Status::ok();
    case h2::kData: {
      if (stream != kStream) return fail("DATA on stream " + std::to_string(stream));
      if (!have_headers_) return fail("DATA before the response headers");
      const auto frame_bytes = static_cast<uint32_t>(p.size());
      if (!strip_padding(flags, p)) return fail("DATA padding longer than the frame");
      data_ += p;
      if (data_.size() > max_response_bytes_ + kGrpcPrefixBytes)
        return fail("response above " + std::to_string(max_response_bytes_) + " bytes");
      // Flow control counts the whole payload, padding included.
      if (frame_bytes > 0) {
        window_update(out_, 0, frame_bytes);
        if (!(flags & h2::kEndStream)) window_update(out_, kStream, frame_bytes);
      }
      if (flags & h2::kEndStream) return fail("the stream ended without trailers (no grpc-status)");
      return Status::ok();
    }
    default:
      return Status::ok();  // PRIORITY and unknown types are ignored (RFC 9113 section 5.5)
  }
}

Status GrpcUnaryCall::header_block_done(bool end_stream) {
  std::vector<HeaderField> fields;
  if (Status st = hpack_.decode(block_, fields); !st) return fail(st.message());
  block_.clear();
  if (!have_headers_) {
    have_headers_ = true;
    headers_ = std::move(fields);
    const std::string* status = find(headers_, ":status");
    if (!status) return fail("response headers without :status");
    if (*status != "200") return fail("HTTP status " + *status);
    const std::string* type = find(headers_, "content-type");
    if (!type || !type->starts_with("application/grpc"))
      return fail("content-type " + (type ? *type : std::string("missing")) + ", not application/grpc");
    if (!end_stream) return Status::ok();
    trailers_ = headers_;  // a trailers-only response
    return finish();
  }
  if (!end_stream) return fail("a second header block without END_STREAM");
  trailers_ = std::move(fields);
  return finish();
}

Status GrpcUnaryCall::finish() {
  const std::string* code_text = find(trailers_, "grpc-status");
  if (!code_text) return fail("no grpc-status in the trailers");
  int code = -1;
  auto [ptr, ec] = std::from_chars(code_text->data(), code_text->data() + code_text->size(), code);
  if (ec != std::errc() || ptr != code_text->data() + code_text->size() || code < 0)
    return fail("grpc-status \"" + *code_text + "\" is not a number");
  if (code != 0) {
    const std::string* msg = find(trailers_, "grpc-message");
    error_ = Status::error("grpc-status " + std::to_string(code) + " (" + std::string(grpc_status_name(code)) + ")" +
                           (msg && !msg->empty() ? ": " + grpc_percent_decode(*msg) : std::string()));
    done_ = true;
    return error_;
  }
  if (data_.size() < kGrpcPrefixBytes) return fail("grpc-status 0 but no response message");
  if (data_[0] != '\0') return fail("compressed response message, although no grpc-accept-encoding was sent");
  const uint32_t n = h2::get_u32(std::string_view(data_).substr(1));
  if (data_.size() - kGrpcPrefixBytes != n)
    return fail("response message of " + std::to_string(data_.size() - kGrpcPrefixBytes) + " bytes, its prefix says " +
                std::to_string(n) + " (a unary call has one message)");
  message_ = data_.substr(kGrpcPrefixBytes);
  done_ = true;
  return Status::ok();
}

Expected<std::string> GrpcUnaryCall::result() const {
  if (!done_) return Status::error("grpc: the call has not ended");
  if (!error_) return error_;
  return message_;
}

}  // namespace llmon::kube
