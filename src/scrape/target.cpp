#include "scrape/target.h"

#include <algorithm>
#include <map>

#include "base/hash.h"
#include "base/strings.h"
#include "base/utf8.h"

namespace llmon::scrape {
namespace {

std::string_view get(const std::vector<model::Label>& ls, std::string_view name) {
  for (const auto& l : ls)
    if (l.name == name) return l.value;
  return {};
}

void set(std::vector<model::Label>& ls, std::string_view name, std::string value) {
  for (auto& l : ls)
    if (l.name == name) {
      l.value = std::move(value);
      return;
    }
  ls.push_back({std::string(name), std::move(value)});
}

void sort_clean(std::vector<model::Label>& ls) {
  std::erase_if(ls, [](const model::Label& l) { return l.value.empty(); });
  std::sort(ls.begin(), ls.end(), [](const model::Label& a, const model::Label& b) { return a.name < b.name; });
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// Go's url.QueryEscape.
std::string query_escape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Whether an address lacks a port (Prometheus's addPort: net.SplitHostPort
// fails with "missing port in address").
bool needs_port(std::string_view addr) {
  if (!addr.empty() && addr[0] == '[') {
    const size_t close = addr.find(']');
    return close != std::string_view::npos && close + 1 == addr.size();
  }
  const size_t colon = addr.rfind(':');
  if (colon == std::string_view::npos) return true;
  // "a:b:c" (a bare IPv6 address) is "too many colons", not "missing port".
  return false;
}

}  // namespace

std::string prometheus_duration(int64_t ms) {
  if (ms == 0) return "0s";
  std::string out;
  if (ms < 0) {
    out += '-';
    ms = -ms;
  }
  struct Unit {
    int64_t ms;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{365LL * 24 * 3600 * 1000, "y"},
                                    {7LL * 24 * 3600 * 1000, "w"},
                                    {24LL * 3600 * 1000, "d"},
                                    {3600LL * 1000, "h"},
                                    {60LL * 1000, "m"},
                                    {1000, "s"},
                                    {1, "ms"}};
  for (const Unit& u : kUnits) {
    if (ms >= u.ms) {
      out += std::to_string(ms / u.ms);
      out += u.name;
      ms %= u.ms;
    }
  }
  return out;
}

std::string encode_query(const std::vector<std::pair<std::string, std::vector<std::string>>>& params) {
  std::map<std::string, std::vector<std::string>> sorted;
  for (const auto& [k, v] : params) {
    auto& dst = sorted[k];
    dst.insert(dst.end(), v.begin(), v.end());
  }
  std::string out;
  for (const auto& [k, vs] : sorted) {
    for (const auto& v : vs) {
      if (!out.empty()) out += '&';
      out += query_escape(k);
      out += '=';
      out += query_escape(v);
    }
  }
  return out;
}

TargetOutcome build_target(const ScrapeConfig& cfg, const Relabeler& relabel, const TargetGroup& group,
                           std::string_view address) {
  TargetOutcome out;
  std::vector<model::Label> ls = group.labels;
  set(ls, "__address__", std::string(address));
  const std::pair<std::string_view, std::string> defaults[] = {
      {"job", cfg.job_name},
      {"__scrape_interval__", prometheus_duration(cfg.scrape_interval_ms)},
      {"__scrape_timeout__", prometheus_duration(cfg.scrape_timeout_ms)},
      {"__metrics_path__", cfg.metrics_path},
      {"__scheme__", cfg.scheme},
  };
  for (const auto& [name, value] : defaults)
    if (get(ls, name).empty()) set(ls, name, value);
  for (const auto& [name, values] : cfg.params)
    if (!values.empty()) set(ls, "__param_" + name, values.front());
  sort_clean(ls);
  out.target.discovered_labels = ls;
  out.target.job = cfg.job_name;

  if (!relabel.process(ls)) {
    out.kind = TargetOutcome::Kind::kDropped;
    return out;
  }
  auto error = [&](std::string msg) {
    out.kind = TargetOutcome::Kind::kError;
    out.error = std::move(msg);
    return out;
  };
  std::string addr(get(ls, "__address__"));
  if (addr.empty()) return error("no address");
  if (needs_port(addr)) {
    const std::string_view scheme = get(ls, "__scheme__");
    if (scheme == "http" || scheme.empty())
      addr += ":80";
    else if (scheme == "https")
      addr += ":443";
    else
      return error("invalid scheme: \"" + cfg.scheme + "\"");
    set(ls, "__address__", addr);
  }
  if (addr.find('/') != std::string::npos) return error("\"" + addr + "\" is not a valid hostname");
  const std::string interval(get(ls, "__scrape_interval__")), timeout(get(ls, "__scrape_timeout__"));
  auto iv = base::parse_duration_ms(interval);
  if (!iv) return error("error parsing scrape interval: " + iv.error());
  if (*iv == 0) return error("scrape interval cannot be 0");
  auto to = base::parse_duration_ms(timeout);
  if (!to) return error("error parsing scrape timeout: " + to.error());
  if (*to == 0) return error("scrape timeout cannot be 0");
  if (*to > *iv)
    return error("scrape timeout cannot be greater than scrape interval (\"" + timeout + "\" > \"" + interval + "\")");
  std::erase_if(ls, [](const model::Label& l) { return starts_with(l.name, "__meta_"); });
  if (get(ls, "instance").empty()) set(ls, "instance", addr);
  sort_clean(ls);
  for (const auto& l : ls)
    if (!base::is_valid_utf8(l.value)) return error("invalid label value for \"" + l.name + "\": \"" + l.value + "\"");

  Target& t = out.target;
  t.all_labels = ls;
  for (const auto& l : ls)
    if (!starts_with(l.name, "__")) t.labels.push_back(l);
  t.interval_ms = *iv;
  t.timeout_ms = *to;
  std::vector<std::pair<std::string, std::vector<std::string>>> params = cfg.params;
  for (const auto& l : ls) {
    if (!starts_with(l.name, "__param_")) continue;
    const std::string key = l.name.substr(8);
    auto it = std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.first == key; });
    if (it != params.end() && !it->second.empty())
      it->second.front() = l.value;
    else if (it != params.end())
      it->second.push_back(l.value);
    else
      params.push_back({key, {l.value}});
  }
  t.scrape_url = std::string(get(ls, "__scheme__")) + "://" + addr + std::string(get(ls, "__metrics_path__"));
  const std::string query = encode_query(params);
  if (!query.empty()) t.scrape_url += "?" + query;
  std::string key = t.scrape_url;
  for (const auto& l : t.labels) key += '\xff' + l.name + '\xfe' + l.value;
  t.hash = base::fnv1a(base::kFnv1aOffset, key);
  return out;
}

}  // namespace llmon::scrape
