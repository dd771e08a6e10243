#include "remote/metadata_index.h"

#include <gtest/gtest.h>

namespace llmon::remote {
namespace {

TEST(MetadataIndex, FindsTheFamilyOfASeries) {
  MetadataIndex md({{3, "req_seconds", "Latency.", "seconds"},
                    {1, "req_total", "Requests.", ""},
                    {2, "temp", "Temperature.", ""},
                    {2, "temp", "A later duplicate.", ""},
                    {1, "ops", "Ops.", ""}});
  ASSERT_EQ(md.all().size(), 4u);
  EXPECT_EQ(md.all()[0].family, "ops");              // sorted
  EXPECT_EQ(md.find("temp")->help, "Temperature.");  // the first entry wins
  EXPECT_EQ(md.find("req_seconds_bucket")->type, 3);
  EXPECT_EQ(md.find("req_seconds_sum")->unit, "seconds");
  EXPECT_EQ(md.find("req_seconds_count")->family, "req_seconds");
  EXPECT_EQ(md.find("req_total")->family, "req_total");  // exact before stripping _total
  EXPECT_EQ(md.find("ops_total")->family, "ops");        // OpenMetrics counter family without _total
  EXPECT_EQ(md.find("nope"), nullptr);
  EXPECT_EQ(md.find("_sum"), nullptr);
}

TEST(MetadataIndex, TypeNumbersArePrompbs) {
  EXPECT_EQ(metric_type_number("counter"), 1);
  EXPECT_EQ(metric_type_number("gauge"), 2);
  EXPECT_EQ(metric_type_number("histogram"), 3);
  EXPECT_EQ(metric_type_number("gaugehistogram"), 4);
  EXPECT_EQ(metric_type_number("summary"), 5);
  EXPECT_EQ(metric_type_number("info"), 6);
  EXPECT_EQ(metric_type_number("stateset"), 7);
  EXPECT_EQ(metric_type_number("untyped"), 0);
  EXPECT_EQ(metric_type_number("unknown"), 0);
}

}  // namespace
}  // namespace llmon::remote
