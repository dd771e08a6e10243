#include "summary/host_summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/snapshot_builder.h"

namespace llmon::summary {
namespace {

using model::MetricType;

// Two CPUs; cpu0 busy 75% of dt=2s, cpu1 idle; 1 MiB/s rx on eth0.
void build(model::Snapshot& s, int64_t ts, double k) {
  model::SnapshotBuilder b(s, ts);
  auto cpu = b.family("node_cpu_seconds_total", "", MetricType::kCounter, {"cpu", "mode"});
  cpu.add({"0", "idle"}, 100 + 0.5 * k);
  cpu.add({"0", "user"}, 50 + 1.0 * k);
  cpu.add({"0", "system"}, 10 + 0.5 * k);
  cpu.add({"1", "idle"}, 200 + 2.0 * k);
  cpu.add({"10", "idle"}, 200 + 2.0 * k);
  b.family("node_memory_MemTotal_bytes", "", MetricType::kGauge).add(1000);
  b.family("node_memory_MemAvailable_bytes", "", MetricType::kGauge).add(250);
  b.family("node_load1", "", MetricType::kGauge).add(1.5);
  auto rx = b.family("node_network_receive_bytes_total", "", MetricType::kCounter, {"device"});
  rx.add({"eth0"}, 1e6 + k * 1048576);
  auto tx = b.family("node_network_transmit_bytes_total", "", MetricType::kCounter, {"device"});
  tx.add({"eth0"}, k == 0 ? 5000 : 10);  // counter reset -> 0, never negative
  auto io = b.family("node_disk_io_time_seconds_total", "", MetricType::kCounter, {"device"});
  io.add({"sda"}, 10 + 0.25 * k);
  auto rd = b.family("node_disk_read_bytes_total", "", MetricType::kCounter, {"device"});
  rd.add({"sda"}, 4096 * k);
  auto size = b.family("node_filesystem_size_bytes", "", MetricType::kGauge, {"device", "fstype", "mountpoint"});
  size.add({"/dev/sda1", "ext4", "/"}, 100);
  b.family("node_filesystem_free_bytes", "", MetricType::kGauge, {"device", "fstype", "mountpoint"})
      .add({"/dev/sda1", "ext4", "/"}, 30);
  b.family("node_filesystem_avail_bytes", "", MetricType::kGauge, {"device", "fstype", "mountpoint"})
      .add({"/dev/sda1", "ext4", "/"}, 20);
  auto ok = b.family("node_scrape_collector_success", "", MetricType::kGauge, {"collector"});
  ok.add({"cpu"}, 1);
  ok.add({"hwmon"}, 0);
  b.finish();
}

TEST(HostSummary, RatesFromDeltas) {
  model::Snapshot a, b;
  build(a, 10'000, 0);
  build(b, 12'000, 2);
  HostSummary s = summarize(a, b);
  EXPECT_DOUBLE_EQ(s.interval_s, 2);
  ASSERT_EQ(s.cpus.size(), 4u);
  EXPECT_EQ(s.cpus[0].cpu, "all");
  EXPECT_EQ(s.cpus[1].cpu, "0");
  EXPECT_EQ(s.cpus[2].cpu, "1");
  EXPECT_EQ(s.cpus[3].cpu, "10");  // numeric order, not lexical
  EXPECT_DOUBLE_EQ(s.cpus[1].busy_pct, 75);
  EXPECT_DOUBLE_EQ(s.cpus[1].user_pct, 50);
  EXPECT_DOUBLE_EQ(s.cpus[2].busy_pct, 0);
  EXPECT_DOUBLE_EQ(s.mem_used_bytes, 750);
  EXPECT_DOUBLE_EQ(s.mem_used_pct, 75);
  ASSERT_EQ(s.net.size(), 1u);
  EXPECT_DOUBLE_EQ(s.net[0].rx_bytes_per_s, 1048576);
  EXPECT_DOUBLE_EQ(s.net[0].tx_bytes_per_s, 0);
  ASSERT_EQ(s.disks.size(), 1u);
  EXPECT_DOUBLE_EQ(s.disks[0].util_pct, 25);
  EXPECT_DOUBLE_EQ(s.disks[0].read_bytes_per_s, 4096);
  ASSERT_EQ(s.filesystems.size(), 1u);
  EXPECT_DOUBLE_EQ(s.filesystems[0].used_bytes, 70);
  EXPECT_NEAR(s.filesystems[0].used_pct, 100.0 * 70 / 90, 1e-9);
  ASSERT_EQ(s.failed_collectors.size(), 1u);
  EXPECT_EQ(s.failed_collectors[0], "hwmon");
}

TEST(HostSummary, NoDataCollectorsAreNotFailures) {
  model::Snapshot a, b;
  build(a, 10'000, 0);
  build(b, 12'000, 2);
  HostSummary s = summarize(a, b);
  mark_no_data(s, {"hwmon", "infiniband"});
  EXPECT_TRUE(s.failed_collectors.empty());
  EXPECT_EQ(s.no_data_collectors, std::vector<std::string>{"hwmon"});
  auto j = nlohmann::json::parse(format_json(s));
  EXPECT_EQ(j["no_data_collectors"][0], "hwmon");
  EXPECT_TRUE(j["failed_collectors"].empty());
  std::string text = format_text(s);
  EXPECT_EQ(text.find("failed collectors"), std::string::npos) << text;
  EXPECT_NE(text.find("no data (hardware or kernel module absent): hwmon"), std::string::npos) << text;
}

TEST(HostSummary, JsonIsStable) {
  model::Snapshot a, b;
  build(a, 10'000, 0);
  build(b, 12'000, 2);
  auto j = nlohmann::json::parse(format_json(summarize(a, b)));
  EXPECT_EQ(j["schema"], "llmon.snapshot.v1");
  EXPECT_EQ(j["timestamp_ms"], 12000);
  EXPECT_EQ(j["cpu"][1]["cpu"], "0");
  EXPECT_DOUBLE_EQ(j["cpu"][1]["busy_percent"].get<double>(), 75);
  EXPECT_DOUBLE_EQ(j["network"][0]["receive_bytes_per_second"].get<double>(), 1048576);
  EXPECT_EQ(j["filesystems"][0]["mountpoint"], "/");
  EXPECT_EQ(j["failed_collectors"][0], "hwmon");
}

TEST(HostSummary, TextMentionsEverySection) {
  model::Snapshot a, b;
  build(a, 10'000, 0);
  build(b, 12'000, 2);
  std::string t = format_text(summarize(a, b));
  EXPECT_NE(t.find("CPU    25.0% busy on 3 cores"), std::string::npos) << t;
  EXPECT_NE(t.find("MEM   used 750 B of 1000 B (75.0%)"), std::string::npos) << t;
  EXPECT_NE(t.find("eth0"), std::string::npos);
  EXPECT_NE(t.find("sda"), std::string::npos);
  EXPECT_NE(t.find("failed collectors: hwmon"), std::string::npos);
}

TEST(HostSummary, EmptySnapshotsGiveEmptySummary) {
  model::Snapshot a, b;
  HostSummary s = summarize(a, b);
  EXPECT_TRUE(s.cpus.empty());
  EXPECT_TRUE(s.net.empty());
  EXPECT_NO_THROW(format_text(s));
  EXPECT_NO_THROW(format_json(s));
}

TEST(HostSummary, FindingsFromTheAgentOrWhyNot) {
  HostSummary s;
  s.findings_source = "http://127.0.0.1:8747";
  s.findings_window_ms = 900'000;
  for (int i = 0; i < 7; ++i)
    s.findings.push_back({"warning", "idle_gpu", "GPU " + std::to_string(i) + " idle", {{"gpu", std::to_string(i)}}});
  std::string text = format_text(s);
  EXPECT_NE(text.find("\nFINDINGS  from the agent at http://127.0.0.1:8747 over the last 900 s\n"
                      "  warning  idle_gpu             GPU 0 idle\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("GPU 5 idle"), std::string::npos) << "at most five";
  EXPECT_NE(text.find("  ... 2 more: llmon diagnose --url=http://127.0.0.1:8747\n"), std::string::npos);
  auto j = nlohmann::json::parse(format_json(s));
  EXPECT_EQ(j["findings"].size(), 7u);
  EXPECT_EQ(j["findings"][0]["subject"]["gpu"], "0");

  HostSummary none;
  none.findings_source = "http://a:1";
  none.findings_window_ms = 60'000;
  EXPECT_NE(format_text(none).find("FINDINGS  from the agent at http://a:1 over the last 60 s: none, healthy\n"),
            std::string::npos);
  HostSummary noagent;
  noagent.findings_note = "no agent at http://127.0.0.1:8747 (findings need its history: run `llmon agent`)";
  EXPECT_NE(format_text(noagent).find("\nFINDINGS  no agent at"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(format_json(noagent))["findings"].empty());
}

}  // namespace
}  // namespace llmon::summary
