#include "scrape/page_parser.h"

#include <cmath>
#include <span>

#include "base/strings.h"

namespace llmon::scrape {
namespace {

// HELP text unescaped: \\ and \n (and \" in OpenMetrics); other pairs kept.
std::string unescape_help(std::string_view s, bool openmetrics) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char n = s[i + 1];
      if (n == '\\' || n == 'n' || (openmetrics && n == '"')) {
        out += n == 'n' ? '\n' : n;
        ++i;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// The type as Prometheus names it (any case in the file), from the list of
// the format; empty when it is not one. No allocation: TYPE lines are on
// every scrape.
std::string_view canonical_type(std::string_view t, bool openmetrics) {
  static constexpr std::string_view kText[] = {"counter", "gauge", "histogram", "summary", "untyped"};
  static constexpr std::string_view kOm[] = {"counter", "gauge", "histogram", "gaugehistogram",
                                             "summary", "info",  "stateset",  "unknown"};
  for (std::string_view k :
       openmetrics ? std::span<const std::string_view>(kOm) : std::span<const std::string_view>(kText))
    if (base::iequals(t, k)) return k;
  return {};
}

// Just past the '}' closing the label set that opens at line[open] ('{'),
// quotes and backslash escapes respected; npos when it does not close.
size_t label_set_end(std::string_view line, size_t open) {
  bool quoted = false;
  for (size_t i = open + 1; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '}') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

PageFormat page_format(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  media = base::trim(media);
  return base::iequals(media, "application/openmetrics-text") ? PageFormat::kOpenMetrics : PageFormat::kText;
}

PageParser::Next PageParser::fail(std::string msg) {
  error_ = "line " + std::to_string(line_no_) + ": " + msg;
  rest_ = {};
  return Next::kError;
}

PageParser::Next PageParser::parse_error() {
  error_ = perr_.to_string();
  rest_ = {};
  return Next::kError;
}

FamilyMetadata& PageParser::metadata_entry(std::string_view name) {
  auto it = metadata_.find(name);
  if (it == metadata_.end()) it = metadata_.emplace(std::string(name), FamilyMetadata{}).first;
  return it->second;
}

// Handles a '#' line; false when it is malformed (error_ set by the caller).
bool PageParser::comment(std::string_view line) {
  const bool om = format_ == PageFormat::kOpenMetrics;
  std::string_view rest = line.substr(1);
  if (om) {
    if (rest.empty() || rest[0] != ' ') return false;
  }
  rest = rest.substr(rest.find_first_not_of(" \t") == std::string_view::npos ? rest.size()
                                                                             : rest.find_first_not_of(" \t"));
  const size_t sp = rest.find_first_of(" \t");
  const std::string_view keyword = rest.substr(0, sp);
  if (om && keyword == "EOF" && sp == std::string_view::npos) {
    eof_ = true;
    return true;
  }
  const bool help = keyword == "HELP", type = keyword == "TYPE", unit = om && keyword == "UNIT";
  if (!help && !type && !unit) return !om;  // text: an ordinary comment
  if (sp == std::string_view::npos) return !om;
  std::string_view after = rest.substr(sp);
  after.remove_prefix(std::min(after.size(), after.find_first_not_of(" \t")));
  const size_t name_end = after.find_first_of(" \t");
  const std::string_view name = after.substr(0, name_end);
  if (!exposition::is_valid_metric_name(name)) return !om;
  std::string_view text = name_end == std::string_view::npos ? std::string_view() : after.substr(name_end + 1);
  if (!om) text.remove_prefix(std::min(text.size(), text.find_first_not_of(" \t")));
  if (type) {
    const std::string_view t = canonical_type(base::trim(text), om);
    if (t.empty()) return false;
    if (!with_metadata_) return true;
    metadata_entry(name).type = t == "untyped" ? "unknown" : std::string(t);
  } else if (!with_metadata_) {
    return true;
  } else if (help) {
    metadata_entry(name).help = unescape_help(text, om);
  } else {
    metadata_entry(name).unit = std::string(base::trim(text));
  }
  return true;
}

PageParser::Next PageParser::om_sample(std::string_view line) {
  // The series: the name, then the label set up to its closing brace.
  size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
  if (i < line.size() && line[i] == '{') {
    i = label_set_end(line, i);
    if (i == std::string_view::npos) return fail("unterminated label set");
  }
  // " value [timestamp] [# exemplar]"
  if (i >= line.size() || line[i] != ' ') return fail("expected a space and a value after the series");
  const size_t value_start = i + 1;
  size_t value_end = line.find(' ', value_start);
  if (value_end == std::string_view::npos) value_end = line.size();
  std::optional<int64_t> ts;
  const size_t pos = value_end;
  if (pos < line.size()) {
    std::string_view tail = line.substr(pos + 1);
    if (!tail.empty() && tail[0] != '#') {
      const size_t end = tail.find(' ');
      const std::string_view tok = tail.substr(0, end);
      auto v = exposition::parse_sample_value(tok);
      if (!v || std::isnan(*v) || std::isinf(*v)) return fail("invalid timestamp \"" + std::string(tok) + "\"");
      ts = static_cast<int64_t>(*v * 1000);
      tail = end == std::string_view::npos ? std::string_view() : tail.substr(end + 1);
    }
    if (!tail.empty()) {
      // An exemplar: "# {labels} value [timestamp]"; checked for shape, dropped.
      if (tail.size() < 3 || tail.substr(0, 3) != "# {" || tail.find('}') == std::string_view::npos)
        return fail("unexpected text after the sample: \"" + std::string(tail.substr(0, 40)) + "\"");
    }
  }
  full_ = true;
  const auto k = exposition::parse_text_line(line.substr(0, value_end), line_no_, sample_, scratch_, perr_);
  if (k != exposition::LineKind::kSample) return parse_error();
  sample_.timestamp_ms = ts;
  return Next::kSample;
}

bool PageParser::quick(std::string_view line) {
  // name{labels} value [timestamp], single spaces or tabs, nothing unusual;
  // anything else goes to the full parser (which also words the errors).
  auto metric_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || (c >= '0' && c <= '9');
  };
  if (line.empty() || (line[0] >= '0' && line[0] <= '9') || !metric_char(line[0])) return false;
  size_t i = 1;
  while (i < line.size() && metric_char(line[i])) ++i;
  if (i < line.size() && line[i] == '{') {
    i = label_set_end(line, i);
    if (i == std::string_view::npos) return false;
  }
  const size_t series_end = i;
  auto ws = [](char c) { return c == ' ' || c == '\t'; };
  if (i >= line.size() || !ws(line[i])) return false;
  while (i < line.size() && ws(line[i])) ++i;
  const size_t vstart = i;
  while (i < line.size() && !ws(line[i])) ++i;
  auto v = exposition::parse_sample_value(line.substr(vstart, i - vstart));
  if (!v) return false;
  while (i < line.size() && ws(line[i])) ++i;
  std::optional<int64_t> ts;
  if (i < line.size()) {
    const size_t tstart = i;
    while (i < line.size() && !ws(line[i])) ++i;
    ts = exposition::parse_timestamp_ms(line.substr(tstart, i - tstart));
    if (!ts) return false;
    while (i < line.size() && ws(line[i])) ++i;
    if (i != line.size()) return false;
  }
  sample_.series_text = line.substr(0, series_end);
  sample_.value = *v;
  sample_.timestamp_ms = ts;
  line_ = line;
  full_ = false;
  return true;
}

const exposition::TextSample* PageParser::full_sample() {
  if (full_) return &sample_;
  const auto k = exposition::parse_text_line(line_, line_no_, sample_, scratch_, perr_);
  if (k != exposition::LineKind::kSample) {
    parse_error();
    return nullptr;
  }
  full_ = true;
  return &sample_;
}

PageParser::Next PageParser::next() {
  const bool om = format_ == PageFormat::kOpenMetrics;
  while (!rest_.empty()) {
    const size_t nl = rest_.find('\n');
    std::string_view line = nl == std::string_view::npos ? rest_ : rest_.substr(0, nl);
    rest_.remove_prefix(nl == std::string_view::npos ? rest_.size() : nl + 1);
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (eof_) return fail("unexpected data after # EOF");
    if (line.empty()) {
      if (om) return fail("unexpected empty line");
      continue;
    }
    if (line[0] == '#') {
      if (!comment(line)) return fail("malformed metadata line \"" + std::string(line.substr(0, 60)) + "\"");
      continue;
    }
    if (om) {
      return om_sample(line);
    }
    if (quick(line)) return Next::kSample;
    full_ = true;
    const auto k = exposition::parse_text_line(line, line_no_, sample_, scratch_, perr_);
    if (k == exposition::LineKind::kSample) return Next::kSample;
    if (k == exposition::LineKind::kError) return parse_error();
  }
  if (om && !eof_) {
    ++line_no_;
    return fail("data does not end with # EOF");
  }
  return Next::kEnd;
}

}  // namespace llmon::scrape
