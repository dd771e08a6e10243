// Fuzz target: the text exposition parser (exposition/text_parser.h) and the
// import path behind /api/v1/import/prometheus. Every input is parsed line by
// line; each sample line that parses must obey the name rules and survive a
// round trip through our own writer (text_writer.h) bit-exactly, or the run
// aborts. Small inputs are also imported into an in-memory head, and every
// input is offered to gunzip with a small limit.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ingest/importer.h"
#include "exposition/text_parser.h"
#include "exposition/text_writer.h"
#include "tsdb/head.h"

using namespace llmon;

namespace {

std::string write_back(const exposition::TextSample& s) {
  std::string out(s.name);
  out += '{';
  for (const auto& l : s.labels) {
    out += l.name;
    out += "=\"";
    exposition::append_escaped_label_value(out, l.value);
    out += "\",";
  }
  out += "} ";
  exposition::append_value(out, s.value);
  if (s.timestamp_ms) {
    out += ' ';
    out += std::to_string(*s.timestamp_ms);
  }
  return out;
}

bool same_value(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

void check_sample(const exposition::TextSample& s) {
  if (!exposition::is_valid_metric_name(s.name)) std::abort();
  if (s.series_text.substr(0, s.name.size()) != s.name) std::abort();
  for (const auto& l : s.labels)
    if (!exposition::is_valid_label_name(l.name)) std::abort();
  std::string again = write_back(s);
  exposition::TextSample r;
  std::string scratch;
  exposition::TextParseError err;
  if (exposition::parse_text_line(again, 1, r, scratch, err) != exposition::LineKind::kSample) std::abort();
  if (r.name != s.name || r.labels.size() != s.labels.size() || !same_value(r.value, s.value) ||
      r.timestamp_ms != s.timestamp_ms)
    std::abort();
  for (size_t i = 0; i < r.labels.size(); ++i)
    if (r.labels[i].name != s.labels[i].name || r.labels[i].value != s.labels[i].value) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  exposition::TextParser p(in);
  uint64_t samples = 0, errors = 0;
  for (auto k = p.next(); k != exposition::TextParser::Next::kEnd; k = p.next()) {
    if (k == exposition::TextParser::Next::kSample) {
      ++samples;
      check_sample(p.sample());
    } else {
      ++errors;
      if (p.error().line != p.line_no() || p.error().column < 1 || p.error().message.empty()) std::abort();
    }
    if (p.offset() > size) std::abort();
  }
  if (p.offset() != size) std::abort();

  if (size <= 4096) {
    tsdb::Head head;
    ingest::ImportOptions o;
    o.batch_samples = 3;
    o.window_samples = 5;
    auto st = ingest::import_prometheus_text(head, in, o);
    if (!st) std::abort();  // options are valid: only the input varies
    if (st->samples_parsed + st->invalid_lines != samples + errors) std::abort();
    if (st->samples_accepted + st->duplicates_dropped + st->rejected() != st->samples_parsed) std::abort();
  }

  auto z = ingest::gunzip(in, 1 << 16);
  if (z && z->size() > (1 << 16)) std::abort();
  return 0;
}
