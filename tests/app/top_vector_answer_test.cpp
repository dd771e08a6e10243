// parse_vector_answer: the query API's vector answers as `llmon top --url`
// reads them (no DOM).
#include "app/top_vector_answer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llmon::app {
namespace {

TEST(TopVectorAnswer, SeriesBecomeFamiliesWithSortedLabels) {
  const std::string body = R"({"status":"success","data":{"resultType":"vector","result":[
    {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"1","UUID":"GPU-b"},"value":[1733.5,"87"]},
    {"metric":{"UUID":"GPU-a","__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"value":[1733.5,"12.5"]},
    {"metric":{"__name__":"node_cpu_seconds_total","cpu":"0","mode":"idle"},"value":[1733.5,"1e3"]},
    {"metric":{"__name__":"node_load1"},"value":[1733.5,"NaN"]},
    {"metric":{"mode":"no name"},"value":[1733.5,"1"]},
    {"metric":{"__name__":"no_value"}}
  ]},"warnings":["x"]})";
  auto snap = parse_vector_answer(body, 42);
  ASSERT_TRUE(snap) << snap.error();
  const model::Snapshot& s = **snap;
  EXPECT_EQ(s.timestamp_ms, 42);
  ASSERT_EQ(s.families.size(), 3u);  // the nameless and valueless series left out
  const model::Family* util = s.find("DCGM_FI_DEV_GPU_UTIL");
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->label_names, (std::vector<std::string>{"UUID", "gpu"}));
  ASSERT_EQ(util->series.size(), 2u);
  EXPECT_EQ(util->series[1].label_values, (std::vector<std::string>{"GPU-a", "0"}));
  EXPECT_EQ(util->series[1].value, 12.5);
  EXPECT_EQ(util->type, model::MetricType::kGauge);
  const model::Family* cpu = s.find("node_cpu_seconds_total");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->type, model::MetricType::kCounter);
  EXPECT_EQ(cpu->series[0].value, 1000);
  EXPECT_TRUE(std::isnan(s.find("node_load1")->series[0].value));
  // order sorts by name.
  ASSERT_EQ(s.order.size(), 3u);
  EXPECT_EQ(s.families[s.order[0]].name, "DCGM_FI_DEV_GPU_UTIL");
  EXPECT_EQ(s.families[s.order[2]].name, "node_load1");
}

TEST(TopVectorAnswer, KeysNamedLikeTheOnesReadElsewhereAreIgnored) {
  // "metric" and "value" outside data.result, and nested inside a label-less
  // extra field, are not series.
  const std::string body = R"({"metric":{"__name__":"x"},"value":[1,"2"],"data":{"resultType":"vector",
    "stats":{"metric":{"__name__":"y"},"value":[1,"3"]},"result":[]}})";
  auto snap = parse_vector_answer(body, 0);
  ASSERT_TRUE(snap) << snap.error();
  EXPECT_TRUE((*snap)->families.empty());
}

TEST(TopVectorAnswer, InvalidJsonIsAnError) {
  EXPECT_FALSE(parse_vector_answer(R"({"data":{"result":[{"metric":)", 0));
  EXPECT_FALSE(parse_vector_answer("not json", 0));
  EXPECT_FALSE(parse_vector_answer("", 0));
}

}  // namespace
}  // namespace llmon::app
