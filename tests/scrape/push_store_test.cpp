// The push store (scrape/push_store.h, push_path.h, push_family.h). The
// expected texts are what Prometheus Pushgateway 1.5.1 (Debian) answered and
// showed for the same requests, with our clock's times in place of its.
#include "scrape/push_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "exposition/text_writer.h"
#include "model/snapshot_builder.h"
#include "scrape/push_request.h"

namespace llmon::scrape {
namespace {

GroupingKey key(const std::string& path) {
  auto k = parse_push_path(path);
  EXPECT_TRUE(k.has_value()) << path << ": " << k.error();
  return k ? *k : GroupingKey{};
}

bool is_timestamp_name(std::string_view n) {
  return n == kPushTimeMetric || n == kPushFailureTimeMetric;
}

std::string page(const PushStore& s) {
  std::string out;
  write_push_page(s.families(), out);
  return out;
}

// --- paths ---

TEST(PushPath, Routes) {
  EXPECT_TRUE(is_push_path("/metrics/job/j"));
  EXPECT_TRUE(is_push_path("/metrics/job/j/"));
  EXPECT_TRUE(is_push_path("/metrics/job/j/a/b"));
  EXPECT_TRUE(is_push_path("/metrics/job@base64/am9i"));
  EXPECT_FALSE(is_push_path("/metrics/job@base64/"));  // Pushgateway: 404
  EXPECT_FALSE(is_push_path("/metrics/job/"));
  EXPECT_FALSE(is_push_path("/metrics/job//a/b"));
  EXPECT_FALSE(is_push_path("/metrics/jobs/j"));
  EXPECT_FALSE(is_push_path("/metrics"));
}

TEST(PushPath, GroupingKeys) {
  EXPECT_EQ(key("/metrics/job/j1/instance/i1").labels, (std::vector<model::Label>{{"instance", "i1"}, {"job", "j1"}}));
  // job@base64 "job/with/slash", path@base64 "/var/tmp" (unpadded), e@base64 "=" (empty).
  EXPECT_EQ(key("/metrics/job@base64/am9iL3dpdGgvc2xhc2g=/path@base64/L3Zhci90bXA/e@base64/=").labels,
            (std::vector<model::Label>{{"e", ""}, {"job", "job/with/slash"}, {"path", "/var/tmp"}}));
  // A trailing slash: no labels; "/a/" is a="".
  EXPECT_EQ(key("/metrics/job/j/").labels, (std::vector<model::Label>{{"job", "j"}}));
  EXPECT_EQ(key("/metrics/job/j/a/").labels, (std::vector<model::Label>{{"a", ""}, {"job", "j"}}));
  // A job pair among the labels loses to the job segment.
  EXPECT_EQ(key("/metrics/job/j7/job/zzz").labels, (std::vector<model::Label>{{"job", "j7"}}));
  EXPECT_EQ(key("/metrics/job/j").job(), "j");
}

TEST(PushPath, Errors) {
  auto err = [](const std::string& p) {
    auto k = parse_push_path(p);
    return k ? std::string("<ok>") : k.error();
  };
  EXPECT_EQ(err("/metrics/job/j1/a/b/c"), "odd number of components in label string \"/a/b/c\"");
  EXPECT_EQ(err("/metrics/job/j1/__x/1"), "improper label name \"__x\"");
  EXPECT_EQ(err("/metrics/job/j1/a-b/1"), "improper label name \"a-b\"");
  EXPECT_EQ(err("/metrics/job/j1//1"), "improper label name \"\"");
  EXPECT_EQ(err("/metrics/job/j8/x@base64/!!"),
            "invalid base64 encoding for label x=\"!!\": illegal base64 data at input byte 0");
  EXPECT_EQ(err("/metrics/job@base64/!!"),
            "invalid base64 encoding in job name \"\": illegal base64 data at input byte 0");
  EXPECT_EQ(err("/metrics/job@base64/="), "job name is required");
}

TEST(PushPath, PercentEscapes) {
  // Undone before routing, as Go's server does: an escaped '/' still splits,
  // '+' stays (prometheus_client's quote_plus writes a space so).
  EXPECT_EQ(key("/metrics/job/j/site/z%C3%BCrich+west").labels,
            (std::vector<model::Label>{{"job", "j"}, {"site", "z\xc3\xbcrich+west"}}));
  EXPECT_EQ(parse_push_path("/metrics/job/j/a/x%2Fy").error(), "odd number of components in label string \"/a/x/y\"");
  EXPECT_EQ(parse_push_path("/metrics/job/j/a/%zz").error(), "invalid URL escape \"%zz\"");
  EXPECT_EQ(parse_push_path("/metrics/job/j/a/b%4").error(), "invalid URL escape \"%4\"");
  EXPECT_FALSE(is_push_path("/metrics/job/%"));
  EXPECT_TRUE(is_push_path("/metrics/job/%6A"));
  EXPECT_EQ(push_path(GroupingKey{{{"job", "j k"}, {"site", "zürich"}}}), "/metrics/job/j%20k/site/z%C3%BCrich");
  EXPECT_EQ(key(push_path(GroupingKey{{{"job", "j k"}, {"site", "zürich"}}})).labels,
            (std::vector<model::Label>{{"job", "j k"}, {"site", "zürich"}}));
}

TEST(PushPath, Base64AndRoundTrip) {
  EXPECT_EQ(*decode_base64url("L3Zhci90bXA"), "/var/tmp");
  EXPECT_EQ(*decode_base64url("L3Zhci90bXA="), "/var/tmp");
  EXPECT_EQ(*decode_base64url("-_8"), "\xfb\xff");  // URL-safe alphabet
  EXPECT_EQ(*decode_base64url("="), "");
  EXPECT_EQ(decode_base64url("abcde").error(), "illegal base64 data at input byte 4");
  EXPECT_EQ(encode_base64url("/var/tmp"), "L3Zhci90bXA");
  GroupingKey k{{{"e", ""}, {"instance", "a/b"}, {"job", "x/y"}, {"zone", "eu"}}};
  EXPECT_EQ(push_path(k), "/metrics/job@base64/eC95/e@base64/=/instance@base64/YS9i/zone/eu");
  EXPECT_EQ(key(push_path(k)), k);
}

// --- the store, against what Pushgateway 1.5.1 did ---

TEST(PushStore, PushesAsPushgatewayShowsThem) {
  base::ManualClock clock(1796289261922);
  PushStore s(clock);
  EXPECT_TRUE(s.push(key("/metrics/job/j1/instance/i1"),
                     "# TYPE foo counter\n# HELP foo Foo help.\nfoo{job=\"other\",a=\"1\"} 3\nbar 1.5\n",
                     PushMode::kReplaceGroup));
  clock.advance_ms(14);
  EXPECT_EQ(
      s.push(key("/metrics/job/j1/instance/i2"), "foo 1 1700000000000\n", PushMode::kReplaceGroup).message(),
      "pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have timestamps");
  clock.advance_ms(13);
  EXPECT_EQ(s.push(key("/metrics/job/j2"), "# TYPE foo gauge\nfoo 2\n", PushMode::kReplaceGroup).message(),
            "pushed metrics are invalid or inconsistent with existing metrics: collected metric \"foo\" { "
            "label:<name:\"instance\" value:\"\" > label:<name:\"job\" value:\"j2\" > gauge:<value:2 > } is not a "
            "COUNTER");
  clock.advance_ms(11);
  EXPECT_EQ(s.push(key("/metrics/job/j3"), "foo 2\n", PushMode::kReplaceGroup).message(),
            "pushed metrics are invalid or inconsistent with existing metrics: collected metric \"foo\" { "
            "label:<name:\"instance\" value:\"\" > label:<name:\"job\" value:\"j3\" > untyped:<value:2 > } is not a "
            "COUNTER");
  clock.advance_ms(11);
  EXPECT_TRUE(s.push(key("/metrics/job@base64/am9iL3dpdGgvc2xhc2g=/path@base64/L3Zhci90bXA/e@base64/="), "baz 2\n",
                     PushMode::kReplaceGroup));
  clock.advance_ms(10);
  EXPECT_TRUE(s.push(key("/metrics/job/hist"),
                     "# TYPE h histogram\nh_bucket{le=\"1\"} 1.7\nh_bucket{le=\"+Inf\"} 3\nh_sum 4.5\nh_count 3\n"
                     "# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 2\ns_count 2.5\n",
                     PushMode::kReplaceGroup));
  clock.advance_ms(10);
  EXPECT_TRUE(s.push(key("/metrics/job/empty"), "", PushMode::kReplaceGroup));
  // Refused before the store is touched: no push_failure_time_seconds.
  EXPECT_EQ(s.push(key("/metrics/job/j1"), "x 1", PushMode::kReplaceFamilies).message(),
            "text format parsing error in line 1: unexpected end of input stream");

  EXPECT_EQ(page(s), R"(# TYPE bar untyped
bar{instance="i1",job="j1"} 1.5
# TYPE baz untyped
baz{e="",instance="",job="job/with/slash",path="/var/tmp"} 2
# HELP foo Foo help.
# TYPE foo counter
foo{a="1",instance="i1",job="j1"} 3
# TYPE h histogram
h_bucket{instance="",job="hist",le="1"} 1
h_bucket{instance="",job="hist",le="+Inf"} 3
h_sum{instance="",job="hist"} 4.5
h_count{instance="",job="hist"} 3
# HELP push_failure_time_seconds Last Unix time when changing this group in the Pushgateway failed.
# TYPE push_failure_time_seconds gauge
push_failure_time_seconds{instance="",job="empty"} 0
push_failure_time_seconds{instance="",job="hist"} 0
push_failure_time_seconds{instance="",job="j2"} 1.796289261949e+09
push_failure_time_seconds{instance="",job="j3"} 1.79628926196e+09
push_failure_time_seconds{instance="i1",job="j1"} 0
push_failure_time_seconds{instance="i2",job="j1"} 1.796289261936e+09
push_failure_time_seconds{e="",instance="",job="job/with/slash",path="/var/tmp"} 0
# HELP push_time_seconds Last Unix time when changing this group in the Pushgateway succeeded.
# TYPE push_time_seconds gauge
push_time_seconds{instance="",job="empty"} 1.796289261991e+09
push_time_seconds{instance="",job="hist"} 1.796289261981e+09
push_time_seconds{instance="",job="j2"} 0
push_time_seconds{instance="",job="j3"} 0
push_time_seconds{instance="i1",job="j1"} 1.796289261922e+09
push_time_seconds{instance="i2",job="j1"} 0
push_time_seconds{e="",instance="",job="job/with/slash",path="/var/tmp"} 1.796289261971e+09
# TYPE s summary
s{instance="",job="hist",quantile="0.5"} 1
s_sum{instance="",job="hist"} 2
s_count{instance="",job="hist"} 2
)");
  EXPECT_EQ(s.group_count(), 7u);
}

TEST(PushStore, PutReplacesGroupPostReplacesFamiliesDeleteDrops) {
  base::ManualClock clock(1000);
  PushStore s(clock);
  const GroupingKey k = key("/metrics/job/batch");
  ASSERT_TRUE(s.push(k, "a 1\nb 2\n", PushMode::kReplaceGroup));
  clock.set_ms(2000);
  ASSERT_TRUE(s.push(k, "b 3\nc 4\n", PushMode::kReplaceFamilies));  // a stays
  auto names = [&] {
    std::string out;
    for (const auto& f : s.families()) {
      out += f.name;
      if (!is_timestamp_name(f.name)) out += "=" + std::to_string(static_cast<int>(f.metrics[0].value));
      out += " ";
    }
    return out;
  };
  EXPECT_EQ(names(), "a=1 b=3 c=4 push_failure_time_seconds push_time_seconds ");
  clock.set_ms(3000);
  ASSERT_TRUE(s.push(k, "d 5\n", PushMode::kReplaceGroup));
  EXPECT_EQ(names(), "d=5 push_failure_time_seconds push_time_seconds ");
  // Family push times: what an API shows per family.
  auto groups = s.groups();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].families.at("d").pushed_ms, 3000);
  EXPECT_EQ(groups[0].families.at("push_time_seconds").family.metrics[0].value, 3.0);
  // An empty PUT empties the group but keeps it, push times updated.
  clock.set_ms(4000);
  ASSERT_TRUE(s.push(k, "", PushMode::kReplaceGroup));
  EXPECT_EQ(names(), "push_failure_time_seconds push_time_seconds ");
  EXPECT_EQ(s.groups()[0].families.at("push_time_seconds").family.metrics[0].value, 4.0);
  const uint64_t gen = s.generation();
  s.remove(k);
  EXPECT_EQ(s.group_count(), 0u);
  EXPECT_GT(s.generation(), gen);
  s.remove(k);  // nothing there: fine
  EXPECT_TRUE(s.families().empty());
}

TEST(PushStore, DuplicateSeriesInOnePush) {
  base::ManualClock clock(1000);
  PushStore s(clock);
  EXPECT_EQ(s.push(key("/metrics/job/j5"), "dup{a=\"1\"} 1\ndup{a=\"1\"} 2\n", PushMode::kReplaceFamilies).message(),
            "pushed metrics are invalid or inconsistent with existing metrics: collected metric \"dup\" { "
            "label:<name:\"a\" value:\"1\" > label:<name:\"instance\" value:\"\" > label:<name:\"job\" value:\"j5\" > "
            "untyped:<value:2 > } was collected before with the same name and label values");
}

TEST(PushStore, EmptyInstanceGroupCollidesWithoutPoisoningTheStore) {
  base::ManualClock clock(1000);
  PushStore s(clock);
  ASSERT_TRUE(s.push(key("/metrics/job/j6/instance@base64/="), "q 1\n", PushMode::kReplaceFamilies));
  // {job=j6} exposes the same series as {job=j6,instance=""}: Pushgateway
  // refuses it with these three errors (in its map order).
  EXPECT_EQ(s.push(key("/metrics/job/j6"), "q 1\n", PushMode::kReplaceFamilies).message(),
            "pushed metrics are invalid or inconsistent with existing metrics: 3 error(s) occurred:\n"
            "* collected metric \"push_failure_time_seconds\" { label:<name:\"instance\" value:\"\" > "
            "label:<name:\"job\" value:\"j6\" > gauge:<value:0 > } was collected before with the same name and label "
            "values\n"
            "* collected metric \"push_time_seconds\" { label:<name:\"instance\" value:\"\" > label:<name:\"job\" "
            "value:\"j6\" > gauge:<value:1 > } was collected before with the same name and label values\n"
            "* collected metric \"q\" { label:<name:\"instance\" value:\"\" > label:<name:\"job\" value:\"j6\" > "
            "untyped:<value:1 > } was collected before with the same name and label values");
  // Pushgateway would now hold a {job=j6} group with push times that clash
  // forever (every later push and scrape fails); we do not create it.
  EXPECT_EQ(s.group_count(), 1u);
  EXPECT_TRUE(s.push(key("/metrics/job/j10"), "q{instance=\"x\"} 1\n", PushMode::kReplaceFamilies));
  bool found = false;
  for (const auto& f : s.families())
    if (f.name == "q") found = f.metrics.size() == 2 && f.metrics[1].labels[0].value == "x";
  EXPECT_TRUE(found);
}

TEST(PushStore, IndexFollowsDeletesReplacesAndLoads) {
  base::ManualClock clock(1000);
  PushStore s(clock);
  const GroupingKey empty_instance = key("/metrics/job/j6/instance@base64/=");
  const GroupingKey plain = key("/metrics/job/j6");
  ASSERT_TRUE(s.push(empty_instance, "q 1\n", PushMode::kReplaceFamilies));
  EXPECT_FALSE(s.push(plain, "r 1\n", PushMode::kReplaceFamilies));  // push times clash
  // Deleting the other group frees its series.
  s.remove(empty_instance);
  ASSERT_TRUE(s.push(plain, "q 1\n", PushMode::kReplaceFamilies));
  // A family type is free again once PUT replaced the group without it.
  EXPECT_FALSE(s.push(key("/metrics/job/other"), "# TYPE q counter\nq 1\n", PushMode::kReplaceFamilies));
  ASSERT_TRUE(s.push(plain, "", PushMode::kReplaceGroup));
  EXPECT_TRUE(s.push(key("/metrics/job/other"), "# TYPE q counter\nq 1\n", PushMode::kReplaceFamilies));
  // POST over the group's own family of another type is no clash.
  EXPECT_TRUE(s.push(key("/metrics/job/other"), "# TYPE q gauge\nq 2\n", PushMode::kReplaceFamilies));
  // After a save and load the index is rebuilt: the clash is seen again.
  const std::string file = ::testing::TempDir() + "push_index_" + std::to_string(::getpid()) + ".json";
  ASSERT_TRUE(s.save(file));
  PushStore t(clock);
  ASSERT_TRUE(t.load(file));
  EXPECT_FALSE(t.push(key("/metrics/job/third"), "# TYPE q counter\nq 1\n", PushMode::kReplaceFamilies));
  EXPECT_TRUE(t.push(key("/metrics/job/third"), "# TYPE q gauge\nq 1\n", PushMode::kReplaceFamilies));
  t.wipe();
  EXPECT_TRUE(t.push(key("/metrics/job/third"), "# TYPE q counter\nq 1\n", PushMode::kReplaceFamilies));
  std::remove(file.c_str());
}

TEST(PushRequest, StatusesAsPushgateway) {
  base::ManualClock clock(1000);
  PushStore s(clock);
  auto r = handle_push_request(s, "PUT", "/metrics/job/x", "x 1\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  r = handle_push_request(s, "PUT", "/metrics/job/x", "x 1");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, "text format parsing error in line 1: unexpected end of input stream\n");
  r = handle_push_request(s, "POST", "/metrics/job/x/a/b/c", "x 1\n");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, "odd number of components in label string \"/a/b/c\"\n");
  r = handle_push_request(s, "GET", "/metrics/job/x", "");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body, "Method Not Allowed\n");
  EXPECT_EQ(r.allow, "DELETE, OPTIONS, POST, PUT");
  r = handle_push_request(s, "OPTIONS", "/metrics/job/x", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.allow, "DELETE, OPTIONS, POST, PUT");
  r = handle_push_request(s, "PUT", "/metrics/job@base64/", "");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "404 page not found\n");
  EXPECT_EQ(s.group_count(), 1u);
  r = handle_push_request(s, "DELETE", "/metrics/job/x", "");
  EXPECT_EQ(r.status, 202);
  EXPECT_EQ(s.group_count(), 0u);
  EXPECT_EQ(handle_push_request(s, "DELETE", "/metrics/job/x", "").status, 202);
}

TEST(PushStore, SuffixCollisions) {
  base::ManualClock clock(1000);
  PushStore s(clock);
  ASSERT_TRUE(s.push(key("/metrics/job/hist"),
                     "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n"
                     "# TYPE s summary\ns_sum 2\ns_count 2\n",
                     PushMode::kReplaceGroup));
  const std::string prefix = "pushed metrics are invalid or inconsistent with existing metrics: ";
  EXPECT_EQ(s.push(key("/metrics/job/j9"), "h_count 1\n", PushMode::kReplaceFamilies).message(),
            prefix + "collected metric named \"h_count\" collides with previously collected histogram named \"h\"");
  EXPECT_EQ(s.push(key("/metrics/job/j9"), "# TYPE s_count counter\ns_count 1\n", PushMode::kReplaceFamilies).message(),
            prefix + "collected metric named \"s_count\" collides with previously collected summary named \"s\"");
  EXPECT_TRUE(s.push(key("/metrics/job/j9"), "s_bucket 1\n", PushMode::kReplaceFamilies));  // summaries have no buckets
  ASSERT_TRUE(s.push(key("/metrics/job/j9"), "h2_bucket 1\n", PushMode::kReplaceFamilies));
  EXPECT_EQ(s.push(key("/metrics/job/j10"), "# TYPE h2 histogram\nh2_count 1\n", PushMode::kReplaceFamilies).message(),
            prefix + "collected histogram named \"h2\" collides with previously collected metric named \"h2_bucket\"");
  EXPECT_EQ(
      s.push(key("/metrics/job/j10"), "# TYPE s_count summary\ns_count_sum 1\n", PushMode::kReplaceFamilies).message(),
      prefix + "collected metric named \"s_count\" collides with previously collected summary named \"s\"");
}

TEST(PushStore, InvalidUtf8GroupingValue) {
  base::ManualClock clock(1000);
  PushStore s(clock);
  GroupingKey k{{{"job", "j"}, {"x", "\xff"}}};
  EXPECT_EQ(s.push(k, "q 1\n", PushMode::kReplaceFamilies).message(),
            "pushed metrics are invalid or inconsistent with existing metrics: 3 error(s) occurred:\n"
            "* collected metric \"push_failure_time_seconds\" { label:<name:\"instance\" value:\"\" > "
            "label:<name:\"job\" value:\"j\" > label:<name:\"x\" value:\"\\377\" > gauge:<value:0 > } has a label "
            "named \"x\" whose value is not utf8: \"\\xff\"\n"
            "* collected metric \"push_time_seconds\" { label:<name:\"instance\" value:\"\" > label:<name:\"job\" "
            "value:\"j\" > label:<name:\"x\" value:\"\\377\" > gauge:<value:1 > } has a label named \"x\" whose value "
            "is not utf8: \"\\xff\"\n"
            "* collected metric \"q\" { label:<name:\"instance\" value:\"\" > label:<name:\"job\" value:\"j\" > "
            "label:<name:\"x\" value:\"\\377\" > untyped:<value:1 > } has a label named \"x\" whose value is not utf8: "
            "\"\\xff\"");
  EXPECT_EQ(s.group_count(), 0u);
}

TEST(PushStore, MergedFamiliesOrderAndHelp) {
  base::ManualClock clock(1000);
  PushStore s(clock);
  ASSERT_TRUE(s.push(key("/metrics/job/b"), "# HELP m first help\nm{z=\"1\"} 1\nm 2\n", PushMode::kReplaceGroup));
  ASSERT_TRUE(s.push(key("/metrics/job/a"), "# HELP m other help\nm 3\n", PushMode::kReplaceGroup));
  std::vector<PushedFamily> fams = s.families();
  ASSERT_EQ(fams[0].name, "m");
  // Help of the first group in key order ({job="a"}); fewer labels first,
  // then values in name order.
  EXPECT_EQ(fams[0].help, "other help");
  std::string out;
  write_push_page({fams[0]}, out);
  EXPECT_EQ(out,
            "# HELP m other help\n# TYPE m untyped\nm{instance=\"\",job=\"a\"} 3\nm{instance=\"\",job=\"b\"} 2\n"
            "m{instance=\"\",job=\"b\",z=\"1\"} 1\n");
}

TEST(PushStore, PushedTimestampFamiliesAreOverwritten) {
  base::ManualClock clock(5000);
  PushStore s(clock);
  ASSERT_TRUE(s.push(key("/metrics/job/j13"), "push_time_seconds 1\n", PushMode::kReplaceFamilies));
  auto g = s.groups();
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].families.at("push_time_seconds").family.type, PushedType::kGauge);
  EXPECT_EQ(g[0].families.at("push_time_seconds").family.metrics[0].value, 5.0);
}

TEST(PushStore, ParseErrorsOfHistogramBounds) {
  base::ManualClock clock(5000);
  PushStore s(clock);
  EXPECT_EQ(
      s.push(key("/metrics/job/x"), "# TYPE h histogram\nh_bucket{le=\"x\"} 1\n", PushMode::kReplaceGroup).message(),
      "text format parsing error: expected float as value for 'le' label, got \"x\"");
  EXPECT_EQ(s.group_count(), 0u);
}

TEST(PushStore, SnapshotFamilies) {
  base::ManualClock clock(1000);
  PushStore s(clock);
  ASSERT_TRUE(s.push(key("/metrics/job/hist"),
                     "# HELP h Latency.\n# TYPE h histogram\nh_bucket{le=\"0.5\"} 1\nh_sum 0.25\nh_count 2\n"
                     "# TYPE c counter\nc{x=\"1\"} 4\nc 5\n",
                     PushMode::kReplaceGroup));
  model::Snapshot snap;
  model::SnapshotBuilder b(snap, 1000);
  add_to_snapshot(s.families(), b, "Pushed.");
  b.finish();
  std::string out;
  exposition::write_page(snap, exposition::Format::kText004, out);
  EXPECT_NE(out.find("# TYPE c counter\nc{instance=\"\",job=\"hist\"} 5\nc{instance=\"\",job=\"hist\",x=\"1\"} 4\n"),
            std::string::npos)
      << out;
  EXPECT_NE(
      out.find(
          "h_bucket{instance=\"\",job=\"hist\",le=\"0.5\"} 1\nh_bucket{instance=\"\",job=\"hist\",le=\"+Inf\"} 2\n"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("# HELP h_sum Latency.\n# TYPE h_sum untyped\nh_sum{instance=\"\",job=\"hist\"} 0.25\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("# HELP push_time_seconds Last Unix time"), std::string::npos) << out;
}

TEST(PushStore, PersistenceRoundTrip) {
  const std::string dir = ::testing::TempDir() + "push_store_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/push.json";
  base::ManualClock clock(1796289261922);
  PushStore s(clock);
  ASSERT_TRUE(s.push(key("/metrics/job/j1/instance/i1"), "# HELP foo Foo help.\n# TYPE foo counter\nfoo 3\nbar NaN\n",
                     PushMode::kReplaceGroup));
  ASSERT_TRUE(s.push(key("/metrics/job/hist/e@base64/="),
                     "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 3\nh_sum -Inf\nh_count 3\n"
                     "# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 2\ns_count 2\n",
                     PushMode::kReplaceGroup));
  s.push(key("/metrics/job/bad"), "x 1 123\n", PushMode::kReplaceGroup);  // a failure time
  ASSERT_TRUE(s.save(file));

  PushStore t(clock);
  ASSERT_TRUE(t.load(file));
  EXPECT_EQ(page(t), page(s));
  EXPECT_EQ(t.group_count(), 3u);
  auto j1 = [](const PushStore& st) {
    for (const auto& g : st.groups())
      if (g.key.job() == "j1") return g;
    return PushGroup{};
  };
  ASSERT_EQ(j1(t).families.count("foo"), 1u);
  EXPECT_EQ(j1(t).families.at("foo").pushed_ms, 1796289261922);
  EXPECT_EQ(j1(t).key, j1(s).key);

  PushStore missing(clock);
  EXPECT_TRUE(missing.load(dir + "/nope.json"));
  EXPECT_EQ(missing.group_count(), 0u);
  {
    FILE* f = std::fopen((dir + "/bad.json").c_str(), "w");
    std::fputs("{\"format\":\"llmon-push-store\",\"version\":1,\"groups\":[{\"labels\":{\"job\":\"x\"}}]}", f);
    std::fclose(f);
  }
  EXPECT_EQ(missing.load(dir + "/bad.json").message(), dir + "/bad.json: group 0: missing \"families\"");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace llmon::scrape
