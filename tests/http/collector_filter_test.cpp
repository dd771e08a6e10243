// /metrics?collect[]=NAME and ?exclude[]=NAME: node_exporter's per-request
// collector selection (the 400 texts are node_exporter 1.5's, checked against
// its binary; exclude[] follows 1.7, where it was added).
#include <gtest/gtest.h>

#include "exposition/text_writer.h"
#include "http/metrics_page.h"
#include "http/query.h"
#include "http/server.h"
#include "model/snapshot_builder.h"
#include "support/http_client.h"

namespace llmon::http {
namespace {

// Two collectors (cpu, loadavg) and one that emitted nothing (meminfo), then
// the scheduler's node_scrape_collector_success, as Scheduler::run_cycle builds them.
model::SnapshotPtr make_snapshot() {
  auto snap = std::make_shared<model::Snapshot>();
  model::SnapshotBuilder b(*snap, 1'700'000'000'000);
  auto span = [&](std::string name, size_t first) {
    snap->collectors.push_back(
        {std::move(name), static_cast<uint32_t>(first), static_cast<uint32_t>(b.families_used())});
  };
  b.family("node_cpu_seconds_total", "Seconds the CPUs spent in each mode.", model::MetricType::kCounter,
           {"cpu", "mode"})
      .add({"0", "idle"}, 10);
  b.family("node_cpu_info", "CPU information from /proc/cpuinfo.", model::MetricType::kGauge, {"cpu"}).add({"0"}, 1);
  span("cpu", 0);
  size_t first = b.families_used();
  b.family("node_load1", "1m load average.", model::MetricType::kGauge).add(0.21);
  span("loadavg", first);
  span("meminfo", b.families_used());
  auto ok = b.family("node_scrape_collector_success", "node_exporter: Whether a collector succeeded.",
                     model::MetricType::kGauge, {"collector"});
  for (const char* c : {"cpu", "loadavg", "meminfo"}) ok.add({c}, 1);
  b.finish();
  return snap;
}

std::string text(const model::Snapshot& s) {
  std::string out;
  exposition::write_page(s, exposition::Format::kText004, out);
  return out;
}

TEST(QueryValues, AsGoUrlQuery) {
  EXPECT_EQ(query_values("collect[]=cpu&x=1&collect%5B%5D=meminfo&collect[]=a+b%21", "collect[]"),
            (std::vector<std::string>{"cpu", "meminfo", "a b!"}));
  // Bad pairs are dropped, the rest kept (URL.Query ignores ParseQuery's error).
  EXPECT_EQ(query_values("collect[]=%zz&collect[]=cpu;x&collect[]&collect[]=ok", "collect[]"),
            (std::vector<std::string>{"", "ok"}));
  EXPECT_TRUE(query_values("", "collect[]").empty());
  std::string out;
  std::string_view bad;
  EXPECT_FALSE(query_unescape("a%4", out, &bad));
  EXPECT_EQ(bad, "%4");
}

TEST(SelectCollectors, KeepsTheirFamiliesAndScrapeSeries) {
  auto snap = make_snapshot();
  model::Snapshot part = select_collectors(*snap, {"loadavg"});
  EXPECT_EQ(text(part),
            "# HELP node_load1 1m load average.\n# TYPE node_load1 gauge\nnode_load1 0.21\n"
            "# HELP node_scrape_collector_success node_exporter: Whether a collector succeeded.\n"
            "# TYPE node_scrape_collector_success gauge\nnode_scrape_collector_success{collector=\"loadavg\"} 1\n");
  EXPECT_EQ(part.timestamp_ms, snap->timestamp_ms);
  ASSERT_EQ(part.collectors.size(), 1u);
  EXPECT_EQ(part.collectors[0].first_family, 0u);
  EXPECT_EQ(part.collectors[0].end_family, 1u);
  // Every collector: the same page.
  EXPECT_EQ(text(select_collectors(*snap, {"cpu", "loadavg", "meminfo"})), text(*snap));
}

TEST(MetricsPageFilter, CollectAndExclude) {
  auto snap = make_snapshot();
  MetricsPage page([&] { return snap; }, {"cpu", "loadavg", "meminfo", "diskstats"});
  auto f = page.filtered_body(exposition::Format::kText004, false, {{"cpu"}, {}});
  ASSERT_TRUE(f.body) << f.error;
  EXPECT_EQ(*f.body, text(select_collectors(*snap, {"cpu"})));
  // Repeated names are harmless.
  f = page.filtered_body(exposition::Format::kText004, false, {{"cpu", "cpu"}, {}});
  ASSERT_TRUE(f.body);
  EXPECT_EQ(*f.body, text(select_collectors(*snap, {"cpu"})));
  f = page.filtered_body(exposition::Format::kText004, false, {{}, {"cpu", "nosuch"}});
  ASSERT_TRUE(f.body) << f.error;
  EXPECT_EQ(*f.body, text(select_collectors(*snap, {"loadavg", "meminfo"})));
  // Excluding every collector excludes none (node_exporter runs all on an empty filter list).
  f = page.filtered_body(exposition::Format::kText004, false, {{}, {"cpu", "loadavg", "meminfo"}});
  ASSERT_TRUE(f.body);
  EXPECT_EQ(*f.body, text(*snap));
  // No filter: the cached page.
  f = page.filtered_body(exposition::Format::kText004, false, {});
  EXPECT_EQ(f.body, page.body(exposition::Format::kText004, false));
}

TEST(MetricsPageFilter, ErrorsAsNodeExporter) {
  auto snap = make_snapshot();
  MetricsPage page([&] { return snap; }, {"cpu", "loadavg", "meminfo", "diskstats"});
  auto f = page.filtered_body(exposition::Format::kText004, false, {{"cpu", "foo"}, {}});
  EXPECT_FALSE(f.body);
  EXPECT_EQ(f.error, "Couldn't create filtered metrics handler: couldn't create collector: missing collector: foo");
  f = page.filtered_body(exposition::Format::kText004, false, {{"diskstats"}, {}});
  EXPECT_EQ(f.error,
            "Couldn't create filtered metrics handler: couldn't create collector: disabled collector: diskstats");
  f = page.filtered_body(exposition::Format::kText004, false, {{""}, {}});
  EXPECT_EQ(f.error, "Couldn't create filtered metrics handler: couldn't create collector: missing collector: ");
  f = page.filtered_body(exposition::Format::kText004, false, {{"cpu"}, {"loadavg"}});
  EXPECT_EQ(f.error, "Combined collect and exclude queries are not allowed.\n");
  // No cycle yet: neither a page nor an error (the server answers 503).
  MetricsPage empty([] { return model::SnapshotPtr(); });
  f = empty.filtered_body(exposition::Format::kText004, false, {{"cpu"}, {}});
  EXPECT_FALSE(f.body);
  EXPECT_TRUE(f.error.empty());
}

TEST(MetricsPageFilter, ServedOverHttp) {
  auto snap = make_snapshot();
  MetricsPage page([&] { return snap; }, {"cpu", "loadavg", "meminfo"});
  base::Logger log(base::LogLevel::kError);
  ServerOptions opts;
  opts.listen_address = "127.0.0.1:0";
  Server server(opts, page, log);
  ASSERT_TRUE(server.start().is_ok());
  auto r = llmon::testing::http_request(server.port(), "GET", "/metrics?collect[]=loadavg", {});
  EXPECT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.body, text(select_collectors(*snap, {"loadavg"})));
  r = llmon::testing::http_request(server.port(), "GET", "/metrics?collect%5B%5D=nosuch", {});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, "Couldn't create filtered metrics handler: couldn't create collector: missing collector: nosuch");
  r = llmon::testing::http_request(server.port(), "GET", "/metrics?exclude[]=cpu&exclude[]=meminfo", {});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, text(select_collectors(*snap, {"loadavg"})));
  server.stop();
}

}  // namespace
}  // namespace llmon::http
