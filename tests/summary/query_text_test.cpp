// `llmon query`'s table layout (app/api_text.h) on literal API answers,
// including answers that are not Prometheus envelopes.
#include "summary/query_text.h"

#include <gtest/gtest.h>

namespace llmon::summary {
namespace {

std::string text(std::string_view json) {
  auto a = render_answer(json);
  EXPECT_TRUE(a.has_value()) << a.error();
  if (!a) return "<error>";
  EXPECT_TRUE(a->success);
  return a->text;
}

TEST(ApiTextTest, VectorOneLinePerSeries) {
  EXPECT_EQ(
      text(
          R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","instance":"a:9100","job":"node"},"value":[1010,"1"]},{"metric":{"__name__":"up","instance":"b:9400","job":"gpu"},"value":[1010,"1e-07"]}]}})"),
      "up{instance=\"a:9100\", job=\"node\"} 1\nup{instance=\"b:9400\", job=\"gpu\"} 1e-07\n");
  EXPECT_EQ(text(R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"2"]}]}})"),
            "{} 2\n");
  EXPECT_EQ(
      text(
          R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"x"},"value":[1,"NaN"]}]}})"),
      "x NaN\n");
  EXPECT_EQ(
      text(
          R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"q\"\\\n"},"value":[1,"2"]}]}})"),
      "{a=\"q\\\"\\\\\\n\"} 2\n");
  EXPECT_EQ(text(R"({"status":"success","data":{"resultType":"vector","result":[]}})"), "");
}

TEST(ApiTextTest, MatrixHeaderThenPoints) {
  EXPECT_EQ(
      text(
          R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"foo_total","job":"node"},"values":[[1000,"10"],[1015.5,"25"],[1030.001,"+Inf"]]}]}})"),
      "foo_total{job=\"node\"}\n  1000 10\n  1015.500 25\n  1030.001 +Inf\n");
}

TEST(ApiTextTest, ScalarAndString) {
  EXPECT_EQ(text(R"({"status":"success","data":{"resultType":"scalar","result":[4,"2"]}})"), "2\n");
  EXPECT_EQ(text(R"({"status":"success","data":{"resultType":"string","result":[4,"a b"]}})"), "a b\n");
}

TEST(ApiTextTest, ErrorsWarningsAndInfos) {
  auto a = render_answer(
      R"({"status":"error","errorType":"bad_data","error":"1:4: parse error: x","warnings":["w"],"infos":["i1","i2"]})");
  ASSERT_TRUE(a.has_value()) << a.error();
  EXPECT_FALSE(a->success);
  EXPECT_EQ(a->error_type, "bad_data");
  EXPECT_EQ(a->error, "1:4: parse error: x");
  EXPECT_EQ(a->warnings, std::vector<std::string>{"w"});
  EXPECT_EQ(a->infos, (std::vector<std::string>{"i1", "i2"}));
  auto e = render_answer(R"({"status":"error","errorType":5})");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error_type, "");
}

TEST(ApiTextTest, RefusesWhatIsNotAnEnvelope) {
  EXPECT_EQ(render_answer("404 page not found\n").error(), "the answer is not JSON");
  EXPECT_EQ(render_answer("").error(), "the answer is not JSON");
  EXPECT_EQ(render_answer("[1]").error(), "the answer has no \"status\": not a Prometheus API response");
  EXPECT_EQ(render_answer(R"({"status":"maybe"})").error(), "unknown status \"maybe\"");
  EXPECT_EQ(render_answer(R"({"status":"success"})").error(), "a success answer without \"data\"");
  EXPECT_FALSE(
      render_answer(R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}})").has_value());
  EXPECT_FALSE(
      render_answer(
          R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"2"]}]}})")
          .has_value());
  EXPECT_FALSE(
      render_answer(R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,2]]}]}})")
          .has_value());
  EXPECT_FALSE(
      render_answer(R"({"status":"success","data":{"resultType":"histo","result":[{"metric":{}}]}})").has_value());
  EXPECT_FALSE(render_answer(R"({"status":"success","data":{"resultType":"scalar","result":[4]}})").has_value());
  EXPECT_FALSE(render_answer(R"({"status":"success","data":[],"warnings":[1]})").has_value());
  EXPECT_FALSE(render_answer("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[").has_value());
}

}  // namespace
}  // namespace llmon::summary
