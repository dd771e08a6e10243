// Minimal leveled logger writing logfmt lines to a stream (stderr by default),
// in the style of Prometheus' go-kit logs: ts=... level=... msg="..." k=v.
// A Logger is passed explicitly (no global); it is thread-safe.
#pragma once

#include <cstdio>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace llmon::base {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

std::optional<LogLevel> parse_log_level(std::string_view s);

class Logger {
 public:
  using Fields = std::initializer_list<std::pair<std::string_view, std::string_view>>;
  explicit Logger(LogLevel min = LogLevel::kInfo, std::FILE* out = stderr) : min_(min), out_(out) {}
  // Same level and stream, own lock: for a thread that may outlive the
  // original's owner (an NVML worker abandoned in a hung driver call). Each
  // line is one fwrite, so loggers sharing a stream never split a line.
  Logger(const Logger& o) : min_(o.min_), out_(o.out_) {}
  Logger& operator=(const Logger&) = delete;
  void log(LogLevel level, std::string_view msg, Fields fields = {});
  void debug(std::string_view msg, Fields f = {}) { log(LogLevel::kDebug, msg, f); }
  void info(std::string_view msg, Fields f = {}) { log(LogLevel::kInfo, msg, f); }
  void warn(std::string_view msg, Fields f = {}) { log(LogLevel::kWarn, msg, f); }
  void error(std::string_view msg, Fields f = {}) { log(LogLevel::kError, msg, f); }
  bool enabled(LogLevel l) const { return l >= min_; }

 private:
  LogLevel min_;
  std::FILE* out_;
  std::mutex mu_;
};

}  // namespace llmon::base
