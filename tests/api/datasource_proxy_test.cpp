// api/datasource_proxy.h's scope_query: the fleet view's node picker adds
// {label="value"} to every selector of a query, wherever it is.
#include "api/datasource_proxy.h"

#include <gtest/gtest.h>

namespace llmon::api {
namespace {

std::string scoped(std::string_view q) {
  auto r = scope_query(q, "instance", "gpu07:8747");
  EXPECT_TRUE(r) << q << ": " << r.error();
  return r ? *r : "";
}

TEST(DatasourceScope, EverySelectorGetsTheNode) {
  EXPECT_EQ(scoped("up"), "up{instance=\"gpu07:8747\"}");
  EXPECT_EQ(scoped("rate(node_cpu_seconds_total{mode=\"idle\"}[1m])"),
            "rate(node_cpu_seconds_total{instance=\"gpu07:8747\",mode=\"idle\"}[1m])");
  // An existing matcher on the label is replaced, not and-ed (a node cannot
  // read another node's series by asking for them).
  EXPECT_EQ(scoped("DCGM_FI_DEV_GPU_UTIL{instance=~\".+\"}"), "DCGM_FI_DEV_GPU_UTIL{instance=\"gpu07:8747\"}");
  EXPECT_EQ(scoped("sum by (gpu) (a) / on (gpu) group_left () b offset 5m"),
            "sum by (gpu) (a{instance=\"gpu07:8747\"}) / on (gpu) group_left () b{instance=\"gpu07:8747\"} offset 5m");
  EXPECT_EQ(scoped("max_over_time((x - 1)[5m:1m]) or vector(0)"),
            "max_over_time((x{instance=\"gpu07:8747\"} - 1)[5m:1m]) or vector(0)");
  EXPECT_EQ(scoped("topk(3, -label_replace(y, \"a\", \"$1\", \"b\", \"(.*)\"))"),
            "topk(3, -label_replace(y{instance=\"gpu07:8747\"}, \"a\", \"$1\", \"b\", \"(.*)\"))");
  EXPECT_EQ(scoped("{__name__=~\"DCGM_.*\"}"), "{__name__=~\"DCGM_.*\",instance=\"gpu07:8747\"}");
  EXPECT_EQ(scoped("1 + 2"), "1 + 2");
}

TEST(DatasourceScope, ValuesAreQuotedAndErrorsWordedAsPrometheus) {
  auto r = scope_query("up", "node", "a\"b\\c");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, "up{node=\"a\\\"b\\\\c\"}");
  auto bad = scope_query("sum(", "instance", "x");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("parse error"), std::string::npos) << bad.error();
}

}  // namespace
}  // namespace llmon::api
