// Protobuf push bodies (scrape/push_protobuf.h). The refusal texts are what
// Prometheus Pushgateway 1.5.1 (Debian) answered for the same bodies
// (tests/tools/push_proto.py sends them to both in push_prometheus_diff_test).
#include "scrape/push_protobuf.h"

#include <gtest/gtest.h>

#include <string>

#include "base/clock.h"
#include "scrape/push_request.h"
#include "scrape/push_store.h"

namespace llmon::scrape {
namespace {

PushedFamily gauge(const std::string& name, std::vector<model::Label> labels, double v) {
  PushedFamily f;
  f.name = name;
  f.type = PushedType::kGauge;
  PushedMetric m;
  m.labels = std::move(labels);
  m.value = v;
  f.metrics.push_back(std::move(m));
  return f;
}

std::vector<PushedFamily> sample_families() {
  std::vector<PushedFamily> fs;
  PushedFamily c;
  c.name = "req_total";
  c.help = "Requests.";
  c.type = PushedType::kCounter;
  c.metrics.push_back({{{"code", "200"}}, 42, {}, 0, 0});
  fs.push_back(c);
  fs.push_back(gauge("depth", {{"queue", "q1"}}, 3));
  PushedFamily h;
  h.name = "step_seconds";
  h.type = PushedType::kHistogram;
  h.metrics.push_back({{}, 0, {{0.5, 2}, {1, 6}}, 12.5, 10});
  fs.push_back(h);
  PushedFamily s;
  s.name = "rpc_seconds";
  s.help = "";
  s.type = PushedType::kSummary;
  s.metrics.push_back({{{"m", "x"}}, 0, {{0.5, 0.4}, {0.99, 0.9}}, 2, 4});
  fs.push_back(s);
  PushedFamily u;
  u.name = "misc";
  u.type = PushedType::kUntyped;
  u.metrics.push_back({{{"k", "v"}}, -1.5, {}, 0, 0});
  fs.push_back(u);
  return fs;
}

TEST(PushProtobuf, ContentTypes) {
  EXPECT_TRUE(
      is_protobuf_push("application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"));
  EXPECT_TRUE(is_protobuf_push(
      "Application/Vnd.Google.Protobuf;encoding=\"delimited\";PROTO=io.prometheus.client.MetricFamily"));
  EXPECT_FALSE(is_protobuf_push("application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily"));
  EXPECT_FALSE(is_protobuf_push("application/vnd.google.protobuf; encoding=delimited"));
  EXPECT_FALSE(is_protobuf_push("text/plain; version=0.0.4"));
  EXPECT_FALSE(is_protobuf_push(""));
}

TEST(PushProtobuf, RoundTripsEveryType) {
  const auto in = sample_families();
  auto out = parse_protobuf_push(encode_protobuf_push(in));
  ASSERT_TRUE(out.has_value()) << out.error();
  EXPECT_FALSE(out->had_timestamps);
  EXPECT_FALSE(out->problem.has_value());
  ASSERT_EQ(out->families.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const auto& a = in[i];
    const auto& b = out->families[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.help, b.help) << a.name;
    EXPECT_EQ(a.type, b.type) << a.name;
    ASSERT_EQ(a.metrics.size(), b.metrics.size());
    EXPECT_EQ(a.metrics[0].labels, b.metrics[0].labels);
    EXPECT_EQ(a.metrics[0].value, b.metrics[0].value);
    EXPECT_EQ(a.metrics[0].points, b.metrics[0].points);
    EXPECT_EQ(a.metrics[0].sum, b.metrics[0].sum);
    EXPECT_EQ(a.metrics[0].count, b.metrics[0].count);
  }
}

TEST(PushProtobuf, LaterFamilyOfTheSameNameWins) {
  auto body = encode_protobuf_push({gauge("a", {}, 1), gauge("b", {}, 2), gauge("a", {{"x", "y"}}, 3)});
  auto out = parse_protobuf_push(body);
  ASSERT_TRUE(out.has_value()) << out.error();
  ASSERT_EQ(out->families.size(), 2u);
  EXPECT_EQ(out->families[0].name, "a");
  EXPECT_EQ(out->families[0].metrics.at(0).value, 3);
  EXPECT_EQ(out->families[1].name, "b");
}

TEST(PushProtobuf, SkipsUnknownFieldsAndSortsLabels) {
  // MetricFamily{name:"g", type:GAUGE, 99(fixed32), metric{label z, label a, gauge{1}, 42(varint)}}
  std::string metric;
  auto ld = [](int field, const std::string& s) {
    std::string o;
    o.push_back(static_cast<char>(field << 3 | 2));
    o.push_back(static_cast<char>(s.size()));
    return o + s;
  };
  metric += ld(1, ld(1, "z") + ld(2, "1"));
  metric += ld(1, ld(1, "a") + ld(2, "2"));
  std::string one("\x09\x00\x00\x00\x00\x00\x00\xf0\x3f", 9);  // field 1, fixed64 1.0
  metric += ld(2, one);
  metric += std::string("\xd0\x02\x07", 3);  // field 42 varint 7
  std::string fam =
      ld(1, "g") + std::string("\x18\x01", 2) + std::string("\x9d\x06\x01\x02\x03\x04", 6) + ld(4, metric);
  std::string body(1, static_cast<char>(fam.size()));
  body += fam;
  auto out = parse_protobuf_push(body);
  ASSERT_TRUE(out.has_value()) << out.error();
  ASSERT_EQ(out->families.size(), 1u);
  EXPECT_EQ(out->families[0].metrics.at(0).labels, (std::vector<model::Label>{{"a", "2"}, {"z", "1"}}));
  EXPECT_EQ(out->families[0].metrics.at(0).value, 1.0);
}

TEST(PushProtobuf, MalformedBodiesNameTheByte) {
  const std::string body = encode_protobuf_push(sample_families());
  auto cut = parse_protobuf_push(body.substr(0, body.size() - 3));
  ASSERT_FALSE(cut.has_value());
  EXPECT_NE(cut.error().find("at byte"), std::string::npos) << cut.error();
  auto garbage =
      parse_protobuf_push(std::string("\x05"
                                      "abc",
                                      4));
  ASSERT_FALSE(garbage.has_value());
  EXPECT_EQ(garbage.error(), "protobuf body: length-delimited field runs past its message at byte 1");
  auto noname = parse_protobuf_push(std::string("\x02\x18\x01", 3));
  ASSERT_FALSE(noname.has_value());
  EXPECT_NE(noname.error().find("without a name"), std::string::npos) << noname.error();
  auto badtype = parse_protobuf_push(std::string("\x05\x0a\x01g\x18\x09", 6));
  ASSERT_FALSE(badtype.has_value());
  EXPECT_NE(badtype.error().find("unknown metric type 9"), std::string::npos) << badtype.error();
  EXPECT_TRUE(parse_protobuf_push("").has_value());  // an empty push
}

// The three refusals, through the request handler, as Pushgateway answers them.
TEST(PushProtobuf, RefusalsAreTheStoresAndRecordTheFailure) {
  base::ManualClock clock(1'700'000'000'000);
  PushStore store(clock);
  const std::string ct = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";
  // A GAUGE family whose metric holds a counter.
  PushedFamily wrong = gauge("proto_wrong", {}, 1);
  std::string body = encode_protobuf_push({wrong});
  // Rewrite the value's field number (gauge 2 -> counter 3) in the metric.
  const size_t at = body.find(std::string("\x12\x09\x09", 3));
  ASSERT_NE(at, std::string::npos);
  body[at] = 0x1a;
  auto r = handle_push_request(store, "PUT", "/metrics/job/t/instance/w", body, ct);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body,
            "pushed metrics are invalid or inconsistent with existing metrics: collected metric \"proto_wrong\" { "
            "label:<name:\"instance\" value:\"w\" > label:<name:\"job\" value:\"t\" > counter:<value:1 > } is not a "
            "GAUGE\n");
  ASSERT_EQ(store.group_count(), 1u);  // push_failure_time_seconds recorded
  bool failure = false;
  for (const auto& f : store.families())
    if (f.name == kPushFailureTimeMetric) failure = f.metrics.at(0).value == 1'700'000'000;
  EXPECT_TRUE(failure);

  r = handle_push_request(store, "PUT", "/metrics/job/t/instance/w",
                          encode_protobuf_push({gauge("proto_dup", {{"a", "1"}, {"a", "2"}}, 1)}), ct);
  EXPECT_EQ(r.body,
            "pushed metrics are invalid or inconsistent with existing metrics: collected metric \"proto_dup\" { "
            "label:<name:\"a\" value:\"1\" > label:<name:\"a\" value:\"2\" > label:<name:\"instance\" value:\"w\" > "
            "label:<name:\"job\" value:\"t\" > gauge:<value:1 > } has two or more labels with the same name: a\n");

  // timestamp_ms (field 6) on the metric.
  std::string stamped = encode_protobuf_push({gauge("s", {}, 1)});
  ASSERT_GE(stamped.size(), 2u);
  // Append field 6 = 5 to the metric (the family's last field) and fix up
  // the two lengths before it.
  std::string fam = stamped.substr(1);
  const size_t metric_len_at = fam.find('\x22') + 1;
  fam[metric_len_at] = static_cast<char>(fam[metric_len_at] + 2);
  fam += std::string("\x30\x05", 2);
  stamped = std::string(1, static_cast<char>(fam.size())) + fam;
  auto ts = parse_protobuf_push(stamped);
  ASSERT_TRUE(ts.has_value()) << ts.error();
  EXPECT_TRUE(ts->had_timestamps);
  r = handle_push_request(store, "PUT", "/metrics/job/t/instance/ts", stamped, ct);
  EXPECT_EQ(r.body,
            "pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have "
            "timestamps\n");

  // A good push is accepted and readable back.
  r = handle_push_request(store, "PUT", "/metrics/job/t/instance/ok", encode_protobuf_push(sample_families()), ct);
  EXPECT_EQ(r.status, 200) << r.body;
  std::string page;
  write_push_page(store.families(), page);
  EXPECT_NE(page.find("step_seconds_bucket{instance=\"ok\",job=\"t\",le=\"+Inf\"} 10"), std::string::npos) << page;
}

}  // namespace
}  // namespace llmon::scrape
