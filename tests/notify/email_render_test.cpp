// E-mail rendering: the subject against Alertmanager's own template (amtool
// rendering default.tmpl when installed), the whole message parsed back
// (headers, both parts, decoding) rather than compared byte for byte, a
// differential parse with Python's email package, header and HTML injection
// attempts, config validation and EmailSender's resolved-alert handling.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "base/clock.h"
#include "notify/email/email.h"
#include "notify/email/email_mime.h"
#include "notify/email_mime_reader.h"

namespace llmon::notify {
namespace {

namespace fs = std::filesystem;
using testing::decode_words;
using testing::MimeEntity;

constexpr int64_t kT10 = 1714557600000;  // 2024-05-01 10:00:00 UTC
constexpr int64_t kMin = 60000;

Alert alert(LabelPairs labels, LabelPairs annotations, int64_t starts, int64_t ends, std::string url = "") {
  Alert a;
  a.labels = std::move(labels);
  a.annotations = std::move(annotations);
  a.starts_at_ms = starts;
  a.ends_at_ms = ends;
  a.generator_url = std::move(url);
  return a;
}

// Two firing GPU alerts and one resolved one, created at 11:05.
Notification gpu_notification() {
  Notification n;
  n.receiver = "gpu-team";
  n.group_key = "{}:{alertname=\"GpuMemoryHigh\"}";
  n.group_labels = {{"alertname", "GpuMemoryHigh"}};
  n.created_ms = kT10 + 65 * kMin;
  n.external_url = "http://node1:9100/alerts";
  LabelPairs ann = {{"description", "Memory used by training job\nsee the runbook"},
                    {"runbook_url", "https://runbooks.example/gpu-mem"},
                    {"summary", "GPU memory above 95%"},
                    {"value", "97.3"}};
  n.alerts.push_back(alert({{"alertname", "GpuMemoryHigh"}, {"gpu", "gpu0"}, {"instance", "node1"}, {"uuid", "GPU-1"}},
                           ann, kT10, n.created_ms + 4 * kMin, "http://node1:9090/graph?g0.expr=gpu_mem&g0.tab=1"));
  n.alerts.push_back(alert({{"alertname", "GpuMemoryHigh"}, {"gpu", "gpu0"}, {"instance", "node1"}, {"uuid", "GPU-2"}},
                           ann, kT10 + 30 * kMin, n.created_ms + 4 * kMin));
  n.alerts.push_back(alert({{"alertname", "GpuMemoryHigh"}, {"gpu", "gpu0"}, {"instance", "node1"}, {"uuid", "GPU-3"}},
                           {{"summary", "GPU memory above 95%"}}, kT10 - 60 * kMin, kT10 + 50 * kMin));
  return n;
}

EmailSenderConfig base_config() {
  EmailSenderConfig c;
  c.to = {"GPU on call <gpu-oncall@example.org>", "ops@example.org"};
  c.from = "llmon <alerts@node1.example.org>";
  c.smarthost = "127.0.0.1:2525";
  c.send_resolved = true;
  return c;
}

struct Parsed {
  MimeEntity top;
  std::string subject;  // decoded
  std::string text, html;
  std::string text_ct, html_ct;
};

// Parses a rendered message back; fails the test on any structural problem.
Parsed parse_message(const std::string& m) {
  Parsed p;
  for (size_t pos = 0, e; (e = m.find("\r\n", pos)) != std::string::npos; pos = e + 2)
    EXPECT_LE(e - pos, 78u) << "line too long: " << m.substr(pos, e - pos);
  for (size_t i = 0; i < m.size(); ++i) {
    EXPECT_LT(static_cast<unsigned char>(m[i]), 0x80) << "8-bit byte at " << i;
    if (m[i] == '\n') {
      EXPECT_TRUE(i > 0 && m[i - 1] == '\r') << "bare LF at " << i;
    }
    if (m[i] == '\r') {
      EXPECT_TRUE(i + 1 < m.size() && m[i + 1] == '\n') << "bare CR at " << i;
    }
  }
  auto top = testing::parse_entity(m);
  EXPECT_TRUE(top.has_value());
  if (!top) return p;
  p.top = *top;
  auto subj = decode_words(p.top.get("Subject"));
  EXPECT_TRUE(subj.has_value());
  p.subject = subj.value_or("");
  EXPECT_EQ(p.top.get("MIME-Version"), "1.0");
  std::string ct = p.top.get("Content-Type");
  EXPECT_EQ(ct.rfind("multipart/alternative;", 0), 0u) << ct;
  std::string boundary = testing::boundary_of(ct);
  EXPECT_FALSE(boundary.empty());
  auto parts = testing::parse_multipart(p.top.body, boundary);
  EXPECT_TRUE(parts.has_value()) << "multipart body does not parse";
  if (!parts) return p;
  EXPECT_EQ(parts->size(), 2u);
  if (parts->size() != 2) return p;
  for (const auto& part : *parts) EXPECT_EQ(part.get("Content-Transfer-Encoding"), "quoted-printable");
  p.text_ct = (*parts)[0].get("Content-Type");
  p.html_ct = (*parts)[1].get("Content-Type");
  auto t = testing::qp_decode((*parts)[0].body);
  auto h = testing::qp_decode((*parts)[1].body);
  EXPECT_TRUE(t && h) << "quoted-printable does not decode";
  p.text = t.value_or("");
  p.html = h.value_or("");
  return p;
}

std::string render(const Notification& n, const EmailSenderConfig& c) {
  EmailEnvelopeInfo info{kT10 + 66 * kMin, "<1714561560000.0.abc@node1>", "llmon0123456789"};
  auto m = render_email(n, c, info);
  EXPECT_TRUE(m) << m.error();
  return m ? *m : std::string();
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

// The value of the index-th "  Name:  value" line of the text part.
std::string field(const std::string& text, const std::string& name, size_t index = 0) {
  const std::string key = "\n  " + name + ":";
  size_t p = text.find(key);
  for (size_t i = 0; i < index && p != std::string::npos; ++i) p = text.find(key, p + 1);
  if (p == std::string::npos) return "<missing " + name + ">";
  size_t start = p + key.size(), end = text.find('\n', start);
  return trimmed(std::string_view(text).substr(start, end - start));
}

// The line after the one that ends with `line_end`.
std::string next_line(const std::string& text, const std::string& line_end) {
  size_t p = text.find(line_end);
  if (p == std::string::npos) return {};
  size_t start = p + line_end.size(), end = text.find('\n', start);
  return text.substr(start, end - start);
}

TEST(EmailSubject, AlertmanagerDefault) {
  Notification n = gpu_notification();
  EXPECT_EQ(email_subject(n), "[FIRING:2] GpuMemoryHigh (gpu0 node1)");
  n.alerts.pop_back();
  EXPECT_EQ(email_subject(n), "[FIRING:2] GpuMemoryHigh (gpu0 node1)");
  n.alerts.pop_back();  // one alert: all its labels are common
  EXPECT_EQ(email_subject(n), "[FIRING:1] GpuMemoryHigh (gpu0 node1 GPU-1)");
  n.alerts[0].ends_at_ms = n.created_ms;  // resolved
  EXPECT_EQ(email_subject(n), "[RESOLVED] GpuMemoryHigh (gpu0 node1 GPU-1)");
  // Grouped by every label: nothing in parentheses, and the template's
  // trailing space stays.
  n.group_labels = n.alerts[0].labels;
  EXPECT_EQ(email_subject(n), "[RESOLVED] GpuMemoryHigh gpu0 node1 GPU-1 ");
  n.group_labels.clear();
  n.alerts[0].labels = {{"a", "1"}, {"b", "2"}};
  n.alerts[0].ends_at_ms = 0;
  EXPECT_EQ(email_subject(n), "[FIRING:1]  (1 2)");
}

// Alertmanager 0.25's own template, rendered by amtool on the same data.
TEST(EmailSubject, MatchesAmtool) {
  const char* tmpl = "/usr/share/prometheus/alertmanager/default.tmpl";
  if (::access("/usr/bin/amtool", X_OK) != 0 || ::access(tmpl, R_OK) != 0)
    GTEST_SKIP() << "amtool or Alertmanager's default.tmpl not installed (prometheus-alertmanager)";
  char dir_tmpl[] = "/tmp/llmon-amtool-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_tmpl), nullptr);
  fs::path dir = dir_tmpl;

  struct Case {
    Notification n;
    nlohmann::json common;
  };
  std::vector<Case> cases;
  Notification full = gpu_notification();
  cases.push_back({full, {{"alertname", "GpuMemoryHigh"}, {"gpu", "gpu0"}, {"instance", "node1"}}});
  Notification resolved = full;
  for (auto& a : resolved.alerts) a.ends_at_ms = resolved.created_ms - kMin;
  cases.push_back({resolved, {{"alertname", "GpuMemoryHigh"}, {"gpu", "gpu0"}, {"instance", "node1"}}});
  Notification grouped = full;
  grouped.alerts.resize(1);
  grouped.group_labels = grouped.alerts[0].labels;
  cases.push_back(
      {grouped, {{"alertname", "GpuMemoryHigh"}, {"gpu", "gpu0"}, {"instance", "node1"}, {"uuid", "GPU-1"}}});
  Notification ungrouped = full;
  ungrouped.group_labels.clear();
  ungrouped.alerts.resize(1);
  ungrouped.alerts[0].labels = {{"a", "x y"}, {"b", "2"}};
  cases.push_back({ungrouped, {{"a", "x y"}, {"b", "2"}}});

  for (size_t i = 0; i < cases.size(); ++i) {
    const Notification& n = cases[i].n;
    nlohmann::json data;
    data["receiver"] = n.receiver;
    data["status"] = std::string(n.status());
    data["alerts"] = nlohmann::json::array();
    for (const auto& a : n.alerts) {
      nlohmann::json labels = nlohmann::json::object();
      for (const auto& [k, v] : a.labels) labels[k] = v;
      data["alerts"].push_back({{"status", a.resolved_at(n.created_ms) ? "resolved" : "firing"},
                                {"labels", labels},
                                {"annotations", nlohmann::json::object()},
                                {"startsAt", "2024-05-01T10:00:00Z"},
                                {"endsAt", "0001-01-01T00:00:00Z"},
                                {"generatorURL", ""},
                                {"fingerprint", "0"}});
    }
    nlohmann::json gl = nlohmann::json::object();
    for (const auto& [k, v] : n.group_labels) gl[k] = v;
    data["groupLabels"] = gl;
    data["commonLabels"] = cases[i].common;
    data["commonAnnotations"] = nlohmann::json::object();
    data["externalURL"] = n.external_url;
    fs::path file = dir / ("data" + std::to_string(i) + ".json");
    std::ofstream(file) << data.dump();
    std::string cmd = std::string("/usr/bin/amtool template render --template.glob=") + tmpl +
                      " --template.text='{{ template \"__subject\" . }}|' --template.data=" + file.string() + " 2>&1";
    FILE* f = ::popen(cmd.c_str(), "r");
    ASSERT_NE(f, nullptr);
    std::string out;
    char buf[512];
    while (size_t r = std::fread(buf, 1, sizeof buf, f)) out.append(buf, r);
    int rc = ::pclose(f);
    ASSERT_EQ(rc, 0) << out;
    ASSERT_FALSE(out.empty());
    ASSERT_EQ(out.back(), '|') << out;
    out.pop_back();
    EXPECT_EQ(email_subject(n), out) << "case " << i;
  }
  fs::remove_all(dir);
}

TEST(EmailRender, MessageParsesBack) {
  Notification n = gpu_notification();
  std::string m = render(n, base_config());
  Parsed p = parse_message(m);
  EXPECT_EQ(p.subject, "[FIRING:2] GpuMemoryHigh (gpu0 node1)");
  EXPECT_EQ(p.top.get("From"), "llmon <alerts@node1.example.org>");
  EXPECT_EQ(p.top.get("To"), "GPU on call <gpu-oncall@example.org>, ops@example.org");
  EXPECT_EQ(p.top.get("Date"), "Wed, 01 May 2024 11:06:00 +0000");
  EXPECT_EQ(p.top.get("Message-ID"), "<1714561560000.0.abc@node1>");
  EXPECT_EQ(p.top.get("Auto-Submitted"), "auto-generated");
  EXPECT_EQ(p.text_ct, "text/plain; charset=UTF-8");
  EXPECT_EQ(p.html_ct, "text/html; charset=UTF-8");

  // Text part: what fired, since when, the annotations, labels, links; resolved separately.
  const std::string& t = p.text;
  size_t firing = t.find("FIRING (2)"), resolved = t.find("RESOLVED (1)");
  ASSERT_NE(firing, std::string::npos) << t;
  ASSERT_NE(resolved, std::string::npos) << t;
  EXPECT_LT(firing, resolved);
  EXPECT_EQ(count(t, "* GpuMemoryHigh"), 3u);
  EXPECT_EQ(field(t, "Summary"), "GPU memory above 95%");
  EXPECT_EQ(field(t, "Value"), "97.3");
  EXPECT_EQ(field(t, "Description"), "Memory used by training job");
  EXPECT_NE(t.find("Memory used by training job\n"), std::string::npos);
  EXPECT_EQ(trimmed(next_line(t, "Memory used by training job\n")), "see the runbook");
  EXPECT_EQ(field(t, "Since"), "2024-05-01 10:00:00 UTC (firing for 1h 5m)") << t;
  EXPECT_EQ(field(t, "Since", 1), "2024-05-01 10:30:00 UTC (firing for 35m)");
  std::string resolved_part = t.substr(resolved);
  EXPECT_EQ(field(resolved_part, "Resolved"), "2024-05-01 10:50:00 UTC (lasted 1h 50m)") << t;
  EXPECT_EQ(field(resolved_part, "Labels"), "gpu=gpu0, instance=node1, uuid=GPU-3");
  EXPECT_EQ(t.substr(firing, resolved - firing).find("uuid=GPU-3"), std::string::npos);
  EXPECT_EQ(field(t, "Labels"), "gpu=gpu0, instance=node1, uuid=GPU-1");
  EXPECT_EQ(field(t, "runbook_url"), "https://runbooks.example/gpu-mem");
  EXPECT_EQ(field(t, "Source"), "http://node1:9090/graph?g0.expr=gpu_mem&g0.tab=1");
  EXPECT_NE(t.find("llmon: http://node1:9100/alerts"), std::string::npos);

  // HTML part: the same facts, links as anchors, '&' escaped.
  const std::string& h = p.html;
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(h.find("<title>[FIRING:2] GpuMemoryHigh (gpu0 node1)</title>"), std::string::npos);
  EXPECT_NE(h.find("Firing (2)"), std::string::npos);
  EXPECT_NE(h.find("Resolved (1)"), std::string::npos);
  EXPECT_NE(h.find("GPU memory above 95%"), std::string::npos);
  EXPECT_NE(h.find("Memory used by training job<br>"), std::string::npos);
  EXPECT_NE(h.find("<a href=\"http://node1:9090/graph?g0.expr=gpu_mem&amp;g0.tab=1\">"), std::string::npos) << h;
  EXPECT_NE(h.find("<a href=\"https://runbooks.example/gpu-mem\">"), std::string::npos);
  EXPECT_NE(h.find("<a href=\"http://node1:9100/alerts\">"), std::string::npos);
  EXPECT_NE(h.find("(firing for 1h 5m)"), std::string::npos);
}

TEST(EmailRender, HeaderInjectionIsInert) {
  Notification n = gpu_notification();
  n.group_labels = {{"alertname", "Evil\r\nBcc: victim@example.org\r\nX-Injected: 1\r\n\r\n<html>"}};
  for (auto& a : n.alerts) a.labels[0].second = n.group_labels[0].second;
  std::string m = render(n, base_config());
  Parsed p = parse_message(m);
  EXPECT_TRUE(p.top.all("Bcc").empty());
  EXPECT_TRUE(p.top.all("X-Injected").empty());
  EXPECT_EQ(p.top.all("Subject").size(), 1u);
  EXPECT_NE(p.subject.find("Bcc: victim@example.org"), std::string::npos) << p.subject;  // inert text
  // Header names are the ones llmon writes, nothing else.
  std::set<std::string> names;
  for (const auto& [k, v] : p.top.headers) names.insert(k);
  EXPECT_EQ(names, (std::set<std::string>{"Date", "From", "To", "Subject", "Message-ID", "Auto-Submitted",
                                          "MIME-Version", "Content-Type"}));
}

TEST(EmailRender, HtmlInjectionIsEscaped) {
  Notification n = gpu_notification();
  n.alerts[0].annotations = {{"description", "<script>alert(1)</script> & <img src=x onerror=alert(2)>"},
                             {"dashboard", "javascript:alert(3)"},
                             {"summary", "\"quoted\" 'single'"}};
  n.alerts[0].labels.emplace_back("zz", "<b>bold</b>");
  n.alerts[0].generator_url = "http://x/\"><script>alert(4)</script>";
  n.external_url = "javascript:alert(5)";
  Parsed p = parse_message(render(n, base_config()));
  const std::string& h = p.html;
  EXPECT_EQ(h.find("<script"), std::string::npos) << h;
  EXPECT_EQ(h.find("<img"), std::string::npos);
  EXPECT_EQ(h.find("<b>bold"), std::string::npos);
  EXPECT_EQ(h.find("href=\"javascript"), std::string::npos);
  EXPECT_NE(h.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img"), std::string::npos);
  EXPECT_NE(h.find("&quot;quoted&quot; &#39;single&#39;"), std::string::npos);
  EXPECT_NE(h.find("javascript:alert(3)"), std::string::npos);  // shown as text, not a link
  // The generator URL has a quote and brackets: escaped, not an anchor at all (not a clean URL).
  EXPECT_NE(h.find("http://x/&quot;&gt;&lt;script&gt;"), std::string::npos) << h;
  // The text part keeps the text as it is (it is not HTML).
  EXPECT_NE(p.text.find("<script>alert(1)</script>"), std::string::npos);
}

TEST(EmailRender, NonAsciiSubjectAndControlsInText) {
  Notification n = gpu_notification();
  n.group_labels = {{"alertname",
                     "GPU-\xc3\x9c"
                     "berhitzung \xf0\x9f\x94\xa5"}};
  for (auto& a : n.alerts) a.labels[0].second = n.group_labels[0].second;
  n.alerts[0].annotations = {{"summary", "bell\x07 esc\x1b[31m red \xff bad byte"}};
  Parsed p = parse_message(render(n, base_config()));
  EXPECT_EQ(p.subject,
            "[FIRING:2] GPU-\xc3\x9c"
            "berhitzung \xf0\x9f\x94\xa5 (gpu0 node1)");
  EXPECT_NE(p.top.get("Subject").find("=?UTF-8?B?"), std::string::npos);
  EXPECT_NE(p.text.find("bell  esc [31m red \xef\xbf\xbd bad byte"), std::string::npos) << p.text;
}

TEST(EmailRender, HeadersOverrideAndExtra) {
  EmailSenderConfig c = base_config();
  c.headers = {{"Subject", "GPU trouble on node1"}, {"Reply-To", "noc@example.org"}, {"X-Team", "gpu \xc3\xa9quipe"}};
  Parsed p = parse_message(render(gpu_notification(), c));
  EXPECT_EQ(p.subject, "GPU trouble on node1");
  EXPECT_EQ(p.top.all("Subject").size(), 1u);
  EXPECT_EQ(p.top.get("Reply-To"), "noc@example.org");
  EXPECT_EQ(decode_words(p.top.get("X-Team")), "gpu \xc3\xa9quipe");
}

TEST(EmailRender, ParsedByPythonEmailPackage) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "/usr/bin/python3 not installed";
  Notification n = gpu_notification();
  n.group_labels = {{"alertname",
                     "GPU-\xc3\x9c"
                     "berhitzung"}};
  for (auto& a : n.alerts) a.labels[0].second = n.group_labels[0].second;
  std::string m = render(n, base_config());
  char dir_tmpl[] = "/tmp/llmon-pymail-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_tmpl), nullptr);
  fs::path dir = dir_tmpl;
  std::ofstream(dir / "m.eml", std::ios::binary) << m;
  std::ofstream(dir / "p.py") << R"PY(
import email, email.policy, json, sys
msg = email.message_from_binary_file(open(sys.argv[1], 'rb'), policy=email.policy.default)
out = {'subject': str(msg['subject']), 'from': [a.addr_spec for a in msg['from'].addresses],
       'to': [a.addr_spec for a in msg['to'].addresses], 'defects': len(msg.defects),
       'type': msg.get_content_type(), 'parts': []}
for part in msg.iter_parts():
    out['parts'].append({'type': part.get_content_type(), 'content': part.get_content(),
                         'defects': len(part.defects)})
print(json.dumps(out))
)PY";
  std::string cmd = "/usr/bin/python3 " + (dir / "p.py").string() + " " + (dir / "m.eml").string() + " 2>&1";
  FILE* f = ::popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string out;
  char buf[4096];
  while (size_t r = std::fread(buf, 1, sizeof buf, f)) out.append(buf, r);
  ASSERT_EQ(::pclose(f), 0) << out;
  fs::remove_all(dir);
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["subject"],
            "[FIRING:2] GPU-\xc3\x9c"
            "berhitzung (gpu0 node1)");
  EXPECT_EQ(j["from"], nlohmann::json({"alerts@node1.example.org"}));
  EXPECT_EQ(j["to"], nlohmann::json({"gpu-oncall@example.org", "ops@example.org"}));
  EXPECT_EQ(j["defects"], 0);
  EXPECT_EQ(j["type"], "multipart/alternative");
  ASSERT_EQ(j["parts"].size(), 2u);
  EXPECT_EQ(j["parts"][0]["type"], "text/plain");
  EXPECT_EQ(j["parts"][1]["type"], "text/html");
  EXPECT_EQ(j["parts"][0]["defects"], 0);
  EXPECT_EQ(j["parts"][0]["content"], email_text_body(n));
  EXPECT_EQ(j["parts"][1]["content"], email_html_body(n));
}

TEST(EmailConfig, Validation) {
  EXPECT_TRUE(validate_email_config(base_config()));
  auto err = [](auto mutate) {
    EmailSenderConfig c = base_config();
    mutate(c);
    Status s = validate_email_config(c);
    EXPECT_FALSE(s);
    return s.message();
  };
  EXPECT_EQ(err([](auto& c) { c.to.clear(); }), "email: to: at least one recipient is required");
  EXPECT_NE(err([](auto& c) { c.to.push_back("bad address"); }).find("email: to[2]: "), std::string::npos);
  EXPECT_NE(err([](auto& c) { c.from = "x@y>\r\nRCPT TO:<z@w"; }).find("email: from: "), std::string::npos);
  EXPECT_NE(err([](auto& c) { c.smarthost = "mail.example.org"; }).find("email: smarthost: "), std::string::npos);
  EXPECT_NE(err([](auto& c) { c.hello = "a b"; }).find("email: hello"), std::string::npos);
  EXPECT_NE(err([](auto& c) { c.auth_password = "x"; }).find("without auth_username"), std::string::npos);
  EXPECT_NE(err([](auto& c) {
              c.headers = {{"X-Evil", "a\r\nBcc: v@x"}};
            }).find("control characters"),
            std::string::npos);
  EXPECT_NE(err([](auto& c) { c.headers = {{"Content-Type", "text/plain"}}; }).find("set by llmon"), std::string::npos);
  EXPECT_NE(err([](auto& c) { c.headers = {{"Bad Name", "x"}}; }).find("not a header name"), std::string::npos);
  EXPECT_NE(err([](auto& c) { c.tls.cert_file = "/x"; }).find("cert_file and key_file"), std::string::npos);
}

TEST(EmailSender, ResolvedHandlingAndUniqueIds) {
  base::ManualClock clock(kT10 + 66 * kMin);
  EmailSenderConfig c = base_config();
  c.send_resolved = false;
  auto s = EmailSender::create(c, clock, "node1.example.org");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ((*s)->kind(), "email");
  EXPECT_FALSE((*s)->smtp_config().implicit_tls);
  Notification n = gpu_notification();
  auto m1 = (*s)->render(n);
  ASSERT_TRUE(m1 && m1->has_value());
  Parsed p = parse_message(**m1);
  EXPECT_EQ(p.text.find("RESOLVED"), std::string::npos) << "resolved alerts are left out without send_resolved";
  EXPECT_EQ(count(p.text, "* GpuMemoryHigh"), 2u);
  std::string id1 = p.top.get("Message-ID");
  EXPECT_EQ(id1.rfind("<" + std::to_string(kT10 + 66 * kMin) + ".", 0), 0u) << id1;
  EXPECT_NE(id1.find("@node1.example.org>"), std::string::npos);
  auto m2 = (*s)->render(n);
  ASSERT_TRUE(m2 && m2->has_value());
  EXPECT_NE(parse_message(**m2).top.get("Message-ID"), id1);

  Notification only_resolved = n;
  only_resolved.alerts = {n.alerts[2]};
  auto none = (*s)->render(only_resolved);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  DeliveryResult r = (*s)->send(only_resolved);  // nothing to send: no connection attempted
  EXPECT_EQ(r.outcome, DeliveryOutcome::kDelivered);

  EmailSenderConfig smtps = base_config();
  smtps.smarthost = "mail.example.org:465";
  auto s465 = EmailSender::create(smtps, clock);
  ASSERT_TRUE(s465) << s465.error();
  EXPECT_TRUE((*s465)->smtp_config().implicit_tls);
  EXPECT_EQ((*s465)->smtp_config().host, "mail.example.org");

  EmailSenderConfig bad = base_config();
  bad.from = "";
  EXPECT_FALSE(EmailSender::create(bad, clock));
}

}  // namespace
}  // namespace llmon::notify
