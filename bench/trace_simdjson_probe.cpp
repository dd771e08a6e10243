// The measurement behind the trace parser's choice (docs/trace.md#parser):
// the same work as `llmon trace analyze` (events into trace::TraceBuilder,
// then trace::analyze) with simdjson's On-Demand API (Debian's
// libsimdjson-dev) instead of our streaming parser. On-Demand needs the whole
// document in one padded buffer, so plain JSON only. Prints MB/s and the
// temporal breakdown; bench/trace_parse.sh runs it beside llmon and Python.
// Usage: trace_simdjson_probe FILE.json
#include <simdjson.h>

#include <chrono>
#include <cstdio>

#include "trace/analysis.h"
#include "trace/trace_data.h"

using namespace simdjson;

namespace {

int64_t ns_of(ondemand::value v) {
  double d = 0;
  if (v.get_double().get(d)) return llmon::trace::kAbsent;
  return static_cast<int64_t>(d * 1000);
}
int64_t int_of(ondemand::value v) {
  int64_t i = 0;
  if (v.get_int64().get(i)) return llmon::trace::kAbsent;
  return i;
}
std::string_view str_of(ondemand::value v) {
  std::string_view s;
  if (v.get_string().get(s)) return {};
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: trace_simdjson_probe FILE.json\n");
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  padded_string json;
  if (auto err = padded_string::load(argv[1]).get(json)) {
    std::fprintf(stderr, "%s: %s\n", argv[1], error_message(err));
    return 1;
  }
  ondemand::parser parser;
  ondemand::document doc;
  if (auto err = parser.iterate(json).get(doc)) {
    std::fprintf(stderr, "%s\n", error_message(err));
    return 1;
  }
  llmon::trace::TraceBuilder builder;
  llmon::trace::TraceHeader header;
  ondemand::object top;
  if (doc.get_object().get(top)) return 1;
  for (auto field : top) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return 1;
    if (key == "displayTimeUnit") {
      header.display_time_unit = std::string(str_of(field.value()));
      continue;
    }
    if (key != "traceEvents") continue;
    ondemand::array events;
    if (field.value().get_array().get(events)) return 1;
    for (auto item : events) {
      ondemand::object ev;
      if (item.get_object().get(ev)) return 1;
      llmon::trace::RawEvent e;
      for (auto f : ev) {
        std::string_view k;
        if (f.unescaped_key().get(k)) return 1;
        ondemand::value v = f.value();
        if (k == "ph") {
          auto s = str_of(v);
          e.ph = s.empty() ? 0 : s[0];
        } else if (k == "name")
          e.name = str_of(v);
        else if (k == "cat")
          e.cat = str_of(v);
        else if (k == "ts")
          e.ts = ns_of(v);
        else if (k == "dur")
          e.dur = ns_of(v);
        else if (k == "pid")
          e.pid = int_of(v);
        else if (k == "tid")
          e.tid = int_of(v);
        else if (k == "args") {
          ondemand::object a;
          if (v.get_object().get(a)) continue;
          for (auto af : a) {
            std::string_view ak;
            if (af.unescaped_key().get(ak)) return 1;
            if (ak == "stream")
              e.stream = int_of(af.value());
            else if (ak == "correlation")
              e.correlation = int_of(af.value());
            else if (ak == "device")
              e.device = int_of(af.value());
          }
        }
      }
      builder.on_event(e);
    }
  }
  llmon::trace::TraceData d = builder.finish(header);
  llmon::trace::RankReport r = llmon::trace::analyze(d);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double mb = static_cast<double>(json.size()) / 1e6;
  std::printf("simdjson: %.1f MB in %.3f s = %.0f MB/s; %llu events, %llu kernels; idle %.2f%% compute %.2f%%\n", mb, s,
              mb / s, static_cast<unsigned long long>(d.events), static_cast<unsigned long long>(r.kernels_used),
              r.temporal.idle_pct, r.temporal.compute_pct);
  return 0;
}
