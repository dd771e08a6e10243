// HTTP/2 framing (RFC 9113 section 4): the 9-byte frame header, the frame
// types and flags a gRPC client meets, and writing a frame. Pure; no state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace llmon::kube::h2 {

inline constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
inline constexpr size_t kFrameHeaderBytes = 9;
inline constexpr uint32_t kDefaultMaxFrameBytes = 16384;  // SETTINGS_MAX_FRAME_SIZE's initial value
inline constexpr uint32_t kDefaultWindowBytes = 65535;

enum FrameType : uint8_t {
  kData = 0x0,
  kHeaders = 0x1,
  kPriority = 0x2,
  kRstStream = 0x3,
  kSettings = 0x4,
  kPushPromise = 0x5,
  kPing = 0x6,
  kGoAway = 0x7,
  kWindowUpdate = 0x8,
  kContinuation = 0x9,
};

enum Flags : uint8_t {
  kEndStream = 0x1,  // DATA, HEADERS
  kAck = 0x1,        // SETTINGS, PING
  kEndHeaders = 0x4,
  kPadded = 0x8,
  kPriorityFlag = 0x20,
};

enum Setting : uint16_t {
  kHeaderTableSize = 0x1,
  kEnablePush = 0x2,
  kMaxConcurrentStreams = 0x3,
  kInitialWindowSize = 0x4,
  kMaxFrameSize = 0x5,
  kMaxHeaderListSize = 0x6,
};

struct FrameHeader {
  uint32_t length = 0;  // payload bytes (24 bits)
  uint8_t type = 0;
  uint8_t flags = 0;
  uint32_t stream = 0;  // the reserved bit cleared
};

// `p` holds at least kFrameHeaderBytes bytes.
inline FrameHeader parse_frame_header(std::string_view p) {
  auto u8 = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(p[i])); };
  FrameHeader h;
  h.length = (u8(0) << 16) | (u8(1) << 8) | u8(2);
  h.type = static_cast<uint8_t>(u8(3));
  h.flags = static_cast<uint8_t>(u8(4));
  h.stream = ((u8(5) << 24) | (u8(6) << 16) | (u8(7) << 8) | u8(8)) & 0x7fffffffu;
  return h;
}

inline void put_u32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

inline uint32_t get_u32(std::string_view p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

inline void append_frame(std::string& out, uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload) {
  const auto n = static_cast<uint32_t>(payload.size());
  out += static_cast<char>((n >> 16) & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>(type);
  out += static_cast<char>(flags);
  put_u32(out, stream & 0x7fffffffu);
  out += payload;
}

}  // namespace llmon::kube::h2
