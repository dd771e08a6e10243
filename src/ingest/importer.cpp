#include "ingest/importer.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <functional>
#include <limits>
#include <memory>
#include <unordered_map>

#include "exposition/text_parser.h"

namespace llmon::ingest {
namespace {

constexpr std::string_view kMetricNameLabel = "__name__";

// One parsed sample waiting for its window to be sorted: 24 bytes.
struct Pending {
  uint32_t series;
  uint32_t line;
  int64_t t_ms;
  uint64_t v_bits;
};
static_assert(sizeof(Pending) == 24);

struct SeriesEntry {
  const model::Labels* labels;  // the key in Importer::by_labels_ (nodes do not move)
  storage::SeriesRef ref = 0;
};

struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct LabelsHash {
  size_t operator()(const model::Labels& l) const { return static_cast<size_t>(l.hash()); }
};

// "12 samples rejected at commit ..." -> 12 (tsdb::Head's partial commit).
std::optional<uint64_t> rejected_at_commit(std::string_view msg) {
  size_t i = 0;
  uint64_t n = 0;
  while (i < msg.size() && msg[i] >= '0' && msg[i] <= '9' && i < 19) n = n * 10 + static_cast<uint64_t>(msg[i++] - '0');
  if (i == 0 || msg.substr(i).rfind(" samples rejected", 0) != 0) return std::nullopt;
  return n;
}

class Importer {
 public:
  Importer(storage::Storage& st, const ImportOptions& o) : st_(st), o_(o) {
    batch_ = std::max<size_t>(o_.batch_samples, 1);
    window_cap_ = std::max<size_t>(o_.window_samples, 1);
  }

  ImportStats run(std::string_view text) {
    exposition::TextParser parser(text);
    for (auto k = parser.next(); k != exposition::TextParser::Next::kEnd; k = parser.next()) {
      if (k == exposition::TextParser::Next::kError) {
        invalid(parser.error().line, parser.error().to_string());
        continue;
      }
      const exposition::TextSample& s = parser.sample();
      auto id = series_id(s);
      if (!id) {
        invalid(parser.line_no(), "line " + std::to_string(parser.line_no()) + ": " + id.error());
        continue;
      }
      ++stats_.samples_parsed;
      uint32_t line = static_cast<uint32_t>(std::min<int64_t>(parser.line_no(), UINT32_MAX));
      window_.push_back({*id, line, s.timestamp_ms.value_or(o_.now_ms), std::bit_cast<uint64_t>(s.value)});
      if (window_.size() >= window_cap_) flush_window();
    }
    stats_.lines = static_cast<uint64_t>(parser.line_no());
    flush_window();
    commit();
    stats_.series = series_.size();
    return std::move(stats_);
  }

 private:
  void invalid(int line, std::string message) {
    ++stats_.invalid_lines;
    if (stats_.parse_errors.size() < o_.max_kept_errors) stats_.parse_errors.push_back({line, std::move(message)});
  }

  void rejection(int line, std::string message) {
    if (stats_.rejections.size() < o_.max_kept_errors) stats_.rejections.push_back({line, std::move(message)});
  }

  Expected<uint32_t> series_id(const exposition::TextSample& s) {
    if (auto it = by_text_.find(s.series_text); it != by_text_.end()) return it->second;
    std::vector<model::Label> pairs;
    pairs.reserve(s.labels.size() + o_.extra_labels.size() + 1);
    pairs.push_back({std::string(kMetricNameLabel), std::string(s.name)});
    for (const auto& l : s.labels) {
      bool replaced = std::any_of(o_.extra_labels.begin(), o_.extra_labels.end(),
                                  [&](const model::Label& e) { return e.name == l.name; });
      if (!replaced) pairs.push_back({std::string(l.name), std::string(l.value)});
    }
    for (const auto& e : o_.extra_labels) pairs.push_back(e);
    auto labels = model::Labels::make(std::move(pairs));
    if (!labels) return labels.status();
    if (series_.size() >= std::numeric_limits<uint32_t>::max()) return Status::error("too many series in one import");
    auto [it, inserted] = by_labels_.try_emplace(std::move(*labels), static_cast<uint32_t>(series_.size()));
    if (inserted) series_.push_back({&it->first, 0});
    by_text_.emplace(std::string(s.series_text), it->second);
    return it->second;
  }

  void flush_window() {
    std::sort(window_.begin(), window_.end(), [](const Pending& a, const Pending& b) {
      if (a.series != b.series) return a.series < b.series;
      if (a.t_ms != b.t_ms) return a.t_ms < b.t_ms;
      return a.line < b.line;
    });
    size_t group = 0;  // first sample with this window's current (series, t)
    for (size_t i = 0; i < window_.size(); ++i) {
      const Pending& p = window_[i];
      if (i == 0 || p.series != window_[group].series || p.t_ms != window_[group].t_ms) group = i;
      bool repeat = false;
      for (size_t k = group; k < i && !repeat; ++k) repeat = window_[k].v_bits == p.v_bits;
      if (repeat) {
        ++stats_.duplicates_dropped;
        continue;
      }
      append(p);
    }
    window_.clear();
  }

  void append(const Pending& p) {
    if (!app_) app_ = st_.appender();
    SeriesEntry& s = series_[p.series];
    auto r = app_->append(s.ref, *s.labels, p.t_ms, std::bit_cast<double>(p.v_bits));
    if (!r) {
      switch (classify_rejection(r.error())) {
        case RejectReason::kOutOfOrder:
          ++stats_.rejected_out_of_order;
          break;
        case RejectReason::kDuplicate:
          ++stats_.rejected_duplicate;
          break;
        case RejectReason::kOutOfBounds:
          ++stats_.rejected_out_of_bounds;
          break;
        case RejectReason::kOther:
          ++stats_.rejected_other;
          break;
      }
      rejection(static_cast<int>(p.line), "line " + std::to_string(p.line) + ": " + s.labels->to_string() + " at " +
                                              std::to_string(p.t_ms) + " ms: " + r.error());
      return;
    }
    s.ref = *r;
    if (++in_batch_ >= batch_) commit();
  }

  void commit() {
    if (!app_) return;
    Status st = app_->commit();
    app_.reset();
    ++stats_.commits;
    uint64_t n = in_batch_;
    in_batch_ = 0;
    if (st.is_ok()) {
      stats_.samples_accepted += n;
      return;
    }
    // A partial commit says how many it refused; any other failure lost the batch.
    uint64_t lost = std::min(n, rejected_at_commit(st.message()).value_or(n));
    stats_.samples_accepted += n - lost;
    stats_.rejected_other += lost;
    rejection(0, "commit of " + std::to_string(n) + " samples: " + st.message());
  }

  storage::Storage& st_;
  const ImportOptions& o_;
  size_t batch_ = 1;
  size_t window_cap_ = 1;
  ImportStats stats_;
  std::unordered_map<std::string, uint32_t, TextHash, std::equal_to<>> by_text_;
  std::unordered_map<model::Labels, uint32_t, LabelsHash> by_labels_;
  std::vector<SeriesEntry> series_;
  std::vector<Pending> window_;
  std::unique_ptr<storage::Appender> app_;
  size_t in_batch_ = 0;
};

}  // namespace

std::string ImportIssue::to_string() const {
  return line > 0 && message.rfind("line ", 0) != 0 ? "line " + std::to_string(line) + ": " + message : message;
}

std::string ImportStats::summary() const {
  std::string s;
  auto add = [&s](const char* k, uint64_t v) {
    if (!s.empty()) s += ' ';
    s += k;
    s += '=';
    s += std::to_string(v);
  };
  add("samples", samples_parsed);
  add("accepted", samples_accepted);
  add("invalid_lines", invalid_lines);
  add("duplicates_dropped", duplicates_dropped);
  add("out_of_order", rejected_out_of_order);
  add("duplicate_timestamp", rejected_duplicate);
  add("out_of_bounds", rejected_out_of_bounds);
  add("rejected_other", rejected_other);
  add("series", series);
  return s;
}

RejectReason classify_rejection(std::string_view m) {
  // Matched anywhere: a storage may prefix context ("wal: ...").
  if (m.find("out of order") != std::string_view::npos) return RejectReason::kOutOfOrder;
  if (m.find("duplicate sample") != std::string_view::npos) return RejectReason::kDuplicate;
  if (m.find("out of bounds") != std::string_view::npos) return RejectReason::kOutOfBounds;
  return RejectReason::kOther;
}

Status validate_extra_labels(const std::vector<model::Label>& labels) {
  for (size_t i = 0; i < labels.size(); ++i) {
    const std::string& n = labels[i].name;
    if (!exposition::is_valid_label_name(n))
      return Status::error("extra label \"" + n + "\": not a valid label name ([a-zA-Z_][a-zA-Z0-9_]*)");
    if (n == kMetricNameLabel) return Status::error("extra label \"__name__\": would rename every series");
    for (size_t j = 0; j < i; ++j)
      if (labels[j].name == n) return Status::error("extra label \"" + n + "\" given twice");
  }
  return Status::ok();
}

Expected<ImportStats> import_prometheus_text(storage::Storage& storage, std::string_view text,
                                             const ImportOptions& options) {
  Status s = validate_extra_labels(options.extra_labels);
  if (!s) return s;
  return Importer(storage, options).run(text);
}

Expected<std::string> gunzip(std::string_view data, size_t max_bytes) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return Status::error("gzip: cannot initialise zlib");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
  std::string out;
  // The last member's ISIZE (its size mod 2^32) is a good guess of the whole
  // output for the usual one-member body: no regrowth while inflating.
  if (data.size() >= 18) {
    const auto* e = reinterpret_cast<const unsigned char*>(data.data() + data.size() - 4);
    const size_t isize = size_t{e[0]} | size_t{e[1]} << 8 | size_t{e[2]} << 16 | size_t{e[3]} << 24;
    out.reserve(std::min({isize, max_bytes, size_t{256} << 20}));
  }
  size_t fed = 0;
  constexpr size_t kMaxFeed = 1u << 30;  // avail_in is 32-bit
  char buf[64 * 1024];
  for (;;) {
    if (zs.avail_in == 0 && fed < data.size()) {
      size_t n = std::min(kMaxFeed, data.size() - fed);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + fed));
      zs.avail_in = static_cast<uInt>(n);
      fed += n;
    }
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    int rc = inflate(&zs, Z_NO_FLUSH);
    size_t produced = sizeof buf - zs.avail_out;
    if (produced > max_bytes - std::min(max_bytes, out.size()))
      return Status::error("gzip: decompressed body exceeds the limit of " + std::to_string(max_bytes) + " bytes");
    out.append(buf, produced);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0 && fed == data.size()) return out;
      inflateReset(&zs);  // another member follows (RFC 1952 2.2)
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && fed == data.size()) {
      return Status::error("gzip: truncated data after " + std::to_string(data.size()) + " bytes");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Status::error(std::string("gzip: corrupt data at byte ") + std::to_string(fed - zs.avail_in) + ": " +
                           (zs.msg ? zs.msg : "inflate failed"));
    }
  }
}

}  // namespace llmon::ingest
