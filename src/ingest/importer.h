// Backfill import: Prometheus text exposition lines (exposition/text_parser.h)
// appended to a storage::Storage, as behind POST /api/v1/import/prometheus and
// `llmon tsdb import FILE`. Semantics, counters and limits: docs/import.md.
// Not a scraper (no staleness markers, no HELP/TYPE) and not an HTTP handler
// (app/import_route.h adapts it); it knows the storage only through
// storage.h's Appender contract.
//
// What happens to a text: lines are parsed (bad ones counted, the first few
// kept with line and column); samples are grouped by series and sorted by
// timestamp within a window (the whole input unless it holds more samples
// than `window_samples`), so any order inside the window is accepted; exact
// duplicates (same series, timestamp and value bits) are dropped and counted;
// the rest go through Appenders committed every `batch_samples` appends, so the
// storage never buffers more than one batch. Samples the storage rejects (out
// of order against what it already holds, same timestamp with another value,
// out of bounds) are counted per reason and never stop the import.
//
// Thread-safety: import_prometheus_text is reentrant; concurrent imports into
// one Storage are as safe as the Storage (storage.h: safe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/storage.h"

namespace llmon::ingest {

struct ImportOptions {
  // Timestamp (ms since the epoch) for lines without one.
  int64_t now_ms = 0;
  // Added to every series; they replace a label of the same name from the text
  // (an empty value removes it). Names must be valid Prometheus label names.
  std::vector<model::Label> extra_labels;
  // Appends per Appender commit. 100 000 samples: 2.4 MB of buffered appends
  // in the head (24 B each) and one WAL record of ~220 KB (2.2 B/sample,
  // docs/architecture.md); small enough to bound the storage's memory, large
  // enough that the per-commit lock and WAL write do not dominate.
  size_t batch_samples = 100'000;
  // Samples parsed and sorted at once (24 bytes each: 2 M = 48 MB). Out-of-order
  // samples of a series further apart than this in the input reach the storage
  // out of order and are rejected (counted), as they would be across requests.
  size_t window_samples = 2'000'000;
  // Parse errors and storage rejections kept verbatim for the report.
  size_t max_kept_errors = 5;
};

// One problem, for messages: the 1-based input line (0 when unknown).
struct ImportIssue {
  int line = 0;
  std::string message;
  std::string to_string() const;  // "line 12: ..."
};

struct ImportStats {
  uint64_t lines = 0;                   // lines in the input, blank and comments included
  uint64_t samples_parsed = 0;          // sample lines that parsed
  uint64_t invalid_lines = 0;           // sample lines that did not
  uint64_t series = 0;                  // distinct series among the parsed samples
  uint64_t duplicates_dropped = 0;      // exact repeats inside a window, never sent
  uint64_t samples_accepted = 0;        // appended and committed (incl. re-sent identical samples the storage ignores)
  uint64_t rejected_out_of_order = 0;   // older than the series' newest stored sample
  uint64_t rejected_duplicate = 0;      // same timestamp as the newest, different value
  uint64_t rejected_out_of_bounds = 0;  // before the storage's lowest appendable time
  uint64_t rejected_other = 0;          // any other append or commit failure
  uint64_t commits = 0;
  std::vector<ImportIssue> parse_errors;  // the first max_kept_errors invalid lines
  std::vector<ImportIssue> rejections;    // the first max_kept_errors storage rejections

  uint64_t rejected() const {
    return rejected_out_of_order + rejected_duplicate + rejected_out_of_bounds + rejected_other;
  }
  // One line: "samples=10 accepted=8 invalid_lines=1 ..." for logs and headers.
  std::string summary() const;
};

// Why the storage refused a sample, from its Status message (tsdb::Head and
// tsdb::Db use the prefixes named in storage.h's Appender contract).
enum class RejectReason { kOutOfOrder, kDuplicate, kOutOfBounds, kOther };
RejectReason classify_rejection(std::string_view message);

// Validates extra label names (Prometheus rules; "__name__" is refused: it
// would rename every series). Error names the offending label.
Status validate_extra_labels(const std::vector<model::Label>& labels);

// Imports `text` into `storage`. Fails only on invalid options; everything
// about the input or the storage's answers is in the stats.
Expected<ImportStats> import_prometheus_text(storage::Storage& storage, std::string_view text,
                                             const ImportOptions& options);

// Inflates a gzip body (RFC 1952; several members are concatenated, as Go's
// gzip reader does). Errors: corrupt or truncated data, trailing garbage, or
// more than max_bytes of output (a "zip bomb": 1 GB of zeros is ~1 MB gzipped);
// output stops growing at the limit, so the limit bounds memory too.
Expected<std::string> gunzip(std::string_view data, size_t max_bytes);

}  // namespace llmon::ingest
