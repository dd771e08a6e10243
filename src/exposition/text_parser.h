// Parser for Prometheus text exposition format 0.0.4 sample lines
// (https://prometheus.io/docs/instrumenting/exposition_formats/#text-format-details;
// what llmon accepts and how it differs from Prometheus and VictoriaMetrics:
// docs/import.md "Accepted lines"). Pure: works on a std::string_view, does no
// I/O, never throws, and reads only inside the text it was given, whatever the
// bytes. Not a scraper: HELP/TYPE and other comments are skipped, not checked,
// so histogram/summary structure is not validated; every sample line stands alone.
//
// A line is   [ws] name [ws] ['{' [label {',' label} [',']] '}'] ws value [ws timestamp] [ws]
// with        label = [ws] lname [ws] '=' [ws] '"' escaped-utf8 '"' [ws],
// name = [a-zA-Z_:][a-zA-Z0-9_:]*, lname = [a-zA-Z_][a-zA-Z0-9_]*, ws = spaces/tabs,
// value = a Go ParseFloat decimal or NaN/Inf/Infinity in any case with an optional
// sign (no hex, no '_', as Prometheus), timestamp = optionally signed decimal
// int64 milliseconds. Lines end with '\n'; one trailing '\r' is dropped (CRLF).
// Label-value escapes: \\ \" \n are decoded; any other backslash pair is kept
// verbatim, as Prometheus does. Label values must be valid UTF-8, and a label
// name may appear once per line.
//
// Ownership: a TextParser views the text it was given (which must outlive it);
// the TextSample it returns views the text and the parser's scratch buffer and
// is valid until the next call to next(). Not thread-safe; one per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/metric.h"

namespace llmon::exposition {

struct TextLabel {
  std::string_view name;
  std::string_view value;  // unescaped
};

struct TextSample {
  std::string_view name;
  // "name{...}" as written (from the name's first byte to the closing brace, or
  // just the name): equal texts mean the same series, a cheap cache key.
  std::string_view series_text;
  std::vector<TextLabel> labels;  // in line order, names unique
  double value = 0;
  std::optional<int64_t> timestamp_ms;
};

struct TextParseError {
  int line = 0;         // 1-based
  int column = 0;       // 1-based byte offset within the line
  std::string message;  // what was expected and what was found
  // "line 3, column 12: expected '=' after label name \"job\", found '\"'"
  std::string to_string() const;
};

enum class LineKind { kSample, kSkipped, kError };

// Parses one line (without its '\n'; a trailing '\r' is tolerated). kSkipped
// for blank and comment lines; kSample fills `out`, whose unescaped values
// live in `scratch` (reused; only grown, so keep it alive with `out`); kError
// fills `err` with `line_no` and the column.
LineKind parse_text_line(std::string_view line, int line_no, TextSample& out, std::string& scratch,
                         TextParseError& err);

// Iterates the sample lines of a whole text, skipping blank and comment lines.
//   TextParser p(text);
//   for (auto k = p.next(); k != TextParser::Next::kEnd; k = p.next())
//     if (k == TextParser::Next::kSample) use(p.sample()); else count(p.error());
class TextParser {
 public:
  enum class Next { kSample, kError, kEnd };
  explicit TextParser(std::string_view text) : rest_(text) {}
  Next next();
  const TextSample& sample() const { return sample_; }    // after kSample
  const TextParseError& error() const { return error_; }  // after kError
  int line_no() const { return line_no_; }                // of the line last returned
  // Byte offset in the text just past the line last returned.
  size_t offset() const { return consumed_; }

 private:
  std::string_view rest_;
  size_t consumed_ = 0;
  int line_no_ = 0;
  TextSample sample_;
  TextParseError error_;
  std::string scratch_;
};

// Prometheus name rules (legacy, pre-UTF-8): metric names may contain ':'.
using model::is_valid_label_name;
using model::is_valid_metric_name;

// A sample value as Prometheus's text parser reads it (see the header comment);
// nullopt when it is not one. "NaN" gives the ordinary quiet NaN, never
// Prometheus's staleness marker.
std::optional<double> parse_sample_value(std::string_view s);
// A timestamp as the sample grammar reads it (optionally signed decimal
// int64 milliseconds); nullopt when it is not one.
std::optional<int64_t> parse_timestamp_ms(std::string_view s);

}  // namespace llmon::exposition
