// HTTP header fields as the client keeps them: (name, value) pairs in the
// order sent or received; received names are lower-cased. Pure.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmon::net::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// The first value of the field named `lower_name`, or "" when absent.
inline std::string_view find_header(const Headers& headers, std::string_view lower_name) {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return {};
}

}  // namespace llmon::net::http
