#include "base/log.h"

#include <chrono>
#include <ctime>

namespace llmon::base {
namespace {

// logfmt as go-kit writes it (github.com/go-logfmt/logfmt): a value is
// quoted when empty or holding a space, a control character, '=' or '"';
// inside quotes \ " \n \r \t are escaped and other control characters
// written as \u00XX, so one record is always one line.
void append_value(std::string& line, std::string_view v) {
  bool quote = v.empty();
  for (char ch : v) {
    auto c = static_cast<unsigned char>(ch);
    if (c <= ' ' || c == '=' || c == '"') quote = true;
  }
  if (!quote) {
    line += v;
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  line += '"';
  for (char ch : v) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
      case '\\':
        line += '\\';
        line += ch;
        break;
      case '\n':
        line += "\\n";
        break;
      case '\r':
        line += "\\r";
        break;
      case '\t':
        line += "\\t";
        break;
      default:
        if (c < ' ') {
          line += "\\u00";
          line += kHex[c >> 4];
          line += kHex[c & 15];
        } else {
          line += ch;
        }
    }
  }
  line += '"';
}

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view s) {
  if (s == "debug") return LogLevel::kDebug;
  if (s == "info") return LogLevel::kInfo;
  if (s == "warn") return LogLevel::kWarn;
  if (s == "error") return LogLevel::kError;
  return std::nullopt;
}

void Logger::log(LogLevel level, std::string_view msg, Fields fields) {
  if (!enabled(level)) return;
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char ts[64];
  std::snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  std::string line = "ts=";
  line += ts;
  line += " level=";
  line += level_name(level);
  line += " msg=";
  append_value(line, msg);
  for (const auto& [k, v] : fields) {
    line += ' ';
    line += k;
    line += '=';
    append_value(line, v);
  }
  line += '\n';
  std::lock_guard<std::mutex> lock(mu_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
}

}  // namespace llmon::base
