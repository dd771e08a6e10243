#include "exposition/text_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "model/snapshot_builder.h"

namespace llmon::exposition {
namespace {

std::string fmt(double v) {
  std::string s;
  append_value(s, v);
  return s;
}

TEST(AppendValue, MatchesGoStrconvShortestG) {
  EXPECT_EQ(fmt(0), "0");
  EXPECT_EQ(fmt(1), "1");
  EXPECT_EQ(fmt(0.5), "0.5");
  EXPECT_EQ(fmt(100000), "100000");
  EXPECT_EQ(fmt(1e6), "1e+06");
  EXPECT_EQ(fmt(1234567), "1.234567e+06");
  EXPECT_EQ(fmt(16560463872.0), "1.6560463872e+10");
  EXPECT_EQ(fmt(0.0001), "0.0001");
  EXPECT_EQ(fmt(0.00001), "1e-05");
  EXPECT_EQ(fmt(-2.5), "-2.5");
  EXPECT_EQ(fmt(123.456), "123.456");
  EXPECT_EQ(fmt(1.5e-300), "1.5e-300");
  EXPECT_EQ(fmt(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(fmt(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(fmt(std::nan("")), "NaN");
}

TEST(WritePage, TextAndOpenMetrics) {
  model::Snapshot snap;
  model::SnapshotBuilder b(snap, 1000);
  b.family("z_total", "Counter \\ with\nnewline.", model::MetricType::kCounter, {"a"}).add({"x\"y\\z\nw"}, 3);
  b.family("a_gauge", "A gauge.", model::MetricType::kGauge).add(1.5);
  b.family("empty", "Nothing.", model::MetricType::kGauge);
  b.finish();
  std::string text;
  write_page(snap, Format::kText004, text);
  EXPECT_EQ(text,
            "# HELP a_gauge A gauge.\n# TYPE a_gauge gauge\na_gauge 1.5\n"
            "# HELP z_total Counter \\\\ with\\nnewline.\n# TYPE z_total counter\n"
            "z_total{a=\"x\\\"y\\\\z\\nw\"} 3\n");
  std::string om;
  write_page(snap, Format::kOpenMetrics100, om);
  EXPECT_EQ(om,
            "# HELP a_gauge A gauge.\n# TYPE a_gauge gauge\na_gauge 1.5\n"
            "# HELP z Counter \\\\ with\\nnewline.\n# TYPE z counter\n"
            "z_total{a=\"x\\\"y\\\\z\\nw\"} 3\n# EOF\n");
}

TEST(Negotiate, PicksHighestSupported) {
  EXPECT_EQ(negotiate(""), Format::kText004);
  EXPECT_EQ(negotiate("text/plain"), Format::kText004);
  EXPECT_EQ(negotiate("application/openmetrics-text; version=1.0.0"), Format::kOpenMetrics100);
  EXPECT_EQ(negotiate("application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,"
                      "application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;"
                      "escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1"),
            Format::kOpenMetrics100);
  EXPECT_EQ(negotiate("application/openmetrics-text;version=1.0.0;q=0.1,text/plain;q=0.9"), Format::kText004);
  EXPECT_EQ(negotiate("application/openmetrics-text;version=9.9.9"), Format::kText004);
  EXPECT_EQ(negotiate(";;;,,,q=abc"), Format::kText004);
  EXPECT_EQ(negotiate("application/openmetrics-text;q=0"), Format::kText004);
}

}  // namespace
}  // namespace llmon::exposition
