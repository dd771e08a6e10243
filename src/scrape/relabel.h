// Prometheus relabelling (relabel_configs, metric_relabel_configs,
// write_relabel_configs) as Prometheus 2.42's model/relabel does it: the
// configuration value, its validation, and applying a list of rules to one
// label set. Pure: no I/O, no global state; a compiled Relabeler is
// immutable and may be shared by threads.
//
// Semantics (Prometheus docs "relabel_config" and model/relabel/relabel.go):
//   * regex is anchored at both ends ("^(?:" + regex + ")$"), RE2 syntax.
//   * the source value is the values of source_labels joined by separator
//     (an absent label is the empty string).
//   * replace: if regex matches the source value, target_label (after
//     $1/${1}/$name/${name} expansion, Go's Regexp.Expand) is set to the
//     expanded replacement; an empty result deletes the label; a target
//     that expands to an invalid label name is skipped. No match: no change.
//   * keep / drop: the label set is dropped when the regex does not / does
//     match the source value.
//   * keepequal / dropequal: dropped when the source value is not / is equal
//     to target_label's value.
//   * hashmod: target_label = (last 8 bytes of md5(source value) as a
//     big-endian uint64) % modulus, in decimal.
//   * labelmap: every label whose name matches regex is copied to the name
//     given by replacement expanded against that name.
//   * labeldrop / labelkeep: labels whose names match / do not match regex
//     are removed.
//   * lowercase / uppercase: target_label = the source value lower/upper-cased.
// Validation (Prometheus's Config.UnmarshalYAML/Validate) is in compile():
// unknown action, missing target_label for replace/hashmod/lowercase/
// uppercase/keepequal/dropequal, modulus 0 for hashmod, a target_label that
// is not a label name (replace may use $-references), fields that the
// action does not allow (labeldrop/labelkeep take only regex; keepequal/
// dropequal take no regex/modulus/replacement/...). Messages are
// Prometheus's words; the caller adds "FILE:LINE: ".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/labels.h"

namespace llmon::scrape {

enum class RelabelAction {
  kReplace,
  kKeep,
  kDrop,
  kKeepEqual,
  kDropEqual,
  kHashMod,
  kLabelMap,
  kLabelDrop,
  kLabelKeep,
  kLowercase,
  kUppercase,
};

// "replace" -> kReplace, ... as Prometheus spells them (case-insensitive, as
// Prometheus lower-cases the action); nullopt for an unknown one.
std::optional<RelabelAction> parse_relabel_action(std::string_view s);
std::string_view relabel_action_name(RelabelAction a);

// One relabel_config entry as written. `set_*` records which fields the
// file gave, for the per-action checks (Prometheus compares with defaults).
struct RelabelConfig {
  std::vector<std::string> source_labels;
  std::string separator = ";";
  std::string regex = "(.*)";
  uint64_t modulus = 0;
  std::string target_label;
  std::string replacement = "$1";
  RelabelAction action = RelabelAction::kReplace;
};

class Relabeler {
 public:
  Relabeler();  // no rules: process() changes nothing
  ~Relabeler();
  Relabeler(Relabeler&&) noexcept;
  Relabeler& operator=(Relabeler&&) noexcept;

  // Validates and compiles the rules, in order. The error names the rule:
  // "relabel_configs[2]: ..." is for the caller to prefix; this gives
  // "rule 3: relabel configuration for hashmod requires non-zero modulus".
  static Expected<Relabeler> compile(const std::vector<RelabelConfig>& rules);

  // Applies the rules in order to `labels` (any order, names unique, empty
  // values mean absent). Returns false when a keep/drop rule dropped the
  // set (labels then unspecified). On true, labels hold the result sorted
  // by name with empty values removed.
  bool process(std::vector<model::Label>& labels) const;

  bool empty() const;
  size_t size() const;

 private:
  struct Rule;
  std::vector<std::unique_ptr<const Rule>> rules_;
};

}  // namespace llmon::scrape
