// E-mail subject and bodies; see email.h. The subject follows
// Alertmanager's default.tmpl __subject:
//   [{{ .Status | toUpper }}{{ if eq .Status "firing" }}:{{ .Alerts.Firing | len }}{{ end }}]
//   {{ .GroupLabels.SortedPairs.Values | join " " }} {{ if gt (len .CommonLabels) (len .GroupLabels) }}
//   ({{ with .CommonLabels.Remove .GroupLabels.Names }}{{ .Values | join " " }}{{ end }}){{ end }}
#include <ctime>
#include <string>

#include "base/byte_escaper.h"
#include "base/utf8.h"
#include "notify/email/email.h"

namespace llmon::notify {

namespace {

struct Split {
  std::vector<const Alert*> firing, resolved;
};

Split split_alerts(const Notification& n) {
  Split s;
  for (const auto& a : n.alerts) (a.resolved_at(n.created_ms) ? s.resolved : s.firing).push_back(&a);
  return s;
}

// Labels with the same value in every alert (Alertmanager's CommonLabels).
LabelPairs common_labels(const Notification& n) {
  if (n.alerts.empty()) return {};
  LabelPairs out;
  for (const auto& [k, v] : n.alerts[0].labels) {
    bool all = true;
    for (size_t i = 1; i < n.alerts.size() && all; ++i) {
      bool found = false;
      for (const auto& [k2, v2] : n.alerts[i].labels)
        if (k2 == k) found = v2 == v;
      all = found;
    }
    if (all) out.emplace_back(k, v);
  }
  return out;
}

std::string utc_time(int64_t ms) {
  if (ms == 0) return "unknown";
  time_t t = static_cast<time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

// "1d 2h 3m 4s", zero units left out; "0s" for nothing.
std::string human_duration(int64_t ms) {
  if (ms < 0) ms = 0;
  int64_t s = ms / 1000;
  std::string out;
  const std::pair<int64_t, const char*> units[] = {{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}};
  for (const auto& [len, name] : units) {
    if (s >= len) {
      if (!out.empty()) out += ' ';
      out += std::to_string(s / len) + name;
      s %= len;
    }
  }
  return out.empty() ? "0s" : out;
}

// Text for the text/plain part: valid UTF-8, no control characters but LF/TAB.
std::string plain(std::string_view s) {
  std::string v = base::to_valid_utf8(s);
  for (char& c : v)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) c = ' ';
  return v;
}

// Text for the text/html part: valid UTF-8, escaped, a line break for each
// LF, CR dropped, other control characters as spaces.
std::string html_escape(std::string_view s) {
  static const base::ByteEscaper kHtml =
      base::ByteEscaper{{'&', "&amp;"},  {'<', "&lt;"},    {'>', "&gt;"}, {'"', "&quot;"},
                        {'\'', "&#39;"}, {'\n', "<br>\n"}, {'\r', ""}}
          .fill(0x00, 0x1f, " ")
          .fill(0x7f, 0x7f, " ");
  return kHtml(base::to_valid_utf8(s));
}

bool is_http_url(std::string_view u) {
  auto lower_prefix = [&](std::string_view p) {
    if (u.size() <= p.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(u[i])) != p[i]) return false;
    return true;
  };
  if (!lower_prefix("http://") && !lower_prefix("https://")) return false;
  for (char c : u)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return false;
  return true;
}

std::string html_link(std::string_view url) {
  if (!is_http_url(url)) return html_escape(url);
  return "<a href=\"" + html_escape(url) + "\">" + html_escape(url) + "</a>";
}

std::string labels_text(const Alert& a) {
  std::string out;
  for (const auto& [k, v] : a.labels) {
    if (k == "alertname") continue;
    if (!out.empty()) out += ", ";
    out += k + "=" + v;
  }
  return out;
}

constexpr std::string_view kHighlighted[] = {"summary", "description", "value"};

bool highlighted(std::string_view name) {
  for (auto h : kHighlighted)
    if (h == name) return true;
  return false;
}

std::string_view annotation(const Alert& a, std::string_view name) {
  for (const auto& [k, v] : a.annotations)
    if (k == name) return v;
  return {};
}

std::string capitalised(std::string_view s) {
  std::string out(s);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// One "  Name:  value" field of the text part; continuation lines indented.
void text_field(std::string& out, std::string_view name, std::string_view value) {
  std::string label = "  " + std::string(name) + ":";
  if (label.size() < 15)
    label.resize(15, ' ');
  else
    label += ' ';
  out += label;
  for (char c : plain(value)) {
    out += c;
    if (c == '\n') out += std::string(15, ' ');
  }
  out += '\n';
}

void text_alert(std::string& out, const Alert& a, bool resolved, int64_t now_ms) {
  out += "* " + plain(a.label("alertname")) + "\n";
  for (auto h : kHighlighted)
    if (auto v = annotation(a, h); !v.empty()) text_field(out, capitalised(h), v);
  text_field(
      out, "Since",
      utc_time(a.starts_at_ms) + (resolved ? "" : " (firing for " + human_duration(now_ms - a.starts_at_ms) + ")"));
  if (resolved)
    text_field(out, "Resolved",
               utc_time(a.ends_at_ms) + " (lasted " + human_duration(a.ends_at_ms - a.starts_at_ms) + ")");
  if (auto l = labels_text(a); !l.empty()) text_field(out, "Labels", l);
  for (const auto& [k, v] : a.annotations)
    if (!highlighted(k)) text_field(out, k, v);
  if (!a.generator_url.empty()) text_field(out, "Source", a.generator_url);
  out += '\n';
}

std::string counts_line(const Notification& n, const Split& s) {
  std::string out = std::to_string(s.firing.size()) + " firing";
  if (!s.resolved.empty()) out += ", " + std::to_string(s.resolved.size()) + " resolved";
  return out + " - receiver " + n.receiver;
}

void html_field(std::string& out, std::string_view name, const std::string& value_html) {
  out += "<tr><td style=\"padding:2px 12px 2px 0;color:#555;vertical-align:top\">" + html_escape(name) +
         "</td><td style=\"padding:2px 0\">" + value_html + "</td></tr>\n";
}

void html_alert(std::string& out, const Alert& a, bool resolved, int64_t now_ms) {
  out += "<table style=\"border-left:4px solid " + std::string(resolved ? "#2e7d32" : "#c62828") +
         ";margin:0 0 16px 0;padding:4px 12px;border-collapse:collapse\">\n";
  out += "<tr><td colspan=\"2\" style=\"font-weight:bold;padding:2px 0\">" + html_escape(a.label("alertname")) +
         "</td></tr>\n";
  for (auto h : kHighlighted)
    if (auto v = annotation(a, h); !v.empty()) html_field(out, capitalised(h), html_escape(v));
  html_field(out, "Since",
             html_escape(utc_time(a.starts_at_ms) +
                         (resolved ? "" : " (firing for " + human_duration(now_ms - a.starts_at_ms) + ")")));
  if (resolved)
    html_field(out, "Resolved",
               html_escape(utc_time(a.ends_at_ms) + " (lasted " + human_duration(a.ends_at_ms - a.starts_at_ms) + ")"));
  if (auto l = labels_text(a); !l.empty()) html_field(out, "Labels", html_escape(l));
  for (const auto& [k, v] : a.annotations)
    if (!highlighted(k)) html_field(out, k, html_link(v));
  if (!a.generator_url.empty()) html_field(out, "Source", html_link(a.generator_url));
  out += "</table>\n";
}

}  // namespace

std::string email_subject(const Notification& n) {
  Split s = split_alerts(n);
  std::string status(n.status());
  std::string out = "[";
  for (char c : status) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (status == "firing") out += ":" + std::to_string(s.firing.size());
  out += "] ";
  for (size_t i = 0; i < n.group_labels.size(); ++i) out += (i ? " " : "") + n.group_labels[i].second;
  out += " ";
  LabelPairs common = common_labels(n);
  if (common.size() > n.group_labels.size()) {
    std::string rest;
    for (const auto& [k, v] : common) {
      bool grouped = false;
      for (const auto& g : n.group_labels) grouped = grouped || g.first == k;
      if (!grouped) rest += (rest.empty() ? "" : " ") + v;
    }
    out += "(" + rest + ")";
  }
  return out;
}

std::string email_text_body(const Notification& n) {
  Split s = split_alerts(n);
  std::string out = plain(email_subject(n)) + "\n\n" + plain(counts_line(n, s)) + "\n\n";
  if (!s.firing.empty()) {
    out += "FIRING (" + std::to_string(s.firing.size()) + ")\n\n";
    for (const Alert* a : s.firing) text_alert(out, *a, false, n.created_ms);
  }
  if (!s.resolved.empty()) {
    out += "RESOLVED (" + std::to_string(s.resolved.size()) + ")\n\n";
    for (const Alert* a : s.resolved) text_alert(out, *a, true, n.created_ms);
  }
  if (!n.external_url.empty()) out += "-- \nllmon: " + plain(n.external_url) + "\n";
  return out;
}

std::string email_html_body(const Notification& n) {
  Split s = split_alerts(n);
  std::string subject = html_escape(email_subject(n));
  std::string out = "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"UTF-8\">\n<title>" + subject +
                    "</title>\n</head>\n<body style=\"font-family:Helvetica,Arial,sans-serif;font-size:14px\">\n";
  out += "<h2 style=\"margin:0 0 4px 0\">" + subject + "</h2>\n";
  out += "<p style=\"color:#555;margin:0 0 16px 0\">" + html_escape(counts_line(n, s)) + "</p>\n";
  if (!s.firing.empty()) {
    out += "<h3 style=\"color:#c62828\">Firing (" + std::to_string(s.firing.size()) + ")</h3>\n";
    for (const Alert* a : s.firing) html_alert(out, *a, false, n.created_ms);
  }
  if (!s.resolved.empty()) {
    out += "<h3 style=\"color:#2e7d32\">Resolved (" + std::to_string(s.resolved.size()) + ")</h3>\n";
    for (const Alert* a : s.resolved) html_alert(out, *a, true, n.created_ms);
  }
  if (!n.external_url.empty()) out += "<p>View in llmon: " + html_link(n.external_url) + "</p>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace llmon::notify
