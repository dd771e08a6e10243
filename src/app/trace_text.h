// The terminal form of `llmon trace analyze` and `llmon trace diff`
// (docs/trace.md): one block per rank (breakdowns, overlap, idle by cause,
// launches, queues, memory bandwidth, steps), the per-rank comparison table
// and stragglers of a directory, and the diff table. Formatting only; the
// numbers come from src/trace. Not thread-safe per stream.
#pragma once

#include <cstdio>
#include <vector>

#include "trace/report_json.h"
#include "trace/stragglers.h"
#include "trace/trace_diff.h"

namespace llmon::app {

void print_rank_text(std::FILE* out, const trace::FileReport& f);
void print_ranks_table(std::FILE* out, const std::vector<trace::FileReport>& files, const trace::StragglerReport& s);
void print_diff_text(std::FILE* out, const trace::TraceDiff& d, const char* a, const char* b);

}  // namespace llmon::app
