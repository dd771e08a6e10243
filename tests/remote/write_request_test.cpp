#include "remote/write_request.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "remote/write_request_decoder.h"

namespace llmon::remote {
namespace {

using testing::decode;
using testing::Decoded;

TEST(WriteRequest, RoundTripsSeriesSamplesAndMetadata) {
  const double stale = std::bit_cast<double>(0x7ff0000000000002ull);
  std::vector<WriteSeries> in = {
      {{{"__name__", "up"}, {"instance", "gpu01:9400"}, {"job", "llmon"}}, {{1733230000000, 1}, {1733230001000, 0}}},
      {{{"__name__", "neg"}}, {{-5, -2.5}, {0, stale}, {1, 1e300}}},
      {{{"__name__", "empty_samples"}}, {}},
  };
  std::vector<WriteMetadata> meta = {{1, "http_requests_total", "Requests.", ""}, {0, "x", "", "bytes"}};
  std::string out;
  encode_write_request(in, meta, out);
  Decoded d = decode(out);
  ASSERT_EQ(d.series.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(d.series[i].labels, in[i].labels);
    ASSERT_EQ(d.series[i].samples.size(), in[i].samples.size());
    for (size_t j = 0; j < in[i].samples.size(); ++j) {
      EXPECT_EQ(d.series[i].samples[j].t_ms, in[i].samples[j].t_ms);
      EXPECT_EQ(std::bit_cast<uint64_t>(d.series[i].samples[j].v), std::bit_cast<uint64_t>(in[i].samples[j].v));
    }
  }
  ASSERT_EQ(d.metadata.size(), 2u);
  EXPECT_EQ(d.metadata[0].type, 1);
  EXPECT_EQ(d.metadata[0].family, "http_requests_total");
  EXPECT_EQ(d.metadata[0].help, "Requests.");
  EXPECT_EQ(d.metadata[1].unit, "bytes");
}

TEST(WriteRequest, KnownBytes) {
  // WriteRequest{timeseries: [{labels: [{a, b}], samples: [{value: 1, timestamp: 2}]}]}
  std::string out;
  encode_write_request({{{{"a", "b"}}, {{2, 1.0}}}}, {}, out);
  const std::string want = std::string("\x0a\x15", 2) +
                           std::string(
                               "\x0a\x06\x0a\x01"
                               "a\x12\x01"
                               "b",
                               8) +
                           std::string("\x12\x0b\x09\x00\x00\x00\x00\x00\x00\xf0\x3f\x10\x02", 13);
  EXPECT_EQ(out, want);
}

TEST(WriteRequest, EmptyRequestIsEmpty) {
  std::string out = "junk";
  encode_write_request(std::vector<WriteSeries>{}, {}, out);
  EXPECT_TRUE(out.empty());
}

TEST(WriteRequest, SnappyBlockFormatRoundTrips) {
  std::string raw;
  encode_write_request({{{{"__name__", "m"}}, std::vector<WriteSample>(1000, {5, 1})}}, {}, raw);
  const std::string c = snappy_compress(raw);
  EXPECT_LT(c.size(), raw.size());
  // The block format starts with the uncompressed length as a varint (the
  // framed format would start with the stream identifier 0xff 06 00 00 sNaPpY).
  EXPECT_NE(static_cast<uint8_t>(c[0]), 0xff);
  std::string back;
  ASSERT_TRUE(snappy::Uncompress(c.data(), c.size(), &back));
  EXPECT_EQ(back, raw);
}

}  // namespace
}  // namespace llmon::remote
