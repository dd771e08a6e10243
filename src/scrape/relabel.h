// Prometheus relabelling (relabel_configs, metric_relabel_configs,
// write_relabel_configs) as Prometheus 2.42's model/relabel does it: the
// configuration value, its validation, and applying a list of rules to one
// label set. Pure: no I/O, no global state; a compiled Relabeler is
// immutable and may be shared by threads.
//
// Semantics (Prometheus docs "relabel_config" and model/relabel/relabel.go
// as of 2.42; docs/scrape.md "Relabelling"):
//   * regex is anchored at both ends ("^(?:" + regex + ")$"), RE2 syntax
//     (Go's regexp syntax and leftmost-first submatches; `.` does not match
//     a newline, as in 2.42 -- 3.x anchors with (?s:)).
//   * the source value is the values of source_labels joined by separator
//     (an absent label is the empty string).
//   * replace: if regex matches the source value, target_label (after
//     $1/${1}/$name/${name} expansion, Go's Regexp.Expand) is set to the
//     expanded replacement. A target that expands to an invalid label name
//     is skipped. An empty result deletes the label named target_label *as
//     written*: with a $-reference in it nothing is deleted (2.42's
//     behaviour, Prometheus issue #8186, fixed in later releases). No match:
//     no change.
//   * keep / drop: the label set is dropped when the regex does not / does
//     match the source value.
//   * keepequal / dropequal: dropped when the source value is not / is equal
//     to target_label's value.
//   * hashmod: target_label = (last 8 bytes of md5(source value) as a
//     big-endian uint64) % modulus, in decimal.
//   * labelmap: every label whose name matches regex is copied to the name
//     given by replacement expanded against that name (names as they were
//     before the rule; in name order, so a later copy wins).
//   * labeldrop / labelkeep: labels whose names match / do not match regex
//     are removed.
//   * lowercase / uppercase: target_label = the source value lower/upper-cased
//     (Go's strings.ToLower/ToUpper, Unicode).
//   * setting a label to "" deletes it. Names written by labelmap (and a
//     lowercase/uppercase/keepequal target, which 2.42 checks only against
//     the $-template pattern) are not re-validated: as in Prometheus, the
//     caller checks the final label set (scrape target / series rules).
// Validation (2.42's Config.UnmarshalYAML) is in compile(), in Prometheus's
// order: the regex compiles (Go's error text); hashmod needs a non-zero
// modulus; replace/hashmod/lowercase/uppercase/keepequal/dropequal need a
// target_label; for replace/lowercase/uppercase/keepequal/dropequal it must
// match ^(?:(?:[a-zA-Z_]|\$(?:\{\w+\}|\w+))+\w*)+$ (a label name with
// $-references); lowercase/uppercase/keepequal/dropequal take no
// replacement; labelmap's replacement must match that pattern; hashmod's
// target must be a plain label name; keepequal/dropequal take only
// source_labels and target_label (a regex given at all counts, even "(.*)":
// Prometheus compares with the default by identity); labeldrop/labelkeep
// take only regex. Messages are Prometheus's words; the caller adds
// "FILE:LINE: " or "relabel_configs[2]: ".
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

// Prometheus's message for an action parse_relabel_action() does not know:
// `unknown relabel action "<s>"` (Go's %q).
std::string unknown_relabel_action_message(std::string_view s);

// One relabel_config entry as written, with Prometheus's defaults. The
// `set_*` flags record which fields the file gave where Prometheus's checks
// tell a given field from the default (see the validation above); the
// other fields are compared by value, as Prometheus does.
struct RelabelConfig {
  std::vector<std::string> source_labels;
  bool set_source_labels = false;  // source_labels present (even as [])
  std::string separator = ";";
  std::string regex = "(.*)";
  bool set_regex = false;  // regex present (a YAML null reads as "")
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

  // Validates and compiles the rules, in order. The error names the rule
  // (1-based) and gives Prometheus's message:
  // "rule 3: relabel configuration for hashmod requires non-zero modulus".
  static Expected<Relabeler> compile(const std::vector<RelabelConfig>& rules);

  // Applies the rules in order to `labels` (any order, names unique, empty
  // values mean absent). Returns false when a keep/drop/keepequal/dropequal
  // rule dropped the set (labels then unspecified). On true, labels hold
  // the result sorted by name with empty values removed.
  bool process(std::vector<model::Label>& labels) const;

  bool empty() const;
  size_t size() const;

 private:
  struct Rule;
  std::vector<std::unique_ptr<const Rule>> rules_;
};

}  // namespace llmon::scrape
