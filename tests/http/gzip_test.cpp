#include <gtest/gtest.h>
#include <zlib.h>

#include "http/metrics_page.h"

namespace llmon::http {
namespace {

std::string gunzip(const std::string& in) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}

TEST(Gzip, RoundTripsWithReusedState) {
  std::shared_ptr<void> state;
  std::string a(10000, 'a'), b = "node_load1 0.5\nnode_load5 0.25\n";
  std::string za = gzip_compress(a, 1, &state);
  ASSERT_NE(state, nullptr);
  std::string zb = gzip_compress(b, 1, &state);  // reset, not reallocated
  EXPECT_EQ(gunzip(za), a);
  EXPECT_EQ(gunzip(zb), b);
  EXPECT_EQ(gunzip(gzip_compress("", 6)), "");
}

TEST(Gzip, AcceptEncoding) {
  EXPECT_TRUE(accepts_gzip("gzip"));
  EXPECT_TRUE(accepts_gzip("deflate, gzip;q=1.0, *;q=0.5"));
  EXPECT_TRUE(accepts_gzip("*"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_FALSE(accepts_gzip("gzip;q=abc"));
}

}  // namespace
}  // namespace llmon::http
