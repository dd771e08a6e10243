// The protobuf wire format (protobuf's encoding guide): writing varints,
// field tags, length-delimited fields and doubles, appended to a string, and
// ProtoReader, the bounds-checked reader under the hand-written decoders
// (protobuf pushes, the kubelet's pod resources). No schema, no reflection:
// each decoder knows its own field numbers.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "base/status.h"

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

// Reading the wire format: a reader over one message's bytes; `base` is its
// offset in the whole body, so errors name the byte where they are. Never reads
// past `data`; every failure is a Status.
class ProtoReader {
 public:
  // `what` opens every error: "<what>: truncated varint at byte 12".
  ProtoReader(std::string_view data, size_t base, std::string_view what = "protobuf body")
      : d_(data), base_(base), what_(what) {}
  bool done() const { return pos_ >= d_.size(); }
  size_t offset() const { return base_ + pos_; }

  Status varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= d_.size()) return fail("truncated varint");
      const auto b = static_cast<uint8_t>(d_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return Status::ok();
    }
    return fail("varint longer than 10 bytes");
  }
  Status fixed64(uint64_t& v) {
    if (d_.size() - pos_ < 8) return fail("truncated fixed64");
    v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(d_[pos_ + i]);
    pos_ += 8;
    return Status::ok();
  }
  Status dbl(double& out) {
    uint64_t bits = 0;
    if (Status st = fixed64(bits); !st) return st;
    std::memcpy(&out, &bits, sizeof out);
    return Status::ok();
  }
  Status bytes(std::string_view& out, size_t& at) {
    uint64_t n = 0;
    if (Status st = varint(n); !st) return st;
    if (n > d_.size() - pos_) return fail("length-delimited field runs past its message");
    at = offset();
    out = d_.substr(pos_, n);
    pos_ += n;
    return Status::ok();
  }
  Status tag(uint64_t& field, int& wire) {
    uint64_t t = 0;
    if (Status st = varint(t); !st) return st;
    field = t >> 3;
    wire = static_cast<int>(t & 7);
    if (field == 0) return fail("field number 0");
    return Status::ok();
  }
  Status skip(int wire) {
    uint64_t v = 0;
    std::string_view s;
    size_t at = 0;
    switch (wire) {
      case 0:
        return varint(v);
      case 1:
        return fixed64(v);
      case 2:
        return bytes(s, at);
      case 5:
        if (d_.size() - pos_ < 4) return fail("truncated fixed32");
        pos_ += 4;
        return Status::ok();
    }
    return fail("unsupported wire type " + std::to_string(wire));
  }
  // A length-delimited field read as a string.
  Status string_field(int wire, std::string_view what, std::string& out) {
    std::string_view s;
    size_t at = 0;
    if (Status st = expect(wire, 2, what); !st) return st;
    if (Status st = bytes(s, at); !st) return st;
    out = std::string(s);
    return Status::ok();
  }
  // A field of the expected wire type, or an error naming it.
  Status expect(int wire, int want, std::string_view what) {
    if (wire == want) return Status::ok();
    return fail(std::string(what) + " has wire type " + std::to_string(wire));
  }
  Status fail(const std::string& why) const {
    return Status::error(std::string(what_) + ": " + why + " at byte " + std::to_string(offset()));
  }

 private:
  std::string_view d_;
  size_t base_ = 0;
  std::string_view what_;
  size_t pos_ = 0;
};

}  // namespace llmon::base
