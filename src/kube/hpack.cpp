// HPACK decoding and the client's literal encoding (RFC 7541).
#include "kube/hpack.h"

#include <algorithm>
#include <array>

#include "kube/hpack_huffman_table.h"
#include "kube/hpack_static_table.h"

namespace llmon::kube {
namespace {

constexpr size_t kEntryOverhead = 32;  // RFC 7541 section 4.1
constexpr int kMaxCodeBits = 30;
constexpr int kEos = 256;

// The code is canonical (codes of one length are consecutive and follow the
// shorter ones, symbols in order), so decoding needs, per length, the first
// code, how many codes have it and where they start in the sorted symbols.
struct CanonicalDecoder {
  std::array<uint32_t, kMaxCodeBits + 1> first{};
  std::array<uint16_t, kMaxCodeBits + 1> count{};
  std::array<uint16_t, kMaxCodeBits + 1> offset{};
  std::array<uint16_t, 257> symbols{};
};

constexpr CanonicalDecoder make_decoder() {
  CanonicalDecoder d;
  uint16_t n = 0;
  for (int len = 1; len <= kMaxCodeBits; ++len) {
    d.offset[len] = n;
    bool any = false;
    for (int s = 0; s < 257; ++s) {
      if (kHuffmanCodes[s].bits != len) continue;
      if (!any) d.first[len] = kHuffmanCodes[s].code;
      any = true;
      d.symbols[n++] = static_cast<uint16_t>(s);
      ++d.count[len];
    }
  }
  return d;
}

constexpr CanonicalDecoder kDecoder = make_decoder();

// Checks the table is what make_decoder assumes: canonical.
constexpr bool is_canonical() {
  for (int len = 1; len <= kMaxCodeBits; ++len)
    for (int i = 0; i < kDecoder.count[len]; ++i)
      if (kHuffmanCodes[kDecoder.symbols[kDecoder.offset[len] + i]].code != kDecoder.first[len] + i) return false;
  return true;
}
static_assert(is_canonical(), "RFC 7541 Appendix B is a canonical Huffman code");

Status at(size_t offset, const std::string& why) {
  return Status::error("hpack: " + why + " at byte " + std::to_string(offset));
}

// Reads an integer with an N-bit prefix at block[pos] (section 5.1).
Status read_integer(std::string_view b, size_t& pos, int prefix_bits, uint64_t& v) {
  const size_t start = pos;
  const uint64_t mask = (uint64_t{1} << prefix_bits) - 1;
  v = static_cast<uint8_t>(b[pos++]) & mask;
  if (v < mask) return Status::ok();
  for (int shift = 0;; shift += 7) {
    if (pos >= b.size()) return at(start, "truncated integer");
    if (shift > 28) return at(start, "integer too large");
    const auto c = static_cast<uint8_t>(b[pos++]);
    v += static_cast<uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80)) return Status::ok();
  }
}

Status read_string(std::string_view b, size_t& pos, std::string& out) {
  const size_t start = pos;
  if (pos >= b.size()) return at(pos, "truncated string");
  const bool huffman = (static_cast<uint8_t>(b[pos]) & 0x80) != 0;
  uint64_t n = 0;
  if (Status st = read_integer(b, pos, 7, n); !st) return st;
  if (n > b.size() - pos) return at(start, "string of " + std::to_string(n) + " bytes runs past the block");
  std::string_view raw = b.substr(pos, n);
  pos += n;
  if (!huffman) {
    out.assign(raw);
    return Status::ok();
  }
  auto dec = huffman_decode(raw);
  if (!dec) return at(start, dec.error());
  out = std::move(*dec);
  return Status::ok();
}

}  // namespace

Expected<std::string> huffman_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size() * 8 / 5);
  uint32_t code = 0;
  int len = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const auto byte = static_cast<uint8_t>(in[i]);
    for (int bit = 7; bit >= 0; --bit) {
      code = (code << 1) | ((byte >> bit) & 1);
      ++len;
      if (len > kMaxCodeBits) return Status::error("Huffman code longer than 30 bits at byte " + std::to_string(i));
      const uint32_t k = code - kDecoder.first[len];
      if (kDecoder.count[len] == 0 || code < kDecoder.first[len] || k >= kDecoder.count[len]) continue;
      const uint16_t sym = kDecoder.symbols[kDecoder.offset[len] + k];
      if (sym == kEos) return Status::error("Huffman EOS inside a string at byte " + std::to_string(i));
      out += static_cast<char>(sym);
      code = 0;
      len = 0;
    }
  }
  if (len > 7) return Status::error("Huffman padding longer than 7 bits");
  if (code != (uint32_t{1} << len) - 1) return Status::error("Huffman padding is not a prefix of EOS");
  return out;
}

void huffman_encode(std::string_view in, std::string& out) {
  uint64_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const HuffmanCode& h = kHuffmanCodes[static_cast<uint8_t>(c)];
    acc = (acc << h.bits) | h.code;
    bits += h.bits;
    while (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (bits > 0) out += static_cast<char>(((acc << (8 - bits)) | ((1u << (8 - bits)) - 1)) & 0xff);
}

void hpack_integer(std::string& out, uint64_t value, int prefix_bits, uint8_t first) {
  const uint64_t mask = (uint64_t{1} << prefix_bits) - 1;
  if (value < mask) {
    out += static_cast<char>(first | value);
    return;
  }
  out += static_cast<char>(first | mask);
  value -= mask;
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void hpack_literal(std::string& out, std::string_view name, std::string_view value) {
  out += '\0';  // 0000 0000: without indexing, new name
  hpack_integer(out, name.size(), 7, 0);
  out += name;
  hpack_integer(out, value.size(), 7, 0);
  out += value;
}

void HpackDecoder::evict_to(size_t max) {
  while (size_ > max && !dynamic_.empty()) {
    size_ -= dynamic_.back().name.size() + dynamic_.back().value.size() + kEntryOverhead;
    dynamic_.pop_back();
  }
}

void HpackDecoder::insert(HeaderField f) {
  const size_t n = f.name.size() + f.value.size() + kEntryOverhead;
  // An entry larger than the table empties it and is not added (section 4.4).
  evict_to(n > max_size_ ? 0 : max_size_ - n);
  if (n > max_size_) return;
  size_ += n;
  dynamic_.push_front(std::move(f));
}

Status HpackDecoder::decode(std::string_view b, std::vector<HeaderField>& out) {
  size_t pos = 0;
  size_t list_bytes = 0;
  bool field_seen = false;
  while (pos < b.size()) {
    const size_t start = pos;
    const auto c = static_cast<uint8_t>(b[pos]);
    if ((c & 0xe0) == 0x20) {  // 001x xxxx: dynamic table size update
      if (field_seen) return at(start, "table size update after a header field");
      uint64_t n = 0;
      if (Status st = read_integer(b, pos, 5, n); !st) return st;
      if (n > limit_)
        return at(start, "table size " + std::to_string(n) + " above the limit " + std::to_string(limit_));
      max_size_ = n;
      evict_to(max_size_);
      continue;
    }
    field_seen = true;
    HeaderField f;
    uint64_t index = 0;
    bool add = false;
    if (c & 0x80) {  // 1xxx xxxx: indexed field
      if (Status st = read_integer(b, pos, 7, index); !st) return st;
      if (index == 0) return at(start, "index 0");
    } else {
      // 01xx xxxx: with incremental indexing; 0000 xxxx without; 0001 xxxx never indexed.
      add = (c & 0x40) != 0;
      if (Status st = read_integer(b, pos, add ? 6 : 4, index); !st) return st;
    }
    if (index != 0) {
      if (index <= kHpackStaticTable.size()) {
        const StaticHeader& h = kHpackStaticTable[index - 1];
        f.name.assign(h.name);
        if (c & 0x80) f.value.assign(h.value);
      } else if (index - kHpackStaticTable.size() <= dynamic_.size()) {
        const HeaderField& h = dynamic_[index - kHpackStaticTable.size() - 1];
        f.name = h.name;
        if (c & 0x80) f.value = h.value;
      } else {
        return at(start, "index " + std::to_string(index) + " is past the tables (" +
                             std::to_string(kHpackStaticTable.size() + dynamic_.size()) + " entries)");
      }
    } else if (Status st = read_string(b, pos, f.name); !st) {
      return st;
    }
    if (!(c & 0x80)) {
      if (Status st = read_string(b, pos, f.value); !st) return st;
    }
    list_bytes += f.name.size() + f.value.size() + kEntryOverhead;
    if (list_bytes > max_list_bytes_)
      return at(start, "header list above " + std::to_string(max_list_bytes_) + " bytes");
    if (add) insert(f);
    out.push_back(std::move(f));
  }
  return Status::ok();
}

}  // namespace llmon::kube
