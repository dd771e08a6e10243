// Writing the protobuf wire format (protobuf's encoding guide): varints,
// field tags, length-delimited fields and doubles, appended to a string.
// Shared by the hand-written encoders (the Loki push body, protobuf
// pushes); no schema, no reflection. Readers stay with their formats.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace llmon::base {

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

// wire_type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
inline void put_tag(std::string& out, int field, int wire_type) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire_type));
}

inline void put_bytes(std::string& out, int field, std::string_view bytes) {
  put_tag(out, field, 2);
  put_varint(out, bytes.size());
  out += bytes;
}

inline void put_double(std::string& out, int field, double d) {
  put_tag(out, field, 1);
  uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof d);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xff);
}

}  // namespace llmon::base
