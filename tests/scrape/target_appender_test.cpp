#include "scrape/target_appender.h"

#include <gtest/gtest.h>

#include "model/sample.h"
#include "tsdb/head.h"

namespace llmon::scrape {
namespace {

using Type = model::Matcher::Type;

// All samples of the one series matching `ms`.
std::vector<model::Sample> samples(storage::Storage& st, std::vector<model::Matcher> ms,
                                   model::Labels* labels = nullptr) {
  auto q = st.querier(0, INT64_MAX);
  auto set = (*q)->select(0, INT64_MAX, ms);
  std::vector<model::Sample> out;
  if (!set->next()) return out;
  if (labels) *labels = set->at().labels();
  auto it = set->at().iterator();
  while (it->next()) out.push_back(it->at());
  EXPECT_FALSE(set->next()) << "more than one series";
  return out;
}

std::vector<model::Sample> by_name(storage::Storage& st, const std::string& name, model::Labels* l = nullptr) {
  return samples(st, {{Type::kEq, "__name__", name}}, l);
}

const std::vector<model::Label> kTarget{{"instance", "127.0.0.1:8000"}, {"job", "vllm"}};

TEST(TargetAppender, AppendsWithTargetLabelsAndReports) {
  tsdb::Head head;
  TargetAppender a(head, kTarget, {}, nullptr);
  auto r = a.append("# TYPE q gauge\nq{model=\"m\"} 3\nr 1\n", "text/plain", 1000, 0.25, nullptr);
  EXPECT_TRUE(r.up) << r.error;
  EXPECT_EQ(r.samples_scraped, 2u);
  EXPECT_EQ(r.series_added, 2u);
  model::Labels l;
  auto q = by_name(head, "q", &l);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].t_ms, 1000);
  EXPECT_EQ(l.to_string(), "{__name__=\"q\", instance=\"127.0.0.1:8000\", job=\"vllm\", model=\"m\"}");
  EXPECT_EQ(by_name(head, "up").at(0).v, 1);
  EXPECT_EQ(by_name(head, "scrape_duration_seconds").at(0).v, 0.25);
  EXPECT_EQ(by_name(head, "scrape_samples_scraped").at(0).v, 2);
  EXPECT_EQ(by_name(head, "scrape_samples_post_metric_relabeling").at(0).v, 2);
  EXPECT_EQ(by_name(head, "scrape_series_added").at(0).v, 2);
  EXPECT_EQ(a.metadata().at("q").type, "gauge");

  // Next page: r is gone (stale marker), q repeats (no new series).
  r = a.append("q{model=\"m\"} 4\n", "text/plain", 2000, 0.1, nullptr);
  EXPECT_EQ(r.series_added, 0u);
  EXPECT_EQ(r.stale_markers, 1u);
  auto rs = by_name(head, "r");
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_TRUE(model::is_stale(rs[1].v));
  EXPECT_EQ(rs[1].t_ms, 2000);
  EXPECT_EQ(by_name(head, "scrape_series_added").at(1).v, 0);
}

TEST(TargetAppender, ExposedLabelsThatCollideAreExportedUnlessHonored) {
  tsdb::Head head;
  TargetAppender plain(head, kTarget, {}, nullptr);
  plain.append("a{job=\"train\",exported_job=\"x\"} 1\n", "", 1000, 0, nullptr);
  model::Labels l;
  by_name(head, "a", &l);
  EXPECT_EQ(l.get("job"), "vllm");
  EXPECT_EQ(l.get("exported_exported_job"), "train");
  EXPECT_EQ(l.get("exported_job"), "x");

  tsdb::Head head2;
  AppendOptions honor;
  honor.honor_labels = true;
  TargetAppender h(head2, kTarget, honor, nullptr);
  h.append("a{job=\"train\"} 1\n", "", 1000, 0, nullptr);
  by_name(head2, "a", &l);
  EXPECT_EQ(l.get("job"), "train");
  EXPECT_EQ(l.get("instance"), "127.0.0.1:8000");
}

TEST(TargetAppender, MetricRelabelling) {
  RelabelConfig drop;
  drop.action = RelabelAction::kDrop;
  drop.source_labels = {"__name__"};
  drop.regex = "go_.*";
  RelabelConfig rename;
  rename.source_labels = {"__name__"};
  rename.regex = "vllm:(.*)";
  rename.target_label = "__name__";
  rename.replacement = "vllm_$1";
  auto rules = Relabeler::compile({drop, rename});
  ASSERT_TRUE(rules.has_value()) << rules.error();
  tsdb::Head head;
  TargetAppender a(head, kTarget, {}, &*rules);
  auto r = a.append("go_goroutines 9\nvllm:x 2\n", "", 1000, 0, nullptr);
  EXPECT_EQ(r.samples_scraped, 2u);
  EXPECT_EQ(r.samples_post_relabel, 1u);
  EXPECT_TRUE(by_name(head, "go_goroutines").empty());
  EXPECT_EQ(by_name(head, "vllm_x").size(), 1u);
  // Cached drops stay dropped on the next page.
  r = a.append("go_goroutines 9\nvllm:x 3\n", "", 2000, 0, nullptr);
  EXPECT_EQ(r.samples_post_relabel, 1u);
  EXPECT_EQ(by_name(head, "vllm_x").size(), 2u);
}

TEST(TargetAppender, TimestampsHonouredOrNot) {
  tsdb::Head head;
  TargetAppender a(head, kTarget, {}, nullptr);
  a.append("a 1 500\n", "", 1000, 0, nullptr);
  EXPECT_EQ(by_name(head, "a").at(0).t_ms, 500);
  // Series with their own timestamps get no staleness marker.
  auto r = a.append("b 1\n", "", 2000, 0, nullptr);
  EXPECT_EQ(r.stale_markers, 0u);

  tsdb::Head head2;
  AppendOptions o;
  o.honor_timestamps = false;
  TargetAppender b(head2, kTarget, o, nullptr);
  b.append("a 1 500\n", "", 1000, 0, nullptr);
  EXPECT_EQ(by_name(head2, "a").at(0).t_ms, 1000);
}

TEST(TargetAppender, FailedScrapesRollBackAndMarkStale) {
  tsdb::Head head;
  AppendOptions o;
  o.sample_limit = 2;
  TargetAppender a(head, kTarget, o, nullptr);
  ASSERT_TRUE(a.append("a 1\nb 1\n", "", 1000, 0, nullptr).up);
  auto r = a.append("a 2\nb 2\nc 2\n", "", 2000, 0, nullptr);
  EXPECT_FALSE(r.up);
  EXPECT_EQ(r.error, "sample limit exceeded");
  EXPECT_EQ(r.samples_scraped, 3u);
  auto as = by_name(head, "a");
  ASSERT_EQ(as.size(), 2u);
  EXPECT_TRUE(model::is_stale(as[1].v));  // value 2 rolled back; the marker took its place
  EXPECT_TRUE(by_name(head, "c").empty());
  EXPECT_EQ(by_name(head, "up").at(1).v, 0);

  // A fetch error: up 0, nothing else (the series are already stale).
  const std::string err = "connection refused";
  r = a.append({}, {}, 3000, 0.01, &err);
  EXPECT_FALSE(r.up);
  EXPECT_EQ(r.error, "connection refused");
  EXPECT_EQ(r.stale_markers, 0u);
  // Recovery: the series come back.
  EXPECT_TRUE(a.append("a 5\n", "", 4000, 0, nullptr).up);
  EXPECT_EQ(by_name(head, "a").back().v, 5);
}

TEST(TargetAppender, ParseErrorsAndLabelLimitsFailTheScrape) {
  tsdb::Head head;
  AppendOptions o;
  o.label_limit = 3;
  o.label_value_length_limit = 5;
  TargetAppender a(head, kTarget, o, nullptr);
  auto r = a.append("a{x=\"1\"} 1\n", "", 1000, 0, nullptr);
  EXPECT_FALSE(r.up);
  EXPECT_NE(r.error.find("label_limit exceeded (metric: a{x=\"1\"}, number of labels: 4, limit: 3)"), std::string::npos)
      << r.error;
  tsdb::Head head2;
  AppendOptions o2;
  o2.label_value_length_limit = 5;
  TargetAppender b(head2, kTarget, o2, nullptr);
  r = b.append("a 1\n", "", 1000, 0, nullptr);
  EXPECT_FALSE(r.up);  // instance's value is 14 bytes
  EXPECT_NE(r.error.find("label_value_length_limit exceeded"), std::string::npos) << r.error;
  tsdb::Head head3;
  TargetAppender c(head3, kTarget, {}, nullptr);
  r = c.append("a 1\nb{ 2\n", "", 1000, 0, nullptr);
  EXPECT_FALSE(r.up);
  EXPECT_NE(r.error.find("line 2"), std::string::npos) << r.error;
  EXPECT_TRUE(by_name(head3, "a").empty());
}

TEST(TargetAppender, StopMarksEverythingStale) {
  tsdb::Head head;
  TargetAppender a(head, kTarget, {}, nullptr);
  a.append("a 1\n", "", 1000, 0, nullptr);
  a.stop(2000);
  EXPECT_TRUE(model::is_stale(by_name(head, "a").back().v));
  EXPECT_TRUE(model::is_stale(by_name(head, "up").back().v));
  EXPECT_TRUE(model::is_stale(by_name(head, "scrape_series_added").back().v));
}

TEST(TargetAppender, OpenMetricsPage) {
  tsdb::Head head;
  TargetAppender a(head, kTarget, {}, nullptr);
  auto r = a.append("# TYPE c counter\nc_total 3 1.5 # {t=\"x\"} 1\nc_created 1\n# EOF\n",
                    "application/openmetrics-text; version=1.0.0", 5000, 0, nullptr);
  ASSERT_TRUE(r.up) << r.error;
  EXPECT_EQ(by_name(head, "c_total").at(0).t_ms, 1500);
  EXPECT_EQ(by_name(head, "c_created").at(0).v, 1);
}

}  // namespace
}  // namespace llmon::scrape
