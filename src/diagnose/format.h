// printf into a std::string, for the findings' one-line summaries.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <map>
#include <string>

namespace llmon::diagnose {

[[gnu::format(printf, 1, 2)]] inline std::string strf(const char* fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, ap);  // any length: evidence lines carry whole PromQL expressions
  va_end(ap);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, again);
  va_end(again);
  return out;
}

// "GPU 3" or "GPU 3 (NVIDIA H100 80GB HBM3)".
inline std::string gpu_name(const std::map<std::string, std::string>& subject) {
  auto g = subject.find("gpu");
  std::string out = "GPU " + (g == subject.end() ? std::string("?") : g->second);
  if (auto m = subject.find("modelName"); m != subject.end()) out += " (" + m->second + ")";
  return out;
}

}  // namespace llmon::diagnose
