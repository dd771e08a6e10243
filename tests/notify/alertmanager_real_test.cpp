// Differential test against the real thing: a `prometheus-alertmanager`
// (Debian's 0.25) started here, fed by our AlertmanagerNotifier, forwarding
// to an in-test webhook receiver. Checks that Alertmanager accepts our
// PostableAlerts (GET /api/v2/alerts shows them), and that the webhook
// payload it sends for the firing and then the resolved group is the one
// render_webhook_payload() produces for the same alerts, byte for byte.
// Skipped, with the reason, when the binary is not installed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "go/json.h"
#include "notify/delivery_receiver.h"
#include "notify/senders/alertmanager.h"
#include "notify/senders/webhook.h"
#include "support/subprocess.h"

namespace llmon::notify {
namespace {

using testing::eventually;
using testing::Receiver;
using testing::ScopedTempDir;

constexpr const char* kAlertmanager = "/usr/bin/prometheus-alertmanager";

// The Alertmanager we started; stopped (and reaped) when it goes out of scope.
class Process {
 public:
  Process(const std::vector<std::string>& args, const std::string& log_path)
      : pid_(llmon::testing::spawn(args, log_path)) {}
  ~Process() { stop(); }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  pid_t pid() const { return pid_; }
  bool running() {
    if (pid_ <= 0) return false;
    int status;
    return ::waitpid(pid_, &status, WNOHANG) == 0;
  }
  void stop() {
    llmon::testing::stop_process(pid_, std::chrono::seconds(10));
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

int free_port() {
  Receiver probe;  // binds 127.0.0.1:0; the port is free again once it closes
  return probe.port();
}

int64_t now_ms() {
  return base::SystemClock().now_ms();
}

// The alerts in `sent` in the order `payload` lists them (by fingerprint).
std::vector<Alert> in_payload_order(const std::vector<Alert>& sent, const nlohmann::json& payload) {
  std::vector<Alert> out;
  for (const auto& a : payload["alerts"])
    for (const Alert& s : sent)
      if (fingerprint_hex(label_set_fingerprint(s.labels)) == a["fingerprint"]) out.push_back(s);
  return out;
}

// Keys of every object, recursively, in document order: the "shape".
void shape(const nlohmann::ordered_json& j, const std::string& path, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      out.push_back(path + "/" + it.key() + ":" + it.value().type_name());
      shape(it.value(), path + "/" + it.key(), out);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) shape(j[i], path + "[" + std::to_string(i) + "]", out);
  }
}

TEST(AlertmanagerReal, NotifierAndWebhookPayloadMatchAlertmanager) {
  if (::access(kAlertmanager, X_OK) != 0)
    GTEST_SKIP() << kAlertmanager << " is not installed (Debian package prometheus-alertmanager)";
  ScopedTempDir dir;
  ASSERT_FALSE(dir.path().empty());
  Receiver hook;
  ASSERT_TRUE(hook.ok());
  const int port = free_port();
  const std::string config = dir.path() + "/alertmanager.yml";
  {
    std::ofstream f(config);
    f << "route:\n"
         "  receiver: web.hook\n"
         "  group_by: ['alertname']\n"
         "  group_wait: 1s\n"
         "  group_interval: 1s\n"
         "  repeat_interval: 1h\n"
         "receivers:\n"
         "  - name: web.hook\n"
         "    webhook_configs:\n"
         "      - url: "
      << hook.url("/hook") << "\n        send_resolved: true\n";
  }
  const std::string log_path = dir.path() + "/alertmanager.log";
  Process am({kAlertmanager, "--config.file=" + config, "--storage.path=" + dir.path() + "/data",
              "--web.listen-address=127.0.0.1:" + std::to_string(port), "--cluster.listen-address="},
             log_path);
  ASSERT_GT(am.pid(), 0);
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  net::http::ClientOptions copts;
  copts.timeout_ms = 2000;
  copts.connect_timeout_ms = 1000;
  net::http::Client client(copts);
  const bool ready = eventually(
      [&] {
        auto r = client.get(*net::http::parse_url(base + "/-/ready"));
        return r && r->status == 200;
      },
      30000);
  ASSERT_TRUE(ready) << "Alertmanager did not become ready; log:\n" << llmon::testing::read_text(log_path);

  DeliveryQueueOptions qopts;
  qopts.dir = dir.path() + "/queue";
  qopts.fsync = FsyncPolicy::kNever;
  base::SystemClock clock;
  auto queue = DeliveryQueue::open(qopts, clock, [] { return 0.5; });
  ASSERT_TRUE(queue) << queue.error();
  AlertmanagerOptions nopts;
  nopts.alertmanagers = {{base, copts}};
  nopts.external_labels = {{"cluster", "test"}};
  auto notifier = AlertmanagerNotifier::create(nopts, **queue);
  ASSERT_TRUE(notifier) << notifier.error();

  // 1. Firing.
  const int64_t t0 = now_ms();
  std::vector<Alert> alerts;
  for (int gpu = 0; gpu < 2; ++gpu) {
    Alert a;
    a.labels = {{"alertname", "LlmonRealTest"}, {"gpu", std::to_string(gpu)}, {"severity", "page"}};
    a.annotations = {{"summary", "GPU " + std::to_string(gpu) + " <too> hot & bothered"}};
    a.starts_at_ms = t0 - 60000 + 123;
    a.ends_at_ms = t0 + 300000;
    a.generator_url = "http://llmon.example:9090/graph?g0.expr=gpu_temp%3E90&g0.tab=1";
    alerts.push_back(a);
  }
  (*notifier)->send(alerts);
  for (Alert& a : alerts) a.labels = with_external_labels(a.labels, nopts.external_labels);

  nlohmann::json listed;
  const bool shown = eventually(
      [&] {
        auto r = client.get(*net::http::parse_url(base + "/api/v2/alerts?filter=alertname%3D%22LlmonRealTest%22"));
        if (!r || r->status != 200) return false;
        listed = nlohmann::json::parse(r->body, nullptr, false);
        return listed.is_array() && listed.size() == 2;
      },
      15000);
  ASSERT_TRUE(shown) << "GET /api/v2/alerts: " << listed.dump() << "\nlog:\n" << llmon::testing::read_text(log_path);
  for (const auto& a : listed) {
    EXPECT_EQ(a["labels"]["cluster"], "test");
    EXPECT_EQ(a["labels"]["severity"], "page");
    EXPECT_EQ(a["status"]["state"], "active");
    EXPECT_EQ(a["generatorURL"], alerts[0].generator_url);
    EXPECT_EQ(a["startsAt"], go::json::strfmt_millis(alerts[0].starts_at_ms));
    const std::string gpu = a["labels"]["gpu"];
    EXPECT_EQ(a["annotations"]["summary"], "GPU " + gpu + " <too> hot & bothered");
  }

  auto find_request = [&](const std::string& status) -> std::string {
    for (const auto& r : hook.requests()) {
      auto j = nlohmann::json::parse(r.body, nullptr, false);
      if (j.is_object() && j["status"] == status) return r.body;
    }
    return "";
  };
  ASSERT_TRUE(eventually([&] { return !find_request("firing").empty(); }, 15000))
      << "no firing notification; log:\n"
      << llmon::testing::read_text(log_path);
  const std::string theirs_firing = find_request("firing");
  const auto tf = nlohmann::json::parse(theirs_firing);
  ASSERT_EQ(tf["alerts"].size(), 2u) << theirs_firing;

  Notification ours;
  ours.receiver = "web.hook";
  ours.group_key = tf["groupKey"];  // computed by the router, not by the renderer
  ours.group_labels = {{"alertname", "LlmonRealTest"}};
  ours.external_url = tf["externalURL"];
  ours.alerts = in_payload_order(alerts, tf);  // ordering is the dispatcher's job
  ours.created_ms = now_ms();
  ASSERT_EQ(ours.alerts.size(), 2u) << "fingerprints differ: " << theirs_firing;
  const std::string ours_firing = render_webhook_payload(ours);
  std::vector<std::string> shape_theirs, shape_ours;
  shape(nlohmann::ordered_json::parse(theirs_firing), "", shape_theirs);
  shape(nlohmann::ordered_json::parse(ours_firing), "", shape_ours);
  EXPECT_EQ(shape_ours, shape_theirs);
  EXPECT_EQ(ours_firing, theirs_firing);

  // 2. Resolved.
  const int64_t t1 = now_ms();
  for (Alert& a : alerts) a.ends_at_ms = t1 - 1000 + 7;
  std::vector<Alert> resend = alerts;
  for (Alert& a : resend)  // as the rules module hands them over: without external labels
    a.labels.erase(std::remove_if(a.labels.begin(), a.labels.end(), [](const auto& p) { return p.first == "cluster"; }),
                   a.labels.end());
  (*notifier)->send(resend);
  ASSERT_TRUE(eventually([&] { return !find_request("resolved").empty(); }, 15000))
      << "no resolved notification; log:\n"
      << llmon::testing::read_text(log_path);
  const std::string theirs_resolved = find_request("resolved");
  const auto tr = nlohmann::json::parse(theirs_resolved);
  ours.alerts = in_payload_order(alerts, tr);
  ours.created_ms = now_ms();
  ASSERT_EQ(ours.alerts.size(), 2u) << theirs_resolved;
  const std::string ours_resolved = render_webhook_payload(ours);
  EXPECT_EQ(ours_resolved, theirs_resolved);
  EXPECT_EQ(tr["alerts"][0]["status"], "resolved");

  // Resolved alerts leave the active list.
  EXPECT_TRUE(eventually([&] {
    auto r =
        client.get(*net::http::parse_url(base + "/api/v2/alerts?active=true&filter=alertname%3D%22LlmonRealTest%22"));
    return r && r->status == 200 && nlohmann::json::parse(r->body, nullptr, false).empty();
  }));

  const AlertmanagerMetrics m = (*notifier)->metrics();
  ASSERT_EQ(m.alertmanagers.size(), 1u);
  EXPECT_EQ(m.alertmanagers[0].sent_total, 4u);
  EXPECT_EQ(m.alertmanagers[0].errors_total, 0u);
  EXPECT_TRUE(am.running()) << llmon::testing::read_text(log_path);
  notifier->reset();
  queue->reset();
  am.stop();
}

}  // namespace
}  // namespace llmon::notify
