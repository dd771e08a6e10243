// A scraped page read the way Prometheus 2.42's textparse reads it: the
// Content-Type picks the parser (application/openmetrics-text: OpenMetrics
// 1.0; anything else: text 0.0.4), samples come out one by one, and the
// metadata lines (# HELP, # TYPE, # UNIT) are gathered per family name for
// /api/v1/metadata. Pure: no I/O; reads only inside the text it is given.
//
// Text 0.0.4: sample lines as exposition/text_parser.h (timestamps in
// integer milliseconds); "# HELP name text" (escapes \\ \n) and
// "# TYPE name type" (untyped is reported as "unknown"); other comments are
// skipped.
// OpenMetrics 1.0: the same sample grammar with timestamps in (possibly
// fractional) seconds, truncated to milliseconds as Prometheus does;
// exemplars ("... # {trace_id="a"} 1.0 [ts]") are parsed past and dropped;
// "# UNIT"; HELP escapes \\ \n \"; types counter, gauge, histogram,
// gaugehistogram, summary, info, stateset, unknown; the text must end with
// "# EOF" (a missing one, or data after it, is an error). _created, info
// and stateset samples are ordinary samples, as Prometheus 2.42 stores them.
// Any malformed line fails the page (Prometheus fails the scrape).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "exposition/text_parser.h"

namespace llmon::scrape {

enum class PageFormat { kText, kOpenMetrics };

// application/openmetrics-text (any parameters, any case) -> kOpenMetrics.
PageFormat page_format(std::string_view content_type);

struct FamilyMetadata {
  std::string type = "unknown";  // counter, gauge, histogram, summary, unknown, ...
  std::string help;
  std::string unit;
  bool operator==(const FamilyMetadata&) const = default;
};

class PageParser {
 public:
  enum class Next { kSample, kError, kEnd };
  PageParser(std::string_view text, PageFormat format) : rest_(text), format_(format) {}

  Next next();
  // After kSample: valid until the next call. Its timestamp (if any) is in ms.
  const exposition::TextSample& sample() const { return sample_; }
  // After kError: "line 3: ..." with the column where known.
  const std::string& error() const { return error_; }
  // The metadata seen so far, by family name.
  const std::map<std::string, FamilyMetadata, std::less<>>& metadata() const { return metadata_; }

 private:
  Next fail(std::string msg);
  Next parse_error();  // from perr_
  bool comment(std::string_view line);
  Next om_sample(std::string_view line);

  std::string_view rest_;
  PageFormat format_;
  int line_no_ = 0;
  bool eof_ = false;
  exposition::TextSample sample_;
  exposition::TextParseError perr_;
  std::string scratch_;
  std::string error_;
  std::map<std::string, FamilyMetadata, std::less<>> metadata_;
};

}  // namespace llmon::scrape
