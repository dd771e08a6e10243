// Notification config: top level, global, route tree, inhibit rules and the
// cross-checks of Alertmanager 0.25's config.Load (config/config.go).
#include "notify/config/notify_config.h"

#include <fstream>
#include <set>
#include <sstream>

#include "go/strconv.h"
#include "notify/config/notify_config_yaml.h"

namespace llmon::notify {

using config_yaml::check_map;
using config_yaml::Ctx;
using config_yaml::join_path;

const ReceiverConfig* NotifyConfig::receiver(std::string_view name) const {
  for (const auto& r : receivers)
    if (r.name == name) return &r;
  return nullptr;
}

Expected<int64_t> parse_am_duration_ms(std::string_view s) {
  if (s == "0") return int64_t{0};
  if (s.empty()) return Status::error("empty duration string");
  auto bad = [&] { return Status::error("not a valid duration string: " + go::quote(s)); };
  static constexpr std::pair<std::string_view, int64_t> kUnits[] = {
      {"y", 365LL * 86'400'000},
      {"w", 7LL * 86'400'000},
      {"d", 86'400'000},
      {"h", 3'600'000},
      {"m", 60'000},
      {"s", 1000},
      {"ms", 1},
  };
  size_t next_unit = 0;
  int64_t total = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (start == i) return bad();
    std::string_view digits = s.substr(start, i - start);
    size_t ustart = i;
    while (i < s.size() && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) ++i;
    std::string_view unit = s.substr(ustart, i - ustart);
    size_t u = next_unit;
    while (u < std::size(kUnits) && kUnits[u].first != unit) ++u;
    if (u == std::size(kUnits)) return bad();
    next_unit = u + 1;
    int64_t n = 0;
    for (char ch : digits)
      if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, ch - '0', &n))
        return Status::error("duration out of range");
    int64_t part = 0;
    // Go's time.Duration is int64 nanoseconds.
    if (__builtin_mul_overflow(n, kUnits[u].second, &part) || __builtin_add_overflow(total, part, &total) ||
        total > INT64_MAX / 1'000'000)
      return Status::error("duration out of range");
  }
  return total;
}

namespace {

Status read_global(const Ctx& c, const YAML::Node& n, GlobalConfig& g) {
  const std::string path = "global";
  if (auto s =
          check_map(c, n, path,
                    {.known = {"resolve_timeout", "smtp_from", "smtp_hello", "smtp_smarthost", "smtp_auth_username",
                               "smtp_auth_password", "smtp_auth_password_file", "smtp_auth_secret",
                               "smtp_auth_identity", "smtp_require_tls", "http_config"},
                     .ignored = {"slack_api_url", "slack_api_url_file", "pagerduty_url", "opsgenie_api_url",
                                 "opsgenie_api_key", "opsgenie_api_key_file", "wechat_api_url", "wechat_api_secret",
                                 "wechat_api_corp_id", "victorops_api_url", "victorops_api_key",
                                 "victorops_api_key_file", "telegram_api_url", "webex_api_url"}});
      !s)
    return s;
  if (!n.IsDefined() || n.IsNull()) return Status::ok();
  std::optional<int64_t> rt;
  if (auto s = config_yaml::read_duration(c, n, path, "resolve_timeout", rt); !s) return s;
  if (rt) g.resolve_timeout_ms = *rt;
  for (auto [key, field] :
       {std::pair{"smtp_from", &g.smtp_from}, std::pair{"smtp_hello", &g.smtp_hello},
        std::pair{"smtp_smarthost", &g.smtp_smarthost}, std::pair{"smtp_auth_username", &g.smtp_auth_username},
        std::pair{"smtp_auth_password", &g.smtp_auth_password},
        std::pair{"smtp_auth_password_file", &g.smtp_auth_password_file},
        std::pair{"smtp_auth_secret", &g.smtp_auth_secret}, std::pair{"smtp_auth_identity", &g.smtp_auth_identity}})
    if (auto s = config_yaml::read_string(c, n, path, key, *field); !s) return s;
  if (auto s = config_yaml::read_bool(c, n, path, "smtp_require_tls", g.smtp_require_tls); !s) return s;
  if (!g.smtp_smarthost.empty()) {
    std::string host, port;
    if (auto s = config_yaml::split_smarthost(g.smtp_smarthost, host, port); !s)
      return c.error(n["smtp_smarthost"], join_path(path, "smtp_smarthost"), s.message());
  }
  if (!g.smtp_auth_password.empty() && !g.smtp_auth_password_file.empty())
    return c.error(n, path, "at most one of smtp_auth_password & smtp_auth_password_file must be configured");
  return config_yaml::read_http_config(c, n["http_config"], join_path(path, "http_config"), g.http_config);
}

Status read_route(const Ctx& c, const YAML::Node& n, const std::string& path, RouteConfig& r) {
  if (auto s = check_map(c, n, path,
                         {.known = {"receiver", "group_by", "match", "match_re", "matchers", "continue", "routes",
                                    "group_wait", "group_interval", "repeat_interval"},
                          .unsupported = {"mute_time_intervals", "active_time_intervals"}});
      !s)
    return s;
  r.pos = config_yaml::pos_of(n);
  if (!n.IsDefined() || n.IsNull()) return Status::ok();
  if (auto s = config_yaml::read_string(c, n, path, "receiver", r.receiver); !s) return s;
  if (auto s = config_yaml::read_bool(c, n, path, "continue", r.continue_matching); !s) return s;
  if (auto s = config_yaml::read_matchers(c, n, path, "match", "match_re", "matchers", r.matchers); !s) return s;
  std::optional<std::vector<std::string>> group_by;
  if (auto s = config_yaml::read_string_list(c, n, path, "group_by", group_by); !s) return s;
  if (group_by) {
    const YAML::Node gb = n["group_by"];
    std::vector<std::string> labels;
    std::set<std::string> seen;
    for (size_t i = 0; i < group_by->size(); ++i) {
      const std::string& l = (*group_by)[i];
      if (l == "...") {
        r.group_by_all = true;
        continue;
      }
      if (!is_valid_label_name(l))
        return c.error(gb[i], join_path(path, "group_by"), "invalid label name \"" + l + "\" in group_by list");
      labels.push_back(l);
    }
    if (!labels.empty() && r.group_by_all)
      return c.error(gb, join_path(path, "group_by"),
                     "cannot have wildcard group_by (`...`) and other labels at the same time");
    for (const auto& l : labels)
      if (!seen.insert(l).second)
        return c.error(gb, join_path(path, "group_by"), "duplicated label \"" + l + "\" in group_by");
    // As in Alertmanager, an empty list (`group_by: []`, or only `...`) leaves
    // the label list inherited from the parent.
    if (!labels.empty()) r.group_by = std::move(labels);
  }
  if (auto s = config_yaml::read_duration(c, n, path, "group_wait", r.group_wait_ms); !s) return s;
  if (auto s = config_yaml::read_duration(c, n, path, "group_interval", r.group_interval_ms); !s) return s;
  if (auto s = config_yaml::read_duration(c, n, path, "repeat_interval", r.repeat_interval_ms); !s) return s;
  if (r.group_interval_ms && *r.group_interval_ms == 0)
    return c.error(n["group_interval"], join_path(path, "group_interval"), "group_interval cannot be zero");
  if (r.repeat_interval_ms && *r.repeat_interval_ms == 0)
    return c.error(n["repeat_interval"], join_path(path, "repeat_interval"), "repeat_interval cannot be zero");
  YAML::Node routes = n["routes"];
  if (routes.IsDefined() && !routes.IsNull()) {
    const std::string p = join_path(path, "routes");
    if (!routes.IsSequence()) return c.error(routes, p, "expected a list of routes");
    for (size_t i = 0; i < routes.size(); ++i) {
      RouteConfig child;
      if (auto s = read_route(c, routes[i], config_yaml::index_path(p, i), child); !s) return s;
      r.routes.push_back(std::move(child));
    }
  }
  return Status::ok();
}

Status read_inhibit_rule(const Ctx& c, const YAML::Node& n, const std::string& path, InhibitRuleConfig& r) {
  if (auto s = check_map(c, n, path,
                         {.known = {"source_match", "source_match_re", "source_matchers", "target_match",
                                    "target_match_re", "target_matchers", "equal"}});
      !s)
    return s;
  r.pos = config_yaml::pos_of(n);
  if (!n.IsDefined() || n.IsNull()) return Status::ok();
  if (auto s = config_yaml::read_matchers(c, n, path, "source_match", "source_match_re", "source_matchers",
                                          r.source_matchers);
      !s)
    return s;
  if (auto s = config_yaml::read_matchers(c, n, path, "target_match", "target_match_re", "target_matchers",
                                          r.target_matchers);
      !s)
    return s;
  std::optional<std::vector<std::string>> equal;
  if (auto s = config_yaml::read_string_list(c, n, path, "equal", equal); !s) return s;
  if (equal) {
    for (size_t i = 0; i < equal->size(); ++i)
      if (!is_valid_label_name((*equal)[i]))
        return c.error(n["equal"][i], join_path(path, "equal"),
                       "invalid label name \"" + (*equal)[i] + "\" in equal list");
    r.equal = std::move(*equal);
  }
  return Status::ok();
}

Status check_receivers_used(const Ctx& c, const YAML::Node& n, const std::string& path, const RouteConfig& r,
                            const std::set<std::string>& names) {
  YAML::Node routes = n["routes"];
  for (size_t i = 0; i < r.routes.size(); ++i)
    if (auto s = check_receivers_used(c, routes[i], config_yaml::index_path(join_path(path, "routes"), i), r.routes[i],
                                      names);
        !s)
      return s;
  if (!r.receiver.empty() && !names.count(r.receiver))
    return c.error(n["receiver"], join_path(path, "receiver"),
                   "undefined receiver \"" + r.receiver + "\" used in route");
  return Status::ok();
}

}  // namespace

Expected<NotifyConfig> parse_notify_config(std::string_view text, std::string_view file) {
  NotifyConfig cfg;
  Ctx c{std::string(file), &cfg.warnings};
  try {
    YAML::Node root = YAML::Load(std::string(text));
    if (!root.IsDefined() || root.IsNull()) return Status::error(std::string(file) + ": no route provided in config");
    if (auto s = check_map(c, root, "",
                           {.known = {"global", "route", "receivers", "inhibit_rules"},
                            .unsupported = {"templates", "time_intervals", "mute_time_intervals"}});
        !s)
      return s;
    if (auto s = read_global(c, root["global"], cfg.global); !s) return s;

    YAML::Node receivers = root["receivers"];
    std::set<std::string> names;
    if (receivers.IsDefined() && !receivers.IsNull()) {
      if (!receivers.IsSequence()) return c.error(receivers, "receivers", "expected a list of receivers");
      for (size_t i = 0; i < receivers.size(); ++i) {
        ReceiverConfig r;
        const std::string p = config_yaml::index_path("receivers", i);
        if (auto s = config_yaml::read_receiver(c, receivers[i], p, cfg.global, r); !s) return s;
        if (!names.insert(r.name).second)
          return c.error(receivers[i]["name"], p, "notification config name \"" + r.name + "\" is not unique");
        cfg.receivers.push_back(std::move(r));
      }
    }

    YAML::Node inhibit = root["inhibit_rules"];
    if (inhibit.IsDefined() && !inhibit.IsNull()) {
      if (!inhibit.IsSequence()) return c.error(inhibit, "inhibit_rules", "expected a list of inhibit rules");
      for (size_t i = 0; i < inhibit.size(); ++i) {
        InhibitRuleConfig r;
        if (auto s = read_inhibit_rule(c, inhibit[i], config_yaml::index_path("inhibit_rules", i), r); !s) return s;
        cfg.inhibit_rules.push_back(std::move(r));
      }
    }

    YAML::Node route = root["route"];
    if (!route.IsDefined() || route.IsNull()) return c.error(root, "", "no route provided in config");
    if (auto s = read_route(c, route, "route", cfg.route); !s) return s;
    if (cfg.route.continue_matching) return c.error(route["continue"], "route", "cannot have continue in root route");
    if (cfg.route.receiver.empty()) return c.error(route, "route", "root route must specify a default receiver");
    if (!cfg.route.matchers.empty()) return c.error(route, "route", "root route must not have any matchers");
    if (auto s = check_receivers_used(c, route, "route", cfg.route, names); !s) return s;
  } catch (const YAML::Exception& e) {
    // yaml-cpp's marks are 0-based.
    return Status::error(std::string(file) + ":" + std::to_string(e.mark.line + 1) + ":" +
                         std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return Status::error(std::string(file) + ": " + e.what());
  }
  return cfg;
}

Expected<NotifyConfig> load_notify_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open the notification config");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::error(path + ": read error");
  return parse_notify_config(ss.str(), path);
}

}  // namespace llmon::notify
