// The two roles of llmon's web endpoints (an llmon extension to the
// exporter-toolkit file, docs/security.md): read (metrics, queries, UI, GET
// APIs) and admin (anything that changes state: reload, silences, import,
// push, deletes). Pure classification by method and path.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmon::websec {

enum class Role { kRead, kAdmin };

// GET/HEAD/OPTIONS and the query API's form POSTs are read; every other
// method is admin; so is every method on a path starting with one of
// `admin_prefixes` (e.g. "/metrics/job/" for the push store's GETs).
Role required_role(std::string_view method, std::string_view path, const std::vector<std::string>& admin_prefixes = {});

// Who is admin: with `admin_users` empty, every authenticated user (the
// toolkit's meaning of the file: a listed user may do everything);
// otherwise only those named (--web.admin-users), the others read.
Role user_role(std::string_view user, const std::vector<std::string>& admin_users);

}  // namespace llmon::websec
