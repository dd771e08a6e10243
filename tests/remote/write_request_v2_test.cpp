#include "remote/write_request_v2.h"

#include <gtest/gtest.h>

#include <bit>
#include <set>

#include "remote/write_request_v2_decoder.h"

namespace llmon::remote {
namespace {

using testing::decode_v2;

TEST(WriteRequestV2, RoundTripsLabelsSamplesAndMetadataThroughTheSymbolTable) {
  const double stale = std::bit_cast<double>(0x7ff0000000000002ull);
  const WriteMetadata counter{1, "http_requests_total", "Requests served.", ""};
  const WriteMetadata gauge{2, "temp_celsius", "Temperature.", "celsius"};
  std::vector<WriteSeries> in = {
      {{{"__name__", "http_requests_total"}, {"code", "200"}, {"job", "llmon"}}, {{1000, 1}, {2000, 3}}, &counter},
      {{{"__name__", "http_requests_total"}, {"code", "500"}, {"job", "llmon"}}, {{1000, 0}}, &counter},
      {{{"__name__", "temp_celsius"}, {"job", "llmon"}}, {{-5, stale}}, &gauge},
      {{{"__name__", "no_meta"}, {"job", "llmon"}}, {{7, 1e300}}, nullptr},
  };
  std::string out;
  encode_write_request_v2(in, out);
  const auto d = decode_v2(out);
  ASSERT_EQ(d.series.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(d.series[i].labels, in[i].labels);
    ASSERT_EQ(d.series[i].samples.size(), in[i].samples.size());
    for (size_t j = 0; j < in[i].samples.size(); ++j) {
      EXPECT_EQ(d.series[i].samples[j].t_ms, in[i].samples[j].t_ms);
      EXPECT_EQ(std::bit_cast<uint64_t>(d.series[i].samples[j].v), std::bit_cast<uint64_t>(in[i].samples[j].v));
    }
  }
  ASSERT_TRUE(d.series[0].metadata);
  EXPECT_EQ(d.series[0].metadata->type, 1);
  EXPECT_EQ(d.series[0].metadata->help, "Requests served.");
  EXPECT_EQ(d.series[0].metadata->unit, "");
  ASSERT_TRUE(d.series[2].metadata);
  EXPECT_EQ(d.series[2].metadata->type, 2);
  EXPECT_EQ(d.series[2].metadata->unit, "celsius");
  EXPECT_FALSE(d.series[3].metadata);
  // Interned: every string once ("" first, then in first-use order).
  const std::set<std::string> unique(d.symbols.begin(), d.symbols.end());
  EXPECT_EQ(unique.size(), d.symbols.size());
  const std::vector<std::string> want = {
      "",    "__name__",     "http_requests_total", "code",    "200",    "job", "llmon", "Requests served.",
      "500", "temp_celsius", "Temperature.",        "celsius", "no_meta"};
  EXPECT_EQ(d.symbols, want);
}

TEST(WriteRequestV2, KnownBytes) {
  // Request{symbols: ["", "a", "b"], timeseries: [{labels_refs: [1, 2], samples: [{value: 1, timestamp: 2}]}]}
  std::string out;
  encode_write_request_v2({{{{"a", "b"}}, {{2, 1.0}}}}, out);
  const std::string want = std::string(
                               "\x22\x00\x22\x01"
                               "a\x22\x01"
                               "b",
                               8) +
                           std::string("\x2a\x11\x0a\x02\x01\x02", 6) +
                           std::string("\x12\x0b\x09\x00\x00\x00\x00\x00\x00\xf0\x3f\x10\x02", 13);
  EXPECT_EQ(out, want);
}

TEST(WriteRequestV2, EmptyRequestHasTheEmptySymbol) {
  std::string out = "junk";
  encode_write_request_v2(std::vector<WriteSeries>{}, out);
  EXPECT_EQ(out, std::string("\x22\x00", 2));
}

}  // namespace
}  // namespace llmon::remote
