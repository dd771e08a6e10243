#include "diagnose/report.h"

#include <nlohmann/json.hpp>

#include "diagnose/format.h"

namespace llmon::diagnose {

namespace {

std::string iso_ms(int64_t ms) {
  time_t s = static_cast<time_t>(ms / 1000);
  struct tm tm {};
  gmtime_r(&s, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

int64_t parse_iso_ms(const std::string& s) {
  struct tm tm {};
  int ms = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &ms) != 7)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

Severity severity_from(const std::string& s) {
  return s == "critical" ? Severity::kCritical : s == "warning" ? Severity::kWarning : Severity::kInfo;
}

}  // namespace

Expected<Diagnosis> parse_json(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::error("diagnosis: not JSON");
  if (j.contains("data") && j.contains("status")) j = j["data"];
  if (j.value("schema", "") != "llmon.diagnosis.v1")
    return Status::error("diagnosis: schema is not llmon.diagnosis.v1");
  try {
    Diagnosis d;
    d.options.t_ms = parse_iso_ms(j.at("end").get<std::string>());
    d.options.window_ms = j.at("window_seconds").get<int64_t>() * 1000;
    d.options.selector = j.value("selector", "");
    const auto& s = j.at("summary");
    d.summary = {s.at("gpus").get<int>(), s.at("gpu_utilization_percent").get<double>(),
                 s.at("gpu_hours").get<double>(), s.at("cost").get<double>(), s.at("idle_cost").get<double>()};
    for (const auto& f : j.at("findings")) {
      Finding x;
      x.kind = f.at("kind").get<std::string>();
      x.severity = severity_from(f.at("severity").get<std::string>());
      x.confidence = f.at("confidence").get<double>();
      x.subject = f.at("subject").get<std::map<std::string, std::string>>();
      x.start_ms = parse_iso_ms(f.at("start").get<std::string>());
      x.end_ms = parse_iso_ms(f.at("end").get<std::string>());
      x.summary = f.at("summary").get<std::string>();
      for (const auto& e : f.at("evidence"))
        x.evidence.push_back({e.at("expr").get<std::string>(), e.at("value").get<double>(), e.value("note", "")});
      x.advice = f.at("advice").get<std::string>();
      d.findings.push_back(std::move(x));
    }
    d.errors = j.value("errors", std::vector<std::string>{});
    return d;
  } catch (const nlohmann::json::exception& e) {
    return Status::error(std::string("diagnosis: ") + e.what());
  }
}

std::string format_text(const Diagnosis& d) {
  std::string out =
      strf("diagnosis of %s .. %s (%s)\n", iso_ms(d.options.t_ms - d.options.window_ms).c_str(),
           iso_ms(d.options.t_ms).c_str(), d.options.selector.empty() ? "all series" : d.options.selector.c_str());
  const Summary& s = d.summary;
  if (d.findings.empty()) {
    out += s.gpus ? strf("healthy: %d GPUs at %.0f %% mean utilisation; %.1f GPU-hours, $%.2f, of which $%.2f unused\n",
                         s.gpus, s.gpu_utilization_avg, s.gpu_hours, s.cost, s.idle_cost)
                  : "healthy: nothing to report (no GPU series in the window)\n";
  } else {
    out += strf("%zu findings; %d GPUs at %.0f %% mean utilisation, $%.2f of $%.2f unused\n", d.findings.size(), s.gpus,
                s.gpu_utilization_avg, s.idle_cost, s.cost);
  }
  for (const Finding& f : d.findings) {
    out += strf("\n[%s] %s (confidence %.2f)\n  %s\n", std::string(severity_name(f.severity)).c_str(), f.kind.c_str(),
                f.confidence, f.summary.c_str());
    for (const Evidence& e : f.evidence)
      out += strf("  evidence: %s = %g%s%s\n", e.expr.c_str(), e.value, e.note.empty() ? "" : "  # ", e.note.c_str());
    out += "  try: " + f.advice + "\n";
  }
  for (const std::string& e : d.errors) out += "\nquery failed: " + e + "\n";
  return out;
}

std::string format_json(const Diagnosis& d) {
  nlohmann::json j;
  j["schema"] = "llmon.diagnosis.v1";
  j["start"] = iso_ms(d.options.t_ms - d.options.window_ms);
  j["end"] = iso_ms(d.options.t_ms);
  j["window_seconds"] = d.options.window_ms / 1000;
  j["selector"] = d.options.selector;
  j["healthy"] = d.findings.empty();
  j["summary"] = {{"gpus", d.summary.gpus},
                  {"gpu_utilization_percent", d.summary.gpu_utilization_avg},
                  {"gpu_hours", d.summary.gpu_hours},
                  {"cost", d.summary.cost},
                  {"idle_cost", d.summary.idle_cost}};
  nlohmann::json fs = nlohmann::json::array();
  for (const Finding& f : d.findings) {
    nlohmann::json ev = nlohmann::json::array();
    for (const Evidence& e : f.evidence) ev.push_back({{"expr", e.expr}, {"value", e.value}, {"note", e.note}});
    fs.push_back({{"kind", f.kind},
                  {"severity", severity_name(f.severity)},
                  {"confidence", f.confidence},
                  {"subject", f.subject},
                  {"start", iso_ms(f.start_ms)},
                  {"end", iso_ms(f.end_ms)},
                  {"summary", f.summary},
                  {"evidence", ev},
                  {"advice", f.advice}});
  }
  j["findings"] = fs;
  j["errors"] = d.errors;
  return j.dump(2) + "\n";
}

}  // namespace llmon::diagnose
