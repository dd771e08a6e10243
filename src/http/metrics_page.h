// MetricsPage renders the latest snapshot as an exposition page, once per
// snapshot and format, and gzips it once on demand, so a scrape costs a cache
// lookup and a copy: no /proc I/O, no re-rendering. Thread-safe.
// A page of some collectors only (node_exporter's ?collect[]= / ?exclude[]=)
// is cut from the latest snapshot and rendered for its request.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exposition/format.h"
#include "model/metric.h"

namespace llmon::http {

// The collectors a request asks for: node_exporter's collect[] (only these)
// and exclude[] (every enabled one but these; node_exporter 1.7's addition).
struct CollectorFilter {
  std::vector<std::string> collect, exclude;
  bool empty() const { return collect.empty() && exclude.empty(); }
};

struct FilteredPage {
  std::shared_ptr<const std::string> body;  // null: error, or no cycle yet (error empty)
  std::string error;                        // the 400 answer's text, node_exporter's
};

class MetricsPage {
 public:
  using Source = std::function<model::SnapshotPtr()>;
  // known_collectors: every collector name there is (enabled or not), so that
  // a request for a disabled one is told so rather than that it is missing.
  explicit MetricsPage(Source source, std::vector<std::string> known_collectors = {})
      : source_(std::move(source)), known_(std::move(known_collectors)) {}

  // Null when no cycle has completed yet.
  std::shared_ptr<const std::string> body(exposition::Format format, bool gzip);
  // The families of the collectors `filter` selects (with their
  // node_scrape_collector_* series), from the latest cycle. An unknown or
  // disabled name in collect[] is an error, as are collect[] and exclude[]
  // together; unknown names in exclude[] are ignored; excluding every
  // collector leaves none excluded (node_exporter runs all on an empty list).
  FilteredPage filtered_body(exposition::Format format, bool gzip, const CollectorFilter& filter);

 private:
  struct Slot {
    std::shared_ptr<const std::string> plain, gzipped;
  };
  Source source_;
  std::vector<std::string> known_;
  std::mutex mu_;
  std::shared_ptr<void> zstream_;  // reused deflate state (z_stream), guarded by mu_
  model::SnapshotPtr snap_;
  Slot slots_[2];
};

// The part of snap that the named collectors emitted: their families and,
// of the families outside every collector (node_scrape_collector_*), the
// series whose "collector" label names one of them. Same timestamp.
model::Snapshot select_collectors(const model::Snapshot& snap, const std::vector<std::string>& names);

// Compresses data as a gzip member (RFC 1952). Level 1: on a metrics page it
// is 3x faster than level 6 for ~13% more bytes. With `state` (from a previous
// call) the 260 KB of deflate state is reset instead of reallocated.
std::string gzip_compress(const std::string& data, int level = 1, std::shared_ptr<void>* state = nullptr);
// True when an Accept-Encoding header allows gzip (q > 0).
bool accepts_gzip(const std::string& accept_encoding);

}  // namespace llmon::http
