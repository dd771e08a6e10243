// The catalogue endpoints of the Prometheus HTTP API: /api/v1/series,
// /api/v1/labels, /api/v1/label/<name>/values (over storage::Querier) and
// /api/v1/metadata (over the latest collected snapshot). Prometheus's rules
// (web/api/v1/api.go): match[] selectors each need a matcher that does not
// match the empty string; start/end default to all time; `limit` truncates
// with the warning "results truncated due to limit".
#include <algorithm>
#include <map>

#include "api/json.h"
#include "api/query_api.h"
#include "promql/label_functions.h"
#include "promql/parser.h"

namespace llmon::api {

namespace {

using MatcherSets = std::vector<std::vector<model::Matcher>>;

constexpr const char* kTruncated = "results truncated due to limit";

// Prometheus's parseMatchersParam.
Expected<MatcherSets> parse_matcher_sets(const std::vector<std::string>& texts) {
  MatcherSets sets;
  for (const std::string& text : texts) {
    auto parsed = promql::parse_selector(text);
    if (!parsed.ok()) return Status::error(parsed.error.to_string(text));
    const auto* vs = std::get_if<promql::VectorSelector>(&parsed.expr->node);
    if (!vs) return Status::error("1:1: parse error: expected a vector selector");
    sets.push_back(vs->matchers);
  }
  for (const auto& set : sets) {
    bool non_empty = false;
    for (const auto& m : set) {
      auto lm = promql::LabelMatcher::make(m);
      if (!lm) return lm.status();
      if (!lm->matches("")) non_empty = true;
    }
    if (!non_empty) return Status::error("match[] must contain at least one non-empty matcher");
  }
  return sets;
}

// Start and end clamped to what the store's arithmetic can take (+-73 million
// years; Prometheus's defaults are near the int64 limits).
int64_t clamp_time(int64_t t_ms) {
  return std::clamp(t_ms, INT64_MIN / 4, INT64_MAX / 4);
}

// Every series matching any of the sets in [mint, maxt], sorted and unique.
Expected<std::vector<model::Labels>> select_series(storage::Querier& q, int64_t mint, int64_t maxt,
                                                   const MatcherSets& sets) {
  std::vector<model::Labels> out;
  for (const auto& set : sets) {
    auto ss = q.select(mint, maxt, set);
    while (ss->next()) out.push_back(ss->at().labels());
    if (!ss->err().is_ok()) return ss->err();
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Label names or values over [start, end], sorted and unique: from the
// querier's index (`all`) without match[], else `of` each matching series.
template <typename All, typename Of>
Expected<std::vector<std::string>> label_strings(storage::Storage& storage, int64_t start, int64_t end,
                                                 const MatcherSets& sets, All all, Of of) {
  std::vector<std::string> out;
  if (start > end) return out;
  const int64_t mint = clamp_time(start), maxt = clamp_time(end);
  auto q = storage.querier(mint, maxt);
  if (!q) return Status::error(q.error());
  if (sets.empty()) return all(**q);
  auto series = select_series(**q, mint, maxt, sets);
  if (!series) return Status::error(series.error());
  for (const auto& ls : *series) of(ls, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void truncate(std::vector<std::string>& items, int64_t limit, std::vector<std::string>& warnings) {
  if (limit > 0 && items.size() > static_cast<size_t>(limit)) {
    items.resize(static_cast<size_t>(limit));
    warnings.emplace_back(kTruncated);
  }
}

// start and end (default: all time), checked in Prometheus's order.
std::optional<promql::QueryError> parse_start_end(const api::Form& form, int64_t& start, int64_t& end) {
  auto s = api::parse_time_param(form, "start", api::kMinTimeMs);
  if (!s) return promql::QueryError{promql::ErrorType::kBadData, "invalid parameter \"start\": " + s.error()};
  auto e = api::parse_time_param(form, "end", api::kMaxTimeMs);
  if (!e) return promql::QueryError{promql::ErrorType::kBadData, "invalid parameter \"end\": " + e.error()};
  start = *s;
  end = *e;
  return std::nullopt;
}

// The parameters /api/v1/labels and /api/v1/label/<name>/values share, checked
// in Prometheus's order; 2.42 reports match[] errors without naming it.
struct LabelParams {
  int64_t limit = 0, start = 0, end = 0;
  MatcherSets sets;
};
std::optional<promql::QueryError> parse_label_params(const api::Form& form, LabelParams& p) {
  auto limit = api::parse_limit(form.get("limit"));
  if (!limit) return promql::QueryError{promql::ErrorType::kBadData, "invalid parameter \"limit\": " + limit.error()};
  p.limit = *limit;
  if (auto e = parse_start_end(form, p.start, p.end)) return e;
  auto sets = parse_matcher_sets(form.all("match[]"));
  if (!sets) return promql::QueryError{promql::ErrorType::kBadData, sets.error()};
  p.sets = std::move(*sets);
  return std::nullopt;
}

promql::QueryError exec_error(const std::string& message) {
  return {promql::ErrorType::kExecution, message};
}

std::string_view metadata_type(model::MetricType t) {
  // Prometheus's text parser reports `untyped` as "unknown".
  return t == model::MetricType::kUntyped ? std::string_view("unknown") : model::type_name(t);
}

}  // namespace

QueryApi::Result QueryApi::series(const api::Form& form) const {
  if (auto u = unavailable()) return *u;
  auto limit = api::parse_limit(form.get("limit"));
  if (!limit) return failed({promql::ErrorType::kBadData, "invalid parameter \"limit\": " + limit.error()});
  std::vector<std::string> match = form.all("match[]");
  if (match.empty()) return failed({promql::ErrorType::kBadData, "no match[] parameter provided"});
  int64_t start = 0, end = 0;
  if (auto e = parse_start_end(form, start, end)) return failed(*e);
  auto sets = parse_matcher_sets(match);
  if (!sets) return failed({promql::ErrorType::kBadData, "invalid parameter \"match[]\": " + sets.error()});

  Result r;
  std::vector<model::Labels> found;
  if (start <= end) {
    int64_t mint = clamp_time(start), maxt = clamp_time(end);
    auto q = storage_->querier(mint, maxt);
    if (!q) return failed(exec_error(q.error()));
    auto s = select_series(**q, mint, maxt, *sets);
    if (!s) return failed(exec_error(s.error()));
    found = std::move(*s);
  }
  if (*limit > 0 && found.size() > static_cast<size_t>(*limit)) {
    found.resize(static_cast<size_t>(*limit));
    r.warnings.emplace_back(kTruncated);
  }
  r.data = api::encode_label_sets(found);
  return r;
}

QueryApi::Result QueryApi::labels(const api::Form& form) const {
  if (auto u = unavailable()) return *u;
  LabelParams p;
  if (auto e = parse_label_params(form, p)) return failed(*e);

  Result r;
  auto names = label_strings(
      *storage_, p.start, p.end, p.sets, [](storage::Querier& q) { return q.label_names(); },
      [](const model::Labels& ls, std::vector<std::string>& out) {
        for (const auto& l : ls.pairs()) out.push_back(l.name);
      });
  if (!names) return failed(exec_error(names.error()));
  truncate(*names, p.limit, r.warnings);
  r.data = api::encode_string_array(*names);
  return r;
}

QueryApi::Result QueryApi::label_values(std::string_view name_segment, const api::Form& form) const {
  if (auto u = unavailable()) return *u;
  auto name = api::parse_label_name_segment(name_segment);
  if (!name) return failed({promql::ErrorType::kBadData, name.error()});
  LabelParams p;
  if (auto e = parse_label_params(form, p)) return failed(*e);

  Result r;
  auto values = label_strings(
      *storage_, p.start, p.end, p.sets, [&](storage::Querier& q) { return q.label_values(*name); },
      [&](const model::Labels& ls, std::vector<std::string>& out) {
        if (std::string_view v = ls.get(*name); !v.empty()) out.emplace_back(v);
      });
  if (!values) return failed(exec_error(values.error()));
  truncate(*values, p.limit, r.warnings);
  r.data = api::encode_string_array(*values);
  return r;
}

QueryApi::Result QueryApi::metadata(const api::Form& form) const {
  int64_t limit = -1, limit_per_metric = -1;
  if (std::string_view s = form.get("limit"); !s.empty()) {
    auto n = api::go_atoi(s);
    if (!n) return failed({promql::ErrorType::kBadData, "limit must be a number"});
    limit = *n;
  }
  if (std::string_view s = form.get("limit_per_metric"); !s.empty()) {
    auto n = api::go_atoi(s);
    if (!n) return failed({promql::ErrorType::kBadData, "limit_per_metric must be a number"});
    limit_per_metric = *n;
  }
  std::string_view metric = form.get("metric");

  struct Entry {
    std::string_view type, help, unit;
    bool operator==(const Entry&) const = default;
  };
  std::map<std::string_view, std::vector<Entry>> families;
  model::SnapshotPtr snap = snapshots_ ? snapshots_() : nullptr;
  if (snap) {
    for (uint32_t idx : snap->order) {
      const model::Family& f = snap->families[idx];
      if (!metric.empty() && f.name != metric) continue;
      auto& entries = families[f.name];
      Entry e{metadata_type(f.type), f.help, {}};
      if (std::find(entries.begin(), entries.end(), e) != entries.end()) continue;
      if (limit_per_metric > 0 && static_cast<int64_t>(entries.size()) >= limit_per_metric) continue;
      entries.push_back(e);
    }
  }
  const std::vector<QueryApiOptions::MetadataEntry> extra =
      opts_.extra_metadata ? opts_.extra_metadata() : std::vector<QueryApiOptions::MetadataEntry>();
  for (const auto& x : extra) {
    if (!metric.empty() && x.metric != metric) continue;
    auto& entries = families[x.metric];
    Entry e{x.type, x.help, x.unit};
    if (std::find(entries.begin(), entries.end(), e) != entries.end()) continue;
    if (limit_per_metric > 0 && static_cast<int64_t>(entries.size()) >= limit_per_metric) continue;
    entries.push_back(e);
  }
  Result r;
  r.data = "{";
  int64_t n = 0;
  for (const auto& [name, entries] : families) {
    if (limit >= 0 && n >= limit) break;
    if (n++) r.data += ',';
    api::append_json_string(r.data, name);
    r.data += ":[";
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i) r.data += ',';
      r.data += "{\"type\":";
      api::append_json_string(r.data, entries[i].type);
      r.data += ",\"help\":";
      api::append_json_string(r.data, entries[i].help);
      r.data += ",\"unit\":";
      api::append_json_string(r.data, entries[i].unit);
      r.data += '}';
    }
    r.data += ']';
  }
  r.data += '}';
  return r;
}

}  // namespace llmon::api
