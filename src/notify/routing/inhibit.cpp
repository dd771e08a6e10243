// Inhibition rules (see inhibit.h).
#include "notify/routing/inhibit.h"

namespace llmon::notify {

Inhibitor::Inhibitor(const std::vector<InhibitRuleConfig>& rules) {
  for (const auto& rc : rules) {
    Rule r;
    r.source = rc.source_matchers;
    r.target = rc.target_matchers;
    r.equal = rc.equal;
    rules_.push_back(std::move(r));
  }
}

std::string Inhibitor::equal_key(const Rule& r, const LabelPairs& labels) {
  std::string key;
  for (const auto& name : r.equal) {
    for (const auto& [k, v] : labels)
      if (k == name) {
        key += v;
        break;
      }
    key += '\xff';
  }
  return key;
}

void Inhibitor::observe(const Alert& alert, uint64_t fingerprint) {
  for (auto& r : rules_) {
    if (!matches_all(r.source, alert.labels)) continue;
    Source& s = r.by_equal[equal_key(r, alert.labels)][fingerprint];
    s.ends_at_ms = alert.ends_at_ms;
    s.matches_target = matches_all(r.target, alert.labels);
  }
}

bool Inhibitor::mutes(const LabelPairs& labels, int64_t now_ms) const {
  for (const auto& r : rules_) {
    if (!matches_all(r.target, labels)) continue;
    auto it = r.by_equal.find(equal_key(r, labels));
    if (it == r.by_equal.end()) continue;
    const bool exclude_two_sided = matches_all(r.source, labels);
    for (const auto& [fp, s] : it->second) {
      if (s.ends_at_ms != 0 && s.ends_at_ms <= now_ms) continue;  // resolved
      if (exclude_two_sided && s.matches_target) continue;
      return true;
    }
  }
  return false;
}

size_t Inhibitor::gc(int64_t now_ms) {
  size_t dropped = 0;
  for (auto& r : rules_) {
    for (auto it = r.by_equal.begin(); it != r.by_equal.end();) {
      for (auto s = it->second.begin(); s != it->second.end();) {
        if (s->second.ends_at_ms != 0 && s->second.ends_at_ms <= now_ms) {
          s = it->second.erase(s);
          ++dropped;
        } else {
          ++s;
        }
      }
      it = it->second.empty() ? r.by_equal.erase(it) : std::next(it);
    }
  }
  return dropped;
}

size_t Inhibitor::source_count() const {
  size_t n = 0;
  for (const auto& r : rules_)
    for (const auto& [k, m] : r.by_equal) n += m.size();
  return n;
}

}  // namespace llmon::notify
