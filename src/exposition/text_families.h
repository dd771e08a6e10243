// Reads a whole Prometheus text 0.0.4 file into metric families, with HELP
// and TYPE, the way client_golang's expfmt.TextParser.TextToMetricFamilies
// does for node_exporter's textfile collector: sample lines go through
// parse_text_line (text_parser.h); "# HELP name text" (escapes \\ and \n) and
// "# TYPE name type" (counter, gauge, untyped, summary, histogram, any case)
// attach to the family of that name; other comments are skipped. Like expfmt:
// a second HELP or TYPE for a name, a TYPE after the name's samples, an
// unknown type, a malformed sample line and a text that does not end in a
// newline are errors (the whole text is refused); families without samples
// are dropped; a sample named x_sum/x_count (x_bucket) joins family x when x
// was typed summary (histogram). Pure; no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace llmon::exposition {

enum class TextType { kCounter, kGauge, kUntyped, kSummary, kHistogram };

struct TextFamilySample {
  std::string name;                                         // the sample's own name (x_sum for a summary x)
  std::vector<std::pair<std::string, std::string>> labels;  // in line order, values unescaped
  double value = 0;
  bool has_timestamp = false;
};

struct TextFamily {
  std::string name;
  std::optional<std::string> help;  // absent without a HELP line
  TextType type = TextType::kUntyped;
  std::vector<TextFamilySample> samples;
};

// Families in the order their names first appear. Errors read
// "FILE:LINE: message".
Expected<std::vector<TextFamily>> parse_text_families(std::string_view text, std::string_view file);

}  // namespace llmon::exposition
