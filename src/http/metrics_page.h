// MetricsPage renders the latest snapshot as an exposition page, once per
// snapshot and format, and gzips it once on demand, so a scrape costs a cache
// lookup and a copy: no /proc I/O, no re-rendering. Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "exposition/format.h"
#include "model/metric.h"

namespace llmon::http {

class MetricsPage {
 public:
  using Source = std::function<model::SnapshotPtr()>;
  explicit MetricsPage(Source source) : source_(std::move(source)) {}

  // Null when no cycle has completed yet.
  std::shared_ptr<const std::string> body(exposition::Format format, bool gzip);

 private:
  struct Slot {
    std::shared_ptr<const std::string> plain, gzipped;
  };
  Source source_;
  std::mutex mu_;
  model::SnapshotPtr snap_;
  Slot slots_[2];
};

// Compresses data as a gzip member (RFC 1952).
std::string gzip_compress(const std::string& data, int level = 6);
// True when an Accept-Encoding header allows gzip (q > 0).
bool accepts_gzip(const std::string& accept_encoding);

}  // namespace llmon::http
