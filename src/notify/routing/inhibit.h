// Inhibition as Alertmanager's inhibit/inhibit.go (0.25): an alert matching a
// rule's target matchers is muted while a firing alert matching the source
// matchers has the same values (missing = "") for the `equal` labels; when the
// target alert matches the source matchers too, source alerts that also match
// the target matchers do not count (an alert never inhibits itself that way).
// The source side is a cache fed with every alert update (observe); resolved
// sources are skipped and dropped by gc(). Not thread-safe: the dispatcher
// owns one under its lock.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "notify/alert.h"
#include "notify/config/notify_config.h"

namespace llmon::notify {

class Inhibitor {
 public:
  explicit Inhibitor(const std::vector<InhibitRuleConfig>& rules);

  // Records the current state of an alert (identified by its fingerprint).
  void observe(const Alert& alert, uint64_t fingerprint);
  // Whether an alert with these labels is inhibited at now_ms.
  bool mutes(const LabelPairs& labels, int64_t now_ms) const;
  // Drops sources resolved at now_ms; returns how many were dropped.
  size_t gc(int64_t now_ms);
  size_t source_count() const;
  bool empty() const { return rules_.empty(); }

 private:
  struct Source {
    int64_t ends_at_ms = 0;
    bool matches_target = false;
  };
  struct Rule {
    Matchers source;
    Matchers target;
    std::vector<std::string> equal;
    std::unordered_map<std::string, std::unordered_map<uint64_t, Source>> by_equal;
  };
  static std::string equal_key(const Rule& r, const LabelPairs& labels);

  std::vector<Rule> rules_;
};

}  // namespace llmon::notify
