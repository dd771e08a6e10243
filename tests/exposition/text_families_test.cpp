#include "exposition/text_families.h"

#include <gtest/gtest.h>

namespace llmon::exposition {
namespace {

TEST(TextFamilies, HelpTypeAndSamples) {
  auto f = parse_text_families(
      "# HELP apt_upgrades_pending Apt package pending updates by origin.\n"
      "# TYPE apt_upgrades_pending gauge\n"
      "apt_upgrades_pending{arch=\"amd64\",origin=\"Debian\"} 2\n"
      "\n"
      "# a plain comment\n"
      "#TYPE jobs_total COUNTER\n"
      "jobs_total 7\n"
      "untyped 1.5\n"
      "# HELP multi Line one\\nline \\\\two\n"
      "multi 1\n",
      "/x/a.prom");
  ASSERT_TRUE(f) << f.error();
  ASSERT_EQ(f->size(), 4u);
  const TextFamily& apt = (*f)[0];
  EXPECT_EQ(apt.name, "apt_upgrades_pending");
  EXPECT_EQ(apt.help, "Apt package pending updates by origin.");
  EXPECT_EQ(apt.type, TextType::kGauge);
  ASSERT_EQ(apt.samples.size(), 1u);
  EXPECT_EQ(apt.samples[0].labels,
            (std::vector<std::pair<std::string, std::string>>{{"arch", "amd64"}, {"origin", "Debian"}}));
  EXPECT_EQ(apt.samples[0].value, 2);
  EXPECT_EQ((*f)[1].type, TextType::kCounter);
  EXPECT_FALSE((*f)[1].help.has_value());
  EXPECT_EQ((*f)[2].type, TextType::kUntyped);
  EXPECT_EQ((*f)[3].help, "Line one\nline \\two");
}

TEST(TextFamilies, SummaryAndHistogramSamplesJoinTheirFamily) {
  auto f = parse_text_families(
      "# TYPE rpc summary\nrpc{quantile=\"0.5\"} 1\nrpc_sum 10\nrpc_count 3\n"
      "# TYPE lat histogram\nlat_bucket{le=\"+Inf\"} 2\nlat_sum 1\nlat_count 2\n"
      "# TYPE g gauge\ng_sum 1\n",
      "f");
  ASSERT_TRUE(f) << f.error();
  ASSERT_EQ(f->size(), 3u);  // g has no samples of its own: dropped
  EXPECT_EQ((*f)[0].samples.size(), 3u);
  EXPECT_EQ((*f)[0].samples[1].name, "rpc_sum");
  EXPECT_EQ((*f)[1].samples.size(), 3u);
  EXPECT_EQ((*f)[2].name, "g_sum");
  EXPECT_EQ((*f)[2].type, TextType::kUntyped);
}

TEST(TextFamilies, TimestampsAreMarked) {
  auto f = parse_text_families("m 1 1700000000000\n", "f");
  ASSERT_TRUE(f) << f.error();
  EXPECT_TRUE((*f)[0].samples[0].has_timestamp);
}

TEST(TextFamilies, ErrorsNameFileAndLine) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"a 1\nb{x=\"1\" 2\n", "f.prom:2: "},
      {"# TYPE a gauge\n# TYPE a counter\na 1\n", "f.prom:2: second TYPE line for metric name \"a\""},
      {"a 1\n# TYPE a gauge\n", "f.prom:2: second TYPE line for metric name \"a\", or TYPE reported after samples"},
      {"# HELP a x\n# HELP a y\n", "f.prom:2: second HELP line for metric name \"a\""},
      {"# TYPE a gaugey\n", "f.prom:1: unknown metric type \"gaugey\""},
      {"# HELP 1a x\n", "f.prom:1: invalid metric name in comment"},
      {"# HELP a bad \\t escape\n", "f.prom:1: invalid escape sequence '\\t'"},
      {"a 1\nb 2", "f.prom:2: unexpected end of input stream"},
  };
  for (const auto& c : cases) {
    auto f = parse_text_families(c.text, "f.prom");
    ASSERT_FALSE(f) << c.text;
    EXPECT_EQ(f.error().rfind(c.error, 0), 0u) << c.text << " -> " << f.error();
  }
  auto empty = parse_text_families("", "f.prom");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace llmon::exposition
