// Go's regexp.Regexp.Expand template ($1, ${1}, $name, ${name}, $$), parsed
// once and expanded against the submatches of one match. Shared by the
// relabelling (scrape/relabel.h); the same rules as promql's label_replace.
// Syntax (Go 1.19 regexp.go expand/extract): after a '$', "$" is a literal
// '$'; otherwise a name or {name} -- the longest run of Unicode letters,
// digits and '_', non-empty, braces closed -- refers to a group: a number
// (no leading zero, < 1e8) by index, anything else by name; so "$1x" is the
// group named "1x". Unknown or unmatched groups expand to "". A '$' not
// followed by a well-formed reference stays literal.
// Immutable after construction; thread-safe. Needs no <re2/re2.h>: names are
// resolved against RE2::NamedCapturingGroups() given to the constructor.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::go {

class RegexpTemplate {
 public:
  RegexpTemplate() = default;
  // `named_groups`: group name -> index (RE2::NamedCapturingGroups()).
  RegexpTemplate(std::string_view tmpl, const std::map<std::string, int>& named_groups);

  // Appends the expansion to `out`. groups[i] is submatch i (0: the whole
  // match); a group that did not take part has data() == nullptr.
  void expand(const std::string_view* groups, int n, std::string& out) const;

  // No reference at all: expand() appends literal().
  bool is_literal() const { return max_group_ < 0; }
  const std::string& literal() const { return literal_; }
  // The highest group index referred to (-1: none); expand() needs at most
  // max_group() + 1 submatches.
  int max_group() const { return max_group_; }

 private:
  struct Segment {
    std::string text;  // literal text when group < 0
    int group = -1;    // group index; -2: a name no group has (expands to "")
  };
  std::vector<Segment> segments_;
  std::string literal_;  // the whole template's text when it has no reference
  int max_group_ = -1;
};

}  // namespace llmon::go
