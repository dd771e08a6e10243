// Routing tree (see route.h); semantics from Alertmanager's dispatch/route.go
// and dispatch.go (getGroupLabels, aggrGroup.GroupKey).
#include "notify/routing/route.h"

#include <algorithm>

#include "base/hash.h"
#include "go/strconv.h"

namespace llmon::notify {

std::unique_ptr<Route> Route::build(const RouteConfig& cfg, const Route* parent) {
  auto r = std::make_unique<Route>();
  r->parent_ = parent;
  if (parent) r->opts_ = parent->opts_;
  if (!cfg.receiver.empty()) r->opts_.receiver = cfg.receiver;
  if (cfg.group_by) {
    r->opts_.group_by = *cfg.group_by;
    std::sort(r->opts_.group_by.begin(), r->opts_.group_by.end());
    r->opts_.group_by.erase(std::unique(r->opts_.group_by.begin(), r->opts_.group_by.end()), r->opts_.group_by.end());
    r->opts_.group_by_all = false;
  } else if (cfg.group_by_all) {
    r->opts_.group_by_all = true;
  }
  if (cfg.group_wait_ms) r->opts_.group_wait_ms = *cfg.group_wait_ms;
  if (cfg.group_interval_ms) r->opts_.group_interval_ms = *cfg.group_interval_ms;
  if (cfg.repeat_interval_ms) r->opts_.repeat_interval_ms = *cfg.repeat_interval_ms;
  r->matchers_ = cfg.matchers;
  sort_matchers(r->matchers_);
  r->continue_ = cfg.continue_matching;
  r->key_ = parent ? parent->key_ + "/" + matchers_to_string(r->matchers_) : matchers_to_string(r->matchers_);
  r->id_ = r->key_;
  for (size_t i = 0; i < cfg.routes.size(); ++i) {
    auto child = build(cfg.routes[i], r.get());
    child->id_ = child->key_ + "/" + std::to_string(i);
    r->children_.push_back(std::move(child));
  }
  return r;
}

std::vector<const Route*> Route::match(const LabelPairs& labels) const {
  std::vector<const Route*> all;
  if (!matches_all(matchers_, labels)) return all;
  for (const auto& child : children_) {
    auto m = child->match(labels);
    const bool matched = !m.empty();
    all.insert(all.end(), m.begin(), m.end());
    if (matched && !child->continue_) break;
  }
  if (all.empty()) all.push_back(this);
  return all;
}

LabelPairs Route::group_labels(const LabelPairs& alert_labels) const {
  LabelPairs out;
  for (const auto& [k, v] : alert_labels)
    if (opts_.group_by_all || std::binary_search(opts_.group_by.begin(), opts_.group_by.end(), k))
      out.emplace_back(k, v);
  std::sort(out.begin(), out.end());
  return out;
}

std::string Route::group_key(const LabelPairs& group_labels) const {
  return key_ + ":" + label_set_string(group_labels);
}

std::string label_set_string(const LabelPairs& labels) {
  std::vector<std::string> parts;
  parts.reserve(labels.size());
  for (const auto& [k, v] : labels) parts.push_back(k + "=" + go::quote(v));
  std::sort(parts.begin(), parts.end());
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  out += '}';
  return out;
}

uint64_t labels_fingerprint(const LabelPairs& labels) {
  uint64_t h = base::kFnv1aOffset;
  auto add = [&](std::string_view s) { h = base::fnv1a_field(h, s); };
  auto by_name = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (std::is_sorted(labels.begin(), labels.end(), by_name)) {
    for (const auto& [k, v] : labels) {
      add(k);
      add(v);
    }
    return h;
  }
  std::vector<const std::pair<std::string, std::string>*> sorted;
  sorted.reserve(labels.size());
  for (const auto& p : labels) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [&](auto* a, auto* b) { return by_name(*a, *b); });
  for (const auto* p : sorted) {
    add(p->first);
    add(p->second);
  }
  return h;
}

}  // namespace llmon::notify
