// RFC 5424 messages byte for byte: the RFC's own examples (section 6.5)
// through the generic writer, and events through syslog_message().
#include "logwatch/syslog_format.h"

#include <gtest/gtest.h>

namespace llmon::logwatch {
namespace {

constexpr int64_t kRfcTime = 1065910455003;  // 2003-10-11T22:14:15.003Z

TEST(SyslogFormat, RfcExample1WithBom) {
  SyslogMessage m;
  m.pri = 34;
  m.time_ms = kRfcTime;
  m.hostname = "mymachine.example.com";
  m.app_name = "su";
  m.msgid = "ID47";
  m.msg = "'su root' failed for lonvick on /dev/pts/8";
  m.bom = true;
  EXPECT_EQ(format_rfc5424(m),
            "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - \xEF\xBB\xBF'su root' failed for "
            "lonvick on /dev/pts/8");
}

TEST(SyslogFormat, RfcExample3And4StructuredData) {
  SyslogMessage m;
  m.pri = 165;
  m.time_ms = kRfcTime;
  m.hostname = "mymachine.example.com";
  m.app_name = "evntslog";
  m.msgid = "ID47";
  m.sd.push_back({"exampleSDID@32473", {{"iut", "3"}, {"eventSource", "Application"}, {"eventID", "1011"}}});
  m.msg = "An application event log entry...";
  m.bom = true;
  EXPECT_EQ(format_rfc5424(m),
            "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\" "
            "eventSource=\"Application\" eventID=\"1011\"] \xEF\xBB\xBF"
            "An application event log entry...");
  m.sd.push_back({"examplePriority@32473", {{"class", "high"}}});
  m.msg.clear();
  m.bom = false;
  EXPECT_EQ(format_rfc5424(m),
            "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\" "
            "eventSource=\"Application\" eventID=\"1011\"][examplePriority@32473 class=\"high\"]");
}

TEST(SyslogFormat, NilValuesAndHeaderFieldLimits) {
  SyslogMessage m;
  m.pri = 0;
  m.time_ms = 0;
  EXPECT_EQ(format_rfc5424(m), "<0>1 1970-01-01T00:00:00.000Z - - - - -");
  m.hostname = "a b";              // SP is not PRINTUSASCII
  m.msgid = std::string(40, 'x');  // cut to 32
  m.app_name = "caf\xC3\xA9";      // non-ASCII bytes become '_'
  EXPECT_EQ(format_rfc5424(m), "<0>1 1970-01-01T00:00:00.000Z a_b caf__ - " + std::string(32, 'x') + " -");
}

TEST(SyslogFormat, ParamValueEscaping) {
  EXPECT_EQ(sd_param_value(R"(a"b\c]d)"), R"(a\"b\\c\]d)");
  EXPECT_EQ(sd_param_value("ok [x] = y"), "ok [x\\] = y");
  EXPECT_EQ(sd_param_value("bad\xFFutf8"), "bad\xEF\xBF\xBDutf8");
  SyslogMessage m;
  m.sd.push_back({"x y", {{"k=ey", "v"}}});  // SD-NAMEs lose '=', SP, ']' and '"'
  EXPECT_EQ(format_rfc5424(m), "<0>1 1970-01-01T00:00:00.000Z - - - - [x_y k_ey=\"v\"]");
}

TEST(SyslogFormat, Timestamps) {
  EXPECT_EQ(rfc3339_millis(kRfcTime), "2003-10-11T22:14:15.003Z");
  EXPECT_EQ(rfc3339_millis(1796275003999), "2026-12-03T05:16:43.999Z");
  EXPECT_EQ(rfc3339_millis(951782400000), "2000-02-29T00:00:00.000Z");  // leap day
}

TEST(SyslogFormat, FacilitiesAndSeverities) {
  int f = -1;
  EXPECT_TRUE(parse_syslog_facility("local0", f));
  EXPECT_EQ(f, 16);
  EXPECT_TRUE(parse_syslog_facility("user", f));
  EXPECT_EQ(f, 1);
  EXPECT_TRUE(parse_syslog_facility("local7", f));
  EXPECT_EQ(f, 23);
  EXPECT_TRUE(parse_syslog_facility("3", f));
  EXPECT_EQ(f, 3);
  EXPECT_FALSE(parse_syslog_facility("24", f));
  EXPECT_FALSE(parse_syslog_facility("local8", f));
  EXPECT_FALSE(parse_syslog_facility("", f));
  EXPECT_FALSE(parse_syslog_facility("1x", f));
  EXPECT_EQ(syslog_severity(Severity::kInfo), 6);
  EXPECT_EQ(syslog_severity(Severity::kWarning), 4);
  EXPECT_EQ(syslog_severity(Severity::kError), 3);
  EXPECT_EQ(syslog_severity(Severity::kCritical), 2);
}

Event oom_event() {
  Event e;
  e.id = 42;
  e.time_ms = 1796275003123;
  e.first_ms = e.time_ms;
  e.source = "/var/log/train.log";
  e.rule = "cuda_oom";
  e.severity = Severity::kError;
  e.labels = {{"size", "2.00 GiB"}, {"quote", "say \"hi\" [ok]"}};
  e.lines = {"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"};
  return e;
}

TEST(SyslogFormat, EventGolden) {
  SyslogEventOptions o;
  o.hostname = "gpu-node-1";
  EXPECT_EQ(format_rfc5424(syslog_message(oom_event(), o)),
            "<131>1 2026-12-03T05:16:43.123Z gpu-node-1 llmon - cuda_oom [llmon@32473 rule=\"cuda_oom\" "
            "severity=\"error\" source=\"/var/log/train.log\" id=\"42\" quote=\"say \\\"hi\\\" [ok\\]\" "
            "size=\"2.00 GiB\"] RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB");
}

TEST(SyslogFormat, EventRepeatMultilineAndFacility) {
  Event e = oom_event();
  e.labels.clear();
  e.severity = Severity::kCritical;
  e.repeat = 7;
  e.lines = {"Traceback (most recent call last):", "  File \"x.py\", line 1", "ValueError: x"};
  SyslogEventOptions o;
  o.facility = kFacilityUser;
  o.hostname = "h";
  EXPECT_EQ(format_rfc5424(syslog_message(e, o)),
            "<10>1 2026-12-03T05:16:43.123Z h llmon - cuda_oom [llmon@32473 rule=\"cuda_oom\" severity=\"critical\" "
            "source=\"/var/log/train.log\" id=\"42\" repeat=\"7\"] Traceback (most recent call last):\n  File "
            "\"x.py\", line 1\nValueError: x");
}

TEST(SyslogFormat, OctetCounting) {
  EXPECT_EQ(octet_counted(""), "0 ");
  EXPECT_EQ(octet_counted("<13>1 - - - - - -"), "17 <13>1 - - - - - -");
  std::string utf8 = "\xC3\xA9";  // counted in octets, not characters
  EXPECT_EQ(octet_counted(utf8), "2 " + utf8);
  std::string multi = "a\nb";
  EXPECT_EQ(octet_counted(multi), "3 a\nb");
}

}  // namespace
}  // namespace llmon::logwatch
