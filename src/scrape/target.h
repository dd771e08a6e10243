// Scrape targets from discovered groups, as Prometheus 2.42's
// scrape.PopulateLabels and Target.URL make them. Pure.
//
// For one address of a TargetGroup: the group's labels plus __address__,
// then job, __scrape_interval__, __scrape_timeout__, __metrics_path__ and
// __scheme__ where not set, and __param_<name> (first value) for each
// param; these are the discovered labels. relabel_configs run on them; a
// dropped set is a dropped target. Then: no __address__ is an error; an
// address without a port gets :80 or :443 by scheme (2.42 adds it; 2.43
// made that a feature flag); an address with '/' is refused; the interval
// and timeout labels must parse, be non-zero and timeout <= interval;
// __meta_* labels are removed; instance defaults to __address__; label
// values must be UTF-8. The target's labels (the ones stored on its
// samples) are those not starting with "__".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/labels.h"
#include "scrape/relabel.h"
#include "scrape/scrape_config.h"

namespace llmon::scrape {

struct Target {
  std::string job;
  std::vector<model::Label> labels;             // sorted; no "__" labels
  std::vector<model::Label> all_labels;         // sorted; after relabelling, "__" labels kept (but __meta_*)
  std::vector<model::Label> discovered_labels;  // sorted; before relabelling
  std::string scrape_url;
  int64_t interval_ms = 0;
  int64_t timeout_ms = 0;
  uint64_t hash = 0;  // over labels and URL: a target's identity across reloads
};

struct TargetOutcome {
  enum class Kind { kActive, kDropped, kError };
  Kind kind = Kind::kActive;
  Target target;      // kActive: complete; kDropped, kError: discovered_labels only
  std::string error;  // kError: "no address", "... is not a valid hostname", ...
};

TargetOutcome build_target(const ScrapeConfig& cfg, const Relabeler& relabel, const TargetGroup& group,
                           std::string_view address);

// Prometheus's model.Duration.String(): "1m30s", "15s", "100ms", "1h", "0s".
std::string prometheus_duration(int64_t ms);

// Go's url.Values.Encode(): keys sorted, values in order, QueryEscape'd.
std::string encode_query(const std::vector<std::pair<std::string, std::vector<std::string>>>& params);

}  // namespace llmon::scrape
