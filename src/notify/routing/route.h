// The routing tree built from a RouteConfig, as Alertmanager's dispatch/route.go
// (0.25): each node inherits receiver, group_by and timers from its parent
// (the root from Alertmanager's defaults: group_wait 30s, group_interval 5m,
// repeat_interval 4h, group by nothing); matching is depth-first, first match
// wins unless the child has `continue`, and a node none of whose children
// match is itself the match. Group keys are Alertmanager's byte for byte:
// `{}/{child matchers}:{group labels}` (route Key() + ":" + LabelSet.String()).
// Immutable once built; safe to share between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "notify/alert.h"
#include "notify/config/notify_config.h"
#include "notify/routing/matchers.h"

namespace llmon::notify {

struct RouteOpts {
  std::string receiver;
  std::vector<std::string> group_by;  // sorted, unique
  bool group_by_all = false;          // `...`: every label groups
  int64_t group_wait_ms = 30'000;
  int64_t group_interval_ms = 5 * 60'000;
  int64_t repeat_interval_ms = 4 * 3'600'000;
};

class Route {
 public:
  // Builds the tree; `parent` is null for the root.
  static std::unique_ptr<Route> build(const RouteConfig& cfg, const Route* parent = nullptr);

  // The routes an alert with these labels goes to, in tree order (empty when
  // the node's own matchers do not match, which for the root never happens).
  std::vector<const Route*> match(const LabelPairs& labels) const;

  // Alertmanager's Route.Key(): the parent's key, "/", own matchers string.
  const std::string& key() const { return key_; }
  // Route.ID(): key plus "/<position among siblings>" for non-root routes.
  const std::string& id() const { return id_; }

  // The labels of `alert_labels` named by group_by (all for `...`), sorted.
  LabelPairs group_labels(const LabelPairs& alert_labels) const;
  // key() + ":" + label_set_string(group_labels).
  std::string group_key(const LabelPairs& group_labels) const;

  const RouteOpts& opts() const { return opts_; }
  const Matchers& matchers() const { return matchers_; }
  bool continue_matching() const { return continue_; }
  const std::vector<std::unique_ptr<Route>>& children() const { return children_; }
  const Route* parent() const { return parent_; }

 private:
  const Route* parent_ = nullptr;
  RouteOpts opts_;
  Matchers matchers_;
  bool continue_ = false;
  std::string key_;
  std::string id_;
  std::vector<std::unique_ptr<Route>> children_;
};

// Prometheus model.LabelSet.String() as linked into Alertmanager 0.25: each
// pair formatted `name="value"` (Go %q), the formatted pairs sorted as
// strings, joined with ", ", in braces.
std::string label_set_string(const LabelPairs& labels);

// Prometheus model.LabelSet.Fingerprint(): FNV-1a 64 over the pairs sorted by
// name, each name and value followed by a 0xFF byte. Input need not be sorted.
uint64_t labels_fingerprint(const LabelPairs& labels);

}  // namespace llmon::notify
