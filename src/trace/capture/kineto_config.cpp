// Kineto on-demand configs and trace file names (kineto_config.h).
#include "trace/capture/kineto_config.h"

#include <cstdio>

#include "base/civil_time.h"

namespace llmon::trace::capture {

namespace {
const char* tf(bool b) {
  return b ? "true" : "false";
}
}  // namespace

std::string kineto_config(const CaptureSpec& s, std::string_view log_file) {
  std::string c = "ACTIVITIES_LOG_FILE=" + std::string(log_file) + "\n";
  if (s.iterations > 0) {
    c += "PROFILE_START_ITERATION=0\nPROFILE_START_ITERATION_ROUNDUP=" +
         std::to_string(s.iteration_roundup > 0 ? s.iteration_roundup : 1) +
         "\nACTIVITIES_ITERATIONS=" + std::to_string(s.iterations) + "\n";
  } else {
    c += "PROFILE_START_TIME=" + std::to_string(s.start_time_ms) +
         "\nACTIVITIES_DURATION_MSECS=" + std::to_string(s.duration_ms) + "\n";
  }
  c += std::string("PROFILE_REPORT_INPUT_SHAPES=") + tf(s.record_shapes) +
       "\nPROFILE_PROFILE_MEMORY=" + tf(s.profile_memory) + "\nPROFILE_WITH_STACK=" + tf(s.with_stack) +
       "\nPROFILE_WITH_FLOPS=" + tf(s.with_flops) + "\nPROFILE_WITH_MODULES=" + tf(s.with_modules) + "\n";
  return c;
}

std::string trace_stem(std::string_view host, int32_t pid, int64_t time_ms) {
  std::string h;
  for (char ch : host) {
    bool ok =
        (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
    h += ok ? ch : '_';
  }
  if (h.empty()) h = "host";
  base::CivilTime t = base::civil_from_unix_ms(time_ms);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld%02u%02uT%02u%02u%02u.%03uZ", static_cast<long long>(t.year), t.month, t.day,
                t.hour, t.minute, t.second, t.millis);
  return h + "_" + std::to_string(pid) + "_" + buf;
}

std::vector<std::string> expected_trace_paths(const std::string& dir, const std::string& stem, int32_t pid) {
  return {dir + "/" + stem + "_" + std::to_string(pid) + ".json", dir + "/" + stem + ".json"};
}

std::string kineto_default_trace_path(int32_t pid) {
  return "/tmp/libkineto_activities_" + std::to_string(pid) + ".json";
}

bool looks_complete(std::string_view tail) {
  size_t i = tail.find_last_not_of(" \t\r\n");
  return i != std::string_view::npos && (tail[i] == '}' || tail[i] == ']');
}

}  // namespace llmon::trace::capture
