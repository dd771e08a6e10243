// printf into a std::string, for the findings' one-line summaries.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <map>
#include <string>

namespace llmon::diagnose {

[[gnu::format(printf, 1, 2)]] inline std::string strf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

// "GPU 3" or "GPU 3 (NVIDIA H100 80GB HBM3)".
inline std::string gpu_name(const std::map<std::string, std::string>& subject) {
  auto g = subject.find("gpu");
  std::string out = "GPU " + (g == subject.end() ? std::string("?") : g->second);
  if (auto m = subject.find("modelName"); m != subject.end()) out += " (" + m->second + ")";
  return out;
}

}  // namespace llmon::diagnose
