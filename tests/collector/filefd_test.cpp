#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::TempFixture;
using testing::value_of;

TEST(FilefdCollector, FixtureValues) {
  auto c = make_filefd(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_filefd_allocated", {}), 9216);
  EXPECT_EQ(value_of(snap, "node_filefd_maximum", {}), 9223372036854775807.0);
  const model::Family* f = snap.find("node_filefd_maximum");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kGauge);
  EXPECT_EQ(f->help, "File descriptor statistics: maximum.");
  EXPECT_EQ(snap.find("node_filefd_allocated")->help, "File descriptor statistics: allocated.");
}

TEST(FilefdCollector, MissingOrMalformedFileFailsTheCollector) {
  TempFixture fx({});
  auto c = make_filefd(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("couldn't get file-nr"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);

  fx.write("proc/sys/fs/file-nr", "1024\t0\n");
  auto c2 = make_filefd(fx.context());
  s = collect_once(*c2, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(fx.path("proc/sys/fs/file-nr") + ":1:"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);

  fx.write("proc/sys/fs/file-nr", "1024\t0\t8192\n");  // and it recovers
  ASSERT_TRUE(collect_once(*c2, snap, 3000));
  EXPECT_EQ(value_of(snap, "node_filefd_allocated", {}), 1024);
  EXPECT_EQ(value_of(snap, "node_filefd_maximum", {}), 8192);
}

}  // namespace
}  // namespace llmon::collector
