// Writes a Snapshot as an exposition page. Families appear in name order
// (Snapshot::order); families sharing a name are written under one header;
// families without series are skipped. Values use Go's strconv 'g' -1 form
// (what client_golang writes), so pages diff cleanly against node_exporter.
// Pure functions; no I/O.
#pragma once

#include <string>

#include "exposition/format.h"
#include "model/metric.h"

namespace llmon::exposition {

void write_page(const model::Snapshot& snap, Format format, std::string& out);

// Go-compatible shortest formatting of a float64 ("1.6560463872e+10", "0.5", "NaN", "+Inf").
void append_value(std::string& out, double v);
// Label value escaping (\\, \", \n) and HELP escaping (\\, \n).
void append_escaped_label_value(std::string& out, std::string_view v);
void append_escaped_help(std::string& out, std::string_view v);

}  // namespace llmon::exposition
