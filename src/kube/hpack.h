// HPACK (RFC 7541, docs/kubernetes.md "The gRPC client"): the header
// compression of HTTP/2. HpackDecoder decodes header blocks as a server may
// send them: indexed fields, literals with and without indexing, never-indexed
// literals, Huffman-coded strings and dynamic table size updates; it owns the
// connection's dynamic table, so one decoder serves one connection, in order.
// The encoder side is what a client needs and no more: literal fields without
// indexing and without Huffman (hpack_literal), which every decoder accepts.
// Pure: no I/O. Not thread-safe. Errors name the byte offset in the block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::kube {

struct HeaderField {
  std::string name, value;
  bool operator==(const HeaderField&) const = default;
};

// Decodes a Huffman-coded string (RFC 7541 section 5.2 and Appendix B).
// Refuses EOS inside the string, padding longer than 7 bits and padding that
// is not the most significant bits of EOS.
Expected<std::string> huffman_decode(std::string_view in);
// Appends the Huffman coding of `in` to `out` (tests and the fuzz target use
// it to build blocks; the client sends plain literals).
void huffman_encode(std::string_view in, std::string& out);

// Appends an HPACK integer with an N-bit prefix (section 5.1); `first` holds
// the representation's pattern bits above the prefix.
void hpack_integer(std::string& out, uint64_t value, int prefix_bits, uint8_t first);
// Appends a "literal header field without indexing, new name" (section 6.2.2)
// with both strings sent plain.
void hpack_literal(std::string& out, std::string_view name, std::string_view value);

class HpackDecoder {
 public:
  // `max_table_size`: SETTINGS_HEADER_TABLE_SIZE as we announced it (the
  // default 4096); a size update above it is an error. `max_list_bytes`
  // bounds a block's decoded fields (names + values + 32 each, as
  // SETTINGS_MAX_HEADER_LIST_SIZE counts them).
  explicit HpackDecoder(size_t max_table_size = 4096, size_t max_list_bytes = 65536)
      : limit_(max_table_size), max_size_(max_table_size), max_list_bytes_(max_list_bytes) {}

  // Decodes one complete header block (a HEADERS payload and its
  // CONTINUATIONs, joined, padding removed) and appends its fields to `out`.
  // After an error the connection's table is undefined: the caller must drop
  // the connection (RFC 7541 section 2.3.3: a decoding error is a
  // connection error).
  Status decode(std::string_view block, std::vector<HeaderField>& out);

  size_t table_bytes() const { return size_; }
  size_t table_entries() const { return dynamic_.size(); }

 private:
  void insert(HeaderField f);
  void evict_to(size_t max);

  std::deque<HeaderField> dynamic_;  // newest first: index 62 is dynamic_[0]
  size_t size_ = 0;                  // RFC 7541 section 4.1 sizes
  size_t limit_;                     // what the peer may set with a size update
  size_t max_size_;                  // the table's current maximum
  size_t max_list_bytes_;
};

}  // namespace llmon::kube
