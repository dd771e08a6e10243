#include "websec/roles.h"

#include <algorithm>
#include <array>

namespace llmon::websec {

Role required_role(std::string_view method, std::string_view path, const std::vector<std::string>& admin_prefixes) {
  for (const std::string& p : admin_prefixes)
    if (path.substr(0, p.size()) == p) return Role::kAdmin;
  if (method == "GET" || method == "HEAD" || method == "OPTIONS") return Role::kRead;
  // Prometheus's query API takes form POSTs for long queries: still reads.
  static constexpr std::array<std::string_view, 6> kReadPosts = {"/api/v1/query",        "/api/v1/query_range",
                                                                 "/api/v1/series",       "/api/v1/labels",
                                                                 "/api/v1/format_query", "/api/v1/query_exemplars"};
  if (method != "POST") return Role::kAdmin;
  // The same calls through the dashboard's fleet data source (api/datasource_proxy.h).
  constexpr std::string_view kDatasource = "/ui/datasource";
  if (path.substr(0, kDatasource.size()) == kDatasource) path.remove_prefix(kDatasource.size());
  if (std::find(kReadPosts.begin(), kReadPosts.end(), path) != kReadPosts.end()) return Role::kRead;
  return Role::kAdmin;
}

Role user_role(std::string_view user, const std::vector<std::string>& admin_users) {
  if (admin_users.empty()) return Role::kAdmin;
  return std::find(admin_users.begin(), admin_users.end(), user) != admin_users.end() ? Role::kAdmin : Role::kRead;
}

}  // namespace llmon::websec
