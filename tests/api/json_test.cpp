// Prometheus API JSON bytes (app/api_json.h). The expected strings are
// Prometheus 2.42's answers, copied from its HTTP API for the same values.
#include "api/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <limits>
#include <random>

namespace llmon::api {
namespace {

model::Labels labels(std::vector<model::Label> pairs) {
  auto l = model::Labels::make(std::move(pairs));
  EXPECT_TRUE(l.has_value()) << l.error();
  return l ? *l : model::Labels();
}

std::string ts(int64_t ms) {
  std::string out;
  append_sample_timestamp(out, ms);
  return out;
}

std::string go_float(double v) {
  std::string out;
  append_go_json_float(out, v);
  return out;
}

std::string json_str(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(ApiJsonTest, SampleValuesSwitchToExponentsOutsideOneMillionthTo1e21) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(format_sample_value(1), "1");
  EXPECT_EQ(format_sample_value(1e-7), "1e-07");
  EXPECT_EQ(format_sample_value(-0.9e-6), "-9e-07");
  EXPECT_EQ(format_sample_value(1e-6), "0.000001");
  EXPECT_EQ(format_sample_value(-1e-6), "-0.000001");
  EXPECT_EQ(format_sample_value(1e22), "1e+22");
  EXPECT_EQ(format_sample_value(1e21), "1e+21");
  EXPECT_EQ(format_sample_value(9.99e20), "999000000000000000000");
  EXPECT_EQ(format_sample_value(123456789012345678901.0), "123456789012345680000");
  EXPECT_EQ(format_sample_value(1010.5), "1010.5");
  EXPECT_EQ(format_sample_value(0.1), "0.1");
  EXPECT_EQ(format_sample_value(1.0000001), "1.0000001");
  EXPECT_EQ(format_sample_value(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(format_sample_value(-0.0), "-0");
  EXPECT_EQ(format_sample_value(0), "0");
  // Integral values take a shortcut below 2^53; Go's digits on both sides of it.
  EXPECT_EQ(format_sample_value(9007199254740991.0), "9007199254740991");
  EXPECT_EQ(format_sample_value(9007199254740992.0), "9007199254740992");
  EXPECT_EQ(format_sample_value(-123456789.0), "-123456789");
  EXPECT_EQ(format_sample_value(1e15), "1000000000000000");
  EXPECT_EQ(format_sample_value(1e20), "100000000000000000000");
  EXPECT_EQ(format_sample_value(inf), "+Inf");
  EXPECT_EQ(format_sample_value(-inf), "-Inf");
  EXPECT_EQ(format_sample_value(std::nan("")), "NaN");
  EXPECT_EQ(format_sample_value(model::stale_nan()), "NaN");
  EXPECT_EQ(format_sample_value(1.5e300), "1.5e+300");
  EXPECT_EQ(format_sample_value(5e-324), "5e-324");
}

TEST(ApiJsonTest, ScalarValuesAreAlwaysFixed) {
  EXPECT_EQ(format_float_f(1e-7), "0.0000001");
  EXPECT_EQ(format_float_f(123456789012345678901234.0), "123456789012345690000000");
  EXPECT_EQ(format_float_f(-1.5e-3), "-0.0015");
  EXPECT_EQ(format_float_f(2), "2");
  EXPECT_EQ(format_float_f(-0.0), "-0");
  EXPECT_EQ(format_float_f(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_float_f(std::nan("")), "NaN");
}

TEST(ApiJsonTest, PointTimestampsKeepThreeMillisecondDigits) {
  EXPECT_EQ(ts(1010000), "1010");
  EXPECT_EQ(ts(1030500), "1030.500");
  EXPECT_EQ(ts(1010123), "1010.123");
  EXPECT_EQ(ts(1435781451781), "1435781451.781");
  EXPECT_EQ(ts(1), "0.001");
  EXPECT_EQ(ts(10), "0.010");
  EXPECT_EQ(ts(0), "0");
  EXPECT_EQ(ts(-1030050), "-1030.050");
  EXPECT_EQ(ts(-500), "-0.500");
}

TEST(ApiJsonTest, ScalarTimestampsAreGoJsonFloats) {
  EXPECT_EQ(go_float(1030.5), "1030.5");
  EXPECT_EQ(go_float(-1.5), "-1.5");
  EXPECT_EQ(go_float(4), "4");
  EXPECT_EQ(go_float(0.001), "0.001");
  EXPECT_EQ(go_float(1e-7), "1e-7");
  EXPECT_EQ(go_float(1e21), "1e+21");
  EXPECT_EQ(go_float(1672531200.5), "1672531200.5");
}

TEST(ApiJsonTest, StringsAreEscapedLikeEncodingJson) {
  EXPECT_EQ(json_str("plain"), "\"plain\"");
  EXPECT_EQ(json_str("a<b>&c"), R"("a\u003cb\u003e\u0026c")");
  EXPECT_EQ(json_str("\"q\" \\ \n\r\t"), R"("\"q\" \\ \n\r\t")");
  EXPECT_EQ(json_str(std::string("\x01\x1f\b\f", 4)), R"("\u0001\u001f\u0008\u000c")");
  EXPECT_EQ(json_str(std::string("\0", 1)), R"("\u0000")");
  EXPECT_EQ(json_str("\xff"), R"("\ufffd")");
  EXPECT_EQ(json_str("\xe2\x80"), R"("\ufffd\ufffd")");            // truncated sequence: one per byte, as Go
  EXPECT_EQ(json_str("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");  // a surrogate
  EXPECT_EQ(json_str("\xe2\x80\xa8\xe2\x80\xa9"), R"("\u2028\u2029")");
  EXPECT_EQ(json_str("\xc3\xa9\xf0\x9f\x98\x80"), "\"\xc3\xa9\xf0\x9f\x98\x80\"");
  EXPECT_EQ(json_str("a\x7f"), "\"a\x7f\"");
}

TEST(ApiJsonTest, QueryDataAsPrometheusWritesIt) {
  EXPECT_EQ(encode_query_data(promql::Scalar{4000, 2}), R"({"resultType":"scalar","result":[4,"2"]})");
  EXPECT_EQ(encode_query_data(promql::Scalar{1030500, 1e-7}),
            R"({"resultType":"scalar","result":[1030.5,"0.0000001"]})");
  EXPECT_EQ(encode_query_data(promql::String{1030500, "a"}), R"({"resultType":"string","result":[1030.5,"a"]})");
  EXPECT_EQ(encode_query_data(promql::String{1000, "a<b>&c\xe2\x80\xa8\x01\xff \xc3\xa9 \"q\" \\ \n"}),
            R"({"resultType":"string","result":[1,"a\u003cb\u003e\u0026c\u2028\u0001\ufffd é \"q\" \\ \n"]})");

  promql::Vector v = {{labels({{"__name__", "up"}, {"job", "node"}, {"instance", "a:9100"}}), 1010000, 1},
                      {labels({{"__name__", "up"}, {"job", "gpu"}, {"instance", "b:9400"}}), 1010000, 1e-7}};
  EXPECT_EQ(
      encode_query_data(v),
      R"({"resultType":"vector","result":[{"metric":{"__name__":"up","instance":"a:9100","job":"node"},)"
      R"("value":[1010,"1"]},{"metric":{"__name__":"up","instance":"b:9400","job":"gpu"},"value":[1010,"1e-07"]}]})");
  EXPECT_EQ(encode_query_data(promql::Vector{{model::Labels(), -1030050, 1}}),
            R"({"resultType":"vector","result":[{"metric":{},"value":[-1030.050,"1"]}]})");
  EXPECT_EQ(encode_query_data(promql::Vector{}), R"({"resultType":"vector","result":[]})");
  EXPECT_EQ(encode_query_data(promql::Vector{{labels({{"l", "<&>"}}), 1000, 1}}),
            R"({"resultType":"vector","result":[{"metric":{"l":"\u003c\u0026\u003e"},"value":[1,"1"]}]})");

  promql::Matrix m = {{labels({{"__name__", "foo_total"}, {"job", "node"}}),
                       {{1000000, 10}, {1015000, 25}, {1030000, std::numeric_limits<double>::infinity()}}}};
  EXPECT_EQ(encode_query_data(m), R"({"resultType":"matrix","result":[{"metric":{"__name__":"foo_total","job":"node"},)"
                                  R"("values":[[1000,"10"],[1015,"25"],[1030,"+Inf"]]}]})");
  EXPECT_EQ(encode_query_data(promql::Matrix{}), R"({"resultType":"matrix","result":[]})");
}

// Points are written through a pointer (the fast path); each must read as
// the public string helpers write its timestamp and value, for every kind
// of value and timestamp.
TEST(ApiJsonTest, PointsReadAsTheStringHelpersWriteThem) {
  const double specials[] = {0.0,
                             -0.0,
                             1,
                             -1,
                             0.5,
                             1e-6,
                             9.99e-7,
                             -1e-7,
                             1e21,
                             9.999e20,
                             123456789.125,
                             9007199254740992.0,
                             9007199254740993.0 * 4,
                             -9007199254740991.0,
                             0.1 + 0.2,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::max(),
                             -std::numeric_limits<double>::max()};
  std::mt19937_64 rng(11);
  promql::Matrix m(1);
  std::string want = "[";
  int64_t t = -5'000'123;
  for (size_t i = 0; i < 3000; ++i) {
    double v = i < std::size(specials)
                   ? specials[i]
                   : std::ldexp(static_cast<double>(static_cast<int64_t>(rng())), static_cast<int>(rng() % 140) - 100);
    t += static_cast<int64_t>(rng() % 20000);
    m[0].samples.push_back({t, v});
    if (i) want += ',';
    want += "[" + ts(t) + ",\"" + format_sample_value(v) + "\"]";
  }
  want += ']';
  const std::string got = encode_query_data(m);
  const std::string head = R"({"resultType":"matrix","result":[{"metric":{},"values":)";
  ASSERT_EQ(got.substr(0, head.size()), head);
  EXPECT_EQ(got.substr(head.size(), got.size() - head.size() - 3), want);
}

TEST(ApiJsonTest, Envelopes) {
  EXPECT_EQ(success_envelope("[]"), R"({"status":"success","data":[]})");
  EXPECT_EQ(success_envelope("{}", {"w1", "w\"2"}, {"i"}),
            R"({"status":"success","data":{},"warnings":["w1","w\"2"],"infos":["i"]})");
  EXPECT_EQ(success_envelope("1", {}, {"i"}), R"({"status":"success","data":1,"infos":["i"]})");
  EXPECT_EQ(
      error_envelope(promql::ErrorType::kBadData,
                     "invalid parameter \"query\": 1:4: parse error: unexpected end of input"),
      R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:4: parse error: unexpected end of input"})");
  EXPECT_EQ(
      error_envelope(promql::ErrorType::kTimeout, "query timed out in query execution", {"w"}),
      R"({"status":"error","errorType":"timeout","error":"query timed out in query execution","warnings":["w"]})");
  EXPECT_EQ(encode_string_array({"a", "b<"}), R"(["a","b\u003c"])");
  EXPECT_EQ(encode_string_array({}), "[]");
  EXPECT_EQ(encode_label_sets({labels({{"job", "x"}, {"__name__", "up"}}), model::Labels()}),
            R"([{"__name__":"up","job":"x"},{}])");
}

}  // namespace
}  // namespace llmon::api
