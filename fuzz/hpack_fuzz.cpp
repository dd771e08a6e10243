// Fuzz target: HPACK header blocks (kube/hpack.h) and Huffman strings. Any
// bytes must decode or give an error, never crash; one decoder takes the
// input split into several blocks (its dynamic table carried across, as on
// a connection), its table never exceeds the largest size allowed; and a
// Huffman string that decodes re-encodes to exactly its bytes (valid padding
// is under 8 bits of ones, as the encoder writes it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "kube/hpack.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmon::kube;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  HpackDecoder d(4096, 1 << 16);
  // Blocks separated by a 0xfe byte that is not part of them (an 0xfe would
  // start an indexed field): the first one alone, then the rest in turn.
  size_t start = 0;
  while (start <= in.size()) {
    size_t end = in.find('\xfe', start);
    if (end == std::string_view::npos) end = in.size();
    std::vector<HeaderField> out;
    if (!d.decode(in.substr(start, end - start), out)) break;
    if (d.table_bytes() > 4096) std::abort();
    start = end + 1;
  }
  auto h = huffman_decode(in);
  if (h) {
    std::string enc;
    huffman_encode(*h, enc);
    auto again = huffman_decode(enc);
    if (!again || *again != *h) std::abort();
    if (enc != in) std::abort();  // padding is under 8 bits of ones either way
  }
  return 0;
}
