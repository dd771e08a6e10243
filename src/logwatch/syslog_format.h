// RFC 5424 syslog messages from log events, and RFC 6587 octet-counted
// framing for TCP (docs/logwatch-forward.md, "Syslog"). Pure functions on
// values: the bytes are tested against golden strings and the RFC's own
// examples (tests/logwatch/syslog_format_test.cpp); the connection is
// syslog_forwarder.h's.
//
// An event becomes
//   <PRI>1 TIMESTAMP HOSTNAME llmon - RULE [llmon@32473 rule=".." severity=".." source=".." id=".." ...] LINES
// PRI = facility * 8 + the event's severity (info 6, warning 4, error 3,
// critical 2); TIMESTAMP is the event's time in UTC with milliseconds;
// LINES are the event's lines joined by LF (octet counting carries them),
// sent as they were read (MSG-ANY, no BOM).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "logwatch/event.h"

namespace llmon::logwatch {

// Facility numbers (RFC 5424 table 1).
inline constexpr int kFacilityUser = 1;
inline constexpr int kFacilityLocal0 = 16;

// "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp",
// "cron", "authpriv", "ftp", "ntp", "security", "console", "clock",
// "local0".."local7", or a number 0..23; false otherwise.
bool parse_syslog_facility(std::string_view text, int& out);

// info 6 (informational), warning 4, error 3, critical 2.
int syslog_severity(Severity s);

struct SdElement {
  std::string id;                                           // SD-ID ("llmon@32473")
  std::vector<std::pair<std::string, std::string>> params;  // in order; values unescaped
};

// One RFC 5424 message, fields as they are to be written. Empty hostname,
// app_name, procid or msgid are written as the NILVALUE "-"; fields are cut
// to the RFC's lengths and bytes outside PRINTUSASCII become '_'.
struct SyslogMessage {
  int pri = 0;                // facility * 8 + severity
  int64_t time_ms = 0;        // written as 2003-10-11T22:14:15.003Z
  std::string hostname;       // <= 255
  std::string app_name;       // <= 48
  std::string procid;         // <= 128
  std::string msgid;          // <= 32
  std::vector<SdElement> sd;  // none: "-"
  std::string msg;            // none: no MSG part
  bool bom = false;           // MSG-UTF8: the BOM before msg
};

std::string format_rfc5424(const SyslogMessage& m);

// YYYY-MM-DDTHH:MM:SS.mmmZ.
std::string rfc3339_millis(int64_t unix_ms);

// A PARAM-VALUE's escaping: '"', '\' and ']' get a backslash; invalid UTF-8
// becomes U+FFFD (the RFC requires UTF-8 there).
std::string sd_param_value(std::string_view v);

struct SyslogEventOptions {
  int facility = kFacilityLocal0;
  std::string hostname;
  std::string app_name = "llmon";
};

// The message for one event (the header comment says how). The SD element
// llmon@32473 carries rule, severity, source, id, repeat (only when > 1) and
// then every event label in name order.
SyslogMessage syslog_message(const Event& e, const SyslogEventOptions& o);

// RFC 6587 3.4.1 octet counting: "LEN SP MSG".
std::string octet_counted(std::string_view msg);

}  // namespace llmon::logwatch
