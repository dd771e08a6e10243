// Prometheus's series notation, as written in promqltest `load` blocks and in
// promtool rule tests' `input_series` (docs/configuration/unit_testing_rules.md
// "series"; grammar: promql/parser/generated_parser.y `series_description`):
//
//   metric{a="b", c='d'}  1+2x3 _ 5 -1-1x2 _x2 stale 7x2 Inf
//
// A descriptor is a metric name, a label set, or both (label values are Go
// strings: "", '' or ``, with Go escapes). Values are whitespace-separated
// items, each expanding to zero or more points:
//   v          one point (v: a number, +v/-v, Inf/NaN in any case, or `stale`)
//   vxN        N+1 points of v
//   a+bxN      N+1 points a, a+b, ..., a+N*b (a-bxN counts down); accumulated
//              by repeated addition, as Prometheus does
//   _          one missing point;  _xN: N missing points
// Numbers are decimal (digits, fraction, exponent) or octal with a leading 0
// ("010" is 8); hexadecimal is NOT accepted here because `0x3` means "0
// repeated", exactly as in Prometheus. `stale` is model::stale_nan().
//
// Errors name the 1-based byte column within the text given ("column 7: ..."),
// so callers prefix "file:line:". Expansion is capped (kMaxSeriesValues) so a
// hostile `1x99999999999` is an error, not an allocation. Pure functions, no
// I/O, thread-safe. The promqltest runner and `llmon rules test` share them.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/storage.h"

namespace llmon::promql {

// Most points one parse may expand to.
inline constexpr size_t kMaxSeriesValues = 1'000'000;

// One position of an expanded sequence: a value or a gap (`_`).
struct SequenceValue {
  bool omitted = false;
  double value = 0;  // bit-exact; `stale` is model::stale_nan()
};

struct SeriesDescription {
  model::Labels labels;
  std::vector<SequenceValue> values;
};

// The values part: "1+2x3 _ stale". Empty or blank text is an empty sequence.
Expected<std::vector<SequenceValue>> parse_series_values(std::string_view text);

// The descriptor alone: `metric`, `metric{a="b"}`, `{__name__="m", a="b"}`,
// `{"utf8.name", "a.b"="c"}`. Surrounding whitespace is ignored.
Expected<model::Labels> parse_series_labels(std::string_view text);

// A whole line: descriptor, then whitespace, then values (possibly none).
Expected<SeriesDescription> parse_series_description(std::string_view line);

}  // namespace llmon::promql
