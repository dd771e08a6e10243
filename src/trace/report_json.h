// The JSON form of `llmon trace analyze --json` (schema: docs/trace.md#json).
// Times are converted from trace units to microseconds. Strings from the
// trace that are not valid UTF-8 are written with U+FFFD. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "trace/analysis.h"

namespace llmon::trace {

struct FileReport {
  std::string path;
  TraceData data;  // header, counts and skips are reported; kernels are not
  RankReport report;
  uint64_t bytes = 0;
};

nlohmann::json rank_json(const FileReport& f);
nlohmann::json stragglers_json(const StragglerReport& s);
nlohmann::json diff_json(const TraceDiff& d);
// {"schema": 1, "threshold": ..., "ranks": [...], "stragglers": {...}}; stragglers only when given.
std::string report_json(const std::vector<FileReport>& files, double threshold,
                        const StragglerReport* stragglers = nullptr);

}  // namespace llmon::trace
