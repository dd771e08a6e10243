// Small string helpers for the pure parsers: field splitting and number
// parsing on string_view, without allocation. All functions are pure.
#pragma once

#include "base/status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::base {

// Iterates over lines of text (without the '\n'); the last line may lack one.
class LineIterator {
 public:
  explicit LineIterator(std::string_view text) : rest_(text) {}
  // Returns false at the end; line is set otherwise. line_no() is 1-based.
  bool next(std::string_view& line);
  int line_no() const { return line_no_; }

 private:
  std::string_view rest_;
  int line_no_ = 0;
};

// Splits on runs of spaces/tabs; empty fields are skipped. Reuses out's storage.
void split_fields(std::string_view line, std::vector<std::string_view>& out);
std::vector<std::string_view> split_fields(std::string_view line);
// Splits on a single character; empty fields are kept.
std::vector<std::string_view> split(std::string_view s, char sep);

std::string_view trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
// ASCII case-insensitive equality (HTTP header names, "NaN", "gzip").
bool iequals(std::string_view a, std::string_view b);

std::optional<uint64_t> parse_u64(std::string_view s);
std::optional<int64_t> parse_i64(std::string_view s);
std::optional<double> parse_double(std::string_view s);
// "true"/"1"/"yes"/"on" and "false"/"0"/"no"/"off"; anything else is nullopt.
std::optional<bool> parse_bool_word(std::string_view s);

// Go-style duration ("5s", "1h30m", "250ms"; units ms s m h d w y; "0") in
// milliseconds. Errors quote the text and say what is wrong.
Expected<int64_t> parse_duration_ms(std::string_view s);

// "file:line: message" for parser errors.
std::string where(std::string_view file, int line, std::string_view message);

}  // namespace llmon::base
