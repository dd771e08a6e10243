// RFC 5424 section 6 (syntax) and RFC 6587 section 3.4.1 (octet counting);
// docs/logwatch-forward.md.
#include "logwatch/syslog_format.h"

#include <array>
#include <charconv>
#include <cstdio>

#include "base/civil_time.h"
#include "base/utf8.h"

namespace llmon::logwatch {

namespace {

// PRINTUSASCII (%d33-126) cut to `max`; other bytes become '_'; "" -> "-".
std::string header_field(std::string_view v, size_t max) {
  if (v.empty()) return "-";
  std::string out(v.substr(0, max));
  for (char& c : out)
    if (c < 33 || c > 126) c = '_';
  return out;
}

// SD-NAME: PRINTUSASCII except '=', SP, ']' and '"', 1 to 32 bytes.
std::string sd_name(std::string_view v) {
  if (v.empty()) return "_";
  std::string out(v.substr(0, 32));
  for (char& c : out)
    if (c < 33 || c > 126 || c == '=' || c == ']' || c == '"') c = '_';
  return out;
}

constexpr std::array<std::string_view, 24> kFacilities = {
    "kern",   "user",   "mail",     "daemon", "auth",   "syslog",   "lpr",     "news",
    "uucp",   "cron",   "authpriv", "ftp",    "ntp",    "security", "console", "clock",
    "local0", "local1", "local2",   "local3", "local4", "local5",   "local6",  "local7"};

}  // namespace

bool parse_syslog_facility(std::string_view text, int& out) {
  for (size_t i = 0; i < kFacilities.size(); ++i) {
    if (text == kFacilities[i]) {
      out = static_cast<int>(i);
      return true;
    }
  }
  int n = -1;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty() || n < 0 || n > 23) return false;
  out = n;
  return true;
}

int syslog_severity(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return 6;
    case Severity::kWarning:
      return 4;
    case Severity::kError:
      return 3;
    case Severity::kCritical:
      return 2;
  }
  return 6;
}

std::string rfc3339_millis(int64_t unix_ms) {
  base::CivilTime t = base::civil_from_unix_ms(unix_ms);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02u:%02u:%02u.%03uZ", static_cast<long long>(t.year), t.month,
                t.day, t.hour, t.minute, t.second, t.millis);
  return buf;
}

std::string sd_param_value(std::string_view v) {
  std::string valid = base::to_valid_utf8(v);
  std::string out;
  out.reserve(valid.size());
  for (char c : valid) {
    if (c == '"' || c == '\\' || c == ']') out += '\\';
    out += c;
  }
  return out;
}

std::string format_rfc5424(const SyslogMessage& m) {
  std::string out = "<" + std::to_string(m.pri) + ">1 ";
  out += rfc3339_millis(m.time_ms);
  out += ' ';
  out += header_field(m.hostname, 255);
  out += ' ';
  out += header_field(m.app_name, 48);
  out += ' ';
  out += header_field(m.procid, 128);
  out += ' ';
  out += header_field(m.msgid, 32);
  out += ' ';
  if (m.sd.empty()) out += '-';
  for (const SdElement& el : m.sd) {
    out += '[';
    out += sd_name(el.id);
    for (const auto& [name, value] : el.params) {
      out += ' ';
      out += sd_name(name);
      out += "=\"";
      out += sd_param_value(value);
      out += '"';
    }
    out += ']';
  }
  if (!m.msg.empty() || m.bom) {
    out += ' ';
    if (m.bom) out += "\xEF\xBB\xBF";
    out += m.msg;
  }
  return out;
}

SyslogMessage syslog_message(const Event& e, const SyslogEventOptions& o) {
  SyslogMessage m;
  m.pri = o.facility * 8 + syslog_severity(e.severity);
  m.time_ms = e.time_ms;
  m.hostname = o.hostname;
  m.app_name = o.app_name;
  m.msgid = e.rule;
  SdElement el;
  el.id = "llmon@32473";
  el.params.emplace_back("rule", e.rule);
  el.params.emplace_back("severity", severity_name(e.severity));
  el.params.emplace_back("source", e.source);
  el.params.emplace_back("id", std::to_string(e.id));
  if (e.repeat > 1) el.params.emplace_back("repeat", std::to_string(e.repeat));
  for (const auto& [k, v] : e.labels) el.params.emplace_back(k, v);
  m.sd.push_back(std::move(el));
  for (size_t i = 0; i < e.lines.size(); ++i) {
    if (i > 0) m.msg += '\n';
    m.msg += e.lines[i];
  }
  return m;
}

std::string octet_counted(std::string_view msg) {
  std::string out = std::to_string(msg.size());
  out += ' ';
  out += msg;
  return out;
}

}  // namespace llmon::logwatch
