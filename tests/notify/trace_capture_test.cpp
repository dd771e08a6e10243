// The trace_capture receiver: its YAML (trace_capture_configs), the labels
// to selectors mapping, and the sender's outcomes through a recording hook.
#include "notify/senders/trace_capture.h"

#include <gtest/gtest.h>

#include "notify/config/notify_config.h"

namespace llmon::notify {
namespace {

TEST(TraceCaptureConfig, ParsesDefaultsAndRejectsBadValues) {
  auto c = parse_notify_config(
      "route: {receiver: r}\nreceivers:\n  - name: r\n    trace_capture_configs:\n      - {}\n"
      "      - {duration: 2s, iterations: 3, timeout: 5m, pid_label: process, gpu_label: '', job_label: slurm,"
      " match_all: true, send_resolved: true}\n",
      "am.yml");
  ASSERT_TRUE(c) << c.error();
  const auto& v = c->receivers[0].trace_capture_configs;
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].duration_ms, 500);
  EXPECT_EQ(v[0].timeout_ms, 60'000);
  EXPECT_EQ(v[0].pid_label, "pid");
  EXPECT_EQ(v[0].job_label, "job_id");
  EXPECT_FALSE(v[0].send_resolved);
  EXPECT_EQ(v[1].duration_ms, 2000);
  EXPECT_EQ(v[1].iterations, 3);
  EXPECT_EQ(v[1].timeout_ms, 300'000);
  EXPECT_EQ(v[1].pid_label, "process");
  EXPECT_EQ(v[1].gpu_label, "");
  EXPECT_TRUE(v[1].match_all);
  auto bad = parse_notify_config(
      "route: {receiver: r}\nreceivers:\n  - name: r\n    trace_capture_configs:\n      - {duration: 0s}\n", "am.yml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("am.yml:5:"), std::string::npos) << bad.error();
  auto unknown = parse_notify_config(
      "route: {receiver: r}\nreceivers:\n  - name: r\n    trace_capture_configs:\n      - {pids: 1}\n", "am.yml");
  EXPECT_FALSE(unknown);
}

Alert alert(std::string name, LabelPairs extra) {
  Alert a;
  a.labels = {{"alertname", std::move(name)}};
  for (auto& l : extra) a.labels.push_back(std::move(l));
  std::sort(a.labels.begin(), a.labels.end());
  return a;
}

TEST(TraceCaptureSender, OneCapturePerSelectorFromTheLabels) {
  Notification n;
  n.receiver = "profile";
  n.created_ms = 1000;
  n.alerts = {alert("StepSlow", {{"pid", "42"}}), alert("GpuIdle", {{"pid", "42"}}),
              alert("GpuIdle", {{"gpu", "3"}, {"job_id", "77"}}), alert("Other", {{"instance", "x"}})};
  Alert resolved = alert("Old", {{"pid", "9"}});
  resolved.ends_at_ms = 500;
  n.alerts.push_back(resolved);
  TraceCaptureNotifierConfig cfg;
  auto calls = trace_capture_calls(cfg, n);
  ASSERT_TRUE(calls) << calls.error();
  ASSERT_EQ(calls->size(), 2u);
  EXPECT_EQ((*calls)[0].pid, 42);
  EXPECT_EQ((*calls)[0].alert_names, (std::vector<std::string>{"StepSlow", "GpuIdle"}));
  ASSERT_EQ((*calls)[0].alert_labels.size(), 2u);  // each alert's own labels, for the attachment
  EXPECT_EQ((*calls)[0].alert_labels[0], n.alerts[0].labels);
  EXPECT_EQ((*calls)[0].alert_labels[1], n.alerts[1].labels);
  EXPECT_FALSE((*calls)[0].gpu);
  EXPECT_EQ((*calls)[1].gpu, 3);
  EXPECT_EQ((*calls)[1].job_id, 77);
  EXPECT_EQ((*calls)[1].receiver, "profile");

  cfg.match_all = true;
  EXPECT_EQ(trace_capture_calls(cfg, n)->size(), 3u);  // "Other" selects every process

  n.alerts = {alert("X", {{"pid", "12a"}})};
  auto bad = trace_capture_calls(cfg, n);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("label pid=\"12a\" is not an integer"), std::string::npos) << bad.error();
}

TEST(TraceCaptureSender, FailuresAreFinal) {
  std::vector<TraceCaptureCall> seen;
  bool ok = true;
  TraceCaptureSender s({}, [&](const TraceCaptureCall& c) {
    seen.push_back(c);
    return TraceCaptureResult{ok, ok ? "" : "No processes were matched (pid 42)", ""};
  });
  Notification n;
  n.created_ms = 1;
  n.alerts = {alert("StepSlow", {{"pid", "42"}})};
  EXPECT_EQ(s.send(n).outcome, DeliveryOutcome::kDelivered);
  ok = false;
  DeliveryResult r = s.send(n);
  EXPECT_EQ(r.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(r.error.find("No processes were matched"), std::string::npos) << r.error;
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(s.kind(), "trace_capture");
}

}  // namespace
}  // namespace llmon::notify
