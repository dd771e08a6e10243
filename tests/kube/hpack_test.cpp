// HPACK decoding: blocks written by an independent encoder (Python's hpack
// 4.0, Huffman on, incremental indexing, a table size update), the RFC 7541
// Appendix C.3 example, and each way a block can be malformed.
#include "kube/hpack.h"

#include <gtest/gtest.h>

namespace llmon::kube {
namespace {

std::string unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16));
  return out;
}

std::vector<HeaderField> decode_ok(HpackDecoder& d, std::string_view hex) {
  std::vector<HeaderField> out;
  Status st = d.decode(unhex(hex), out);
  EXPECT_TRUE(st) << st.message();
  return out;
}

std::string decode_error(std::string_view block, size_t max_table = 4096) {
  HpackDecoder d(max_table);
  std::vector<HeaderField> out;
  Status st = d.decode(block, out);
  return st ? "ok" : st.message();
}

TEST(Hpack, BlocksOfAnIndependentEncoderWithHuffmanAndTheDynamicTable) {
  HpackDecoder d;
  // Python: Encoder().encode([...], huffman=True), one encoder for all blocks.
  auto b1 =
      decode_ok(d, "885f8b1d75d0620d263d4c4d6564408e9acac8b0c842d6958b510f21aa9b903485a9264fafa90b2d03497ea6f66aff");
  EXPECT_EQ(b1, (std::vector<HeaderField>{{":status", "200"},
                                          {"content-type", "application/grpc"},
                                          {"grpc-accept-encoding", "identity,deflate,gzip"}}));
  EXPECT_EQ(d.table_entries(), 2u);
  EXPECT_EQ(d.table_bytes(), (12 + 16 + 32) + (20 + 21 + 32));
  // 0xbf: index 63, the second dynamic entry (content-type); a non-ASCII value Huffman-coded.
  auto b2 = decode_ok(d, "88bf4086f2b12d424f4f94fffe3fffecd5fffc7ffff610f2154ffea810015f");
  EXPECT_EQ(b2, (std::vector<HeaderField>{{":status", "200"},
                                          {"content-type", "application/grpc"},
                                          {"x-custom",
                                           "\xc3\x9c"
                                           "n\xc3\xaf"
                                           "code ~ 100%"}}));
  auto b3 = decode_ok(d, "40889acac8b21234da8f810740899acac8b5254207317f80");
  EXPECT_EQ(b3, (std::vector<HeaderField>{{"grpc-status", "0"}, {"grpc-message", ""}}));
  EXPECT_EQ(d.table_entries(), 5u);
  // Size update to 64 at the block's start (0x3f21): everything evicted; then
  // each new entry evicts the one before.
  auto b4 = decode_ok(d, "3f2140889acac8b21234da8f81075f8b1d75d0620d263d4c4d6564");
  EXPECT_EQ(b4, (std::vector<HeaderField>{{"grpc-status", "0"}, {"content-type", "application/grpc"}}));
  EXPECT_EQ(d.table_entries(), 1u);
  EXPECT_EQ(d.table_bytes(), 60u);
}

TEST(Hpack, Rfc7541AppendixC3RequestsWithoutHuffman) {
  HpackDecoder d;
  auto r1 = decode_ok(d, "828684410f7777772e6578616d706c652e636f6d");
  EXPECT_EQ(r1, (std::vector<HeaderField>{
                    {":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "www.example.com"}}));
  EXPECT_EQ(d.table_bytes(), 57u);
  auto r2 = decode_ok(d, "828684be58086e6f2d6361636865");
  EXPECT_EQ(r2.back(), (HeaderField{"cache-control", "no-cache"}));
  EXPECT_EQ(r2[3], (HeaderField{":authority", "www.example.com"}));
  EXPECT_EQ(d.table_bytes(), 110u);
}

TEST(Hpack, HuffmanRoundTripsEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  for (std::string s : {std::string(), std::string("a"), std::string("www.example.com"), all}) {
    std::string enc;
    huffman_encode(s, enc);
    auto dec = huffman_decode(enc);
    ASSERT_TRUE(dec) << dec.error();
    EXPECT_EQ(*dec, s);
  }
  std::string enc;
  huffman_encode("www.example.com", enc);
  EXPECT_EQ(enc, unhex("f1e3c2e5f23a6ba0ab90f4ff"));  // RFC 7541 C.4.1
}

TEST(Hpack, HuffmanRejectsBadPadding) {
  // 'a' is 00011 (5 bits): padded with 000 instead of 111.
  EXPECT_EQ(huffman_decode(std::string(1, '\x18')).error(), "Huffman padding is not a prefix of EOS");
  // A whole byte of ones after a complete symbol is padding longer than 7 bits.
  EXPECT_EQ(huffman_decode(std::string("\x1f\xff", 2)).error(), "Huffman padding longer than 7 bits");
  // EOS (30 ones) coded inside the string.
  EXPECT_EQ(huffman_decode(std::string("\xff\xff\xff\xfc", 4)).error(), "Huffman EOS inside a string at byte 3");
}

TEST(Hpack, MalformedBlocksNameTheByte) {
  EXPECT_EQ(decode_error(std::string(1, '\x80')), "hpack: index 0 at byte 0");
  EXPECT_EQ(decode_error("\x82\xc0"), "hpack: index 64 is past the tables (61 entries) at byte 1");
  EXPECT_EQ(decode_error("\x82\xff"), "hpack: truncated integer at byte 1");
  EXPECT_EQ(decode_error("\xff\xff\xff\xff\xff\xff\x01"), "hpack: integer too large at byte 0");
  EXPECT_EQ(decode_error(std::string("\x00\x05name", 6)), "hpack: string of 5 bytes runs past the block at byte 1");
  EXPECT_EQ(decode_error(std::string("\x00\x01n", 3)), "hpack: truncated string at byte 3");
  EXPECT_EQ(decode_error(std::string("\x00\x81\x18\x00", 4)),
            "hpack: Huffman padding is not a prefix of EOS at byte 1");
}

TEST(Hpack, SizeUpdatesOnlyAtTheStartAndWithinTheLimit) {
  EXPECT_EQ(decode_error("\x3f\xe1\x1f", 4095), "hpack: table size 4096 above the limit 4095 at byte 0");
  EXPECT_EQ(decode_error("\x3f\xe1\x1f"), "ok");
  EXPECT_EQ(decode_error("\x82\x20"), "hpack: table size update after a header field at byte 1");
}

TEST(Hpack, BoundsTheHeaderList) {
  HpackDecoder d(4096, 100);
  std::string block;
  hpack_literal(block, "a", std::string(40, 'x'));
  hpack_literal(block, "b", std::string(40, 'y'));
  std::vector<HeaderField> out;
  EXPECT_EQ(d.decode(block, out).message(), "hpack: header list above 100 bytes at byte 44");
}

TEST(Hpack, LiteralsTheClientWritesDecode) {
  std::string block;
  hpack_literal(block, ":path", "/v1.PodResourcesLister/List");
  hpack_literal(block, "long", std::string(300, 'z'));  // a length past the 7-bit prefix
  HpackDecoder d;
  std::vector<HeaderField> out;
  ASSERT_TRUE(d.decode(block, out));
  EXPECT_EQ(out, (std::vector<HeaderField>{{":path", "/v1.PodResourcesLister/List"}, {"long", std::string(300, 'z')}}));
  EXPECT_EQ(d.table_entries(), 0u);  // without indexing
}

TEST(Hpack, NeverIndexedAndIndexedNames) {
  // 0x10: never indexed, new name; 0x04|...: without indexing, indexed name :path (4).
  std::string block("\x10\x01k\x01v\x04\x02/x", 9);
  HpackDecoder d;
  std::vector<HeaderField> out;
  ASSERT_TRUE(d.decode(block, out));
  EXPECT_EQ(out, (std::vector<HeaderField>{{"k", "v"}, {":path", "/x"}}));
  EXPECT_EQ(d.table_entries(), 0u);
}

TEST(Hpack, EntryLargerThanTheTableEmptiesIt) {
  HpackDecoder d(64);
  std::vector<HeaderField> out;
  std::string small("\x40\x01k\x01v", 5);
  ASSERT_TRUE(d.decode(small, out));
  EXPECT_EQ(d.table_entries(), 1u);
  std::string big("\x40\x01k\x40", 4);
  big += std::string(64, 'v');
  ASSERT_TRUE(d.decode(big, out));
  EXPECT_EQ(d.table_entries(), 0u);
  EXPECT_EQ(d.table_bytes(), 0u);
}

}  // namespace
}  // namespace llmon::kube
