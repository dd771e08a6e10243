#include "http/metrics_page.h"

#include <zlib.h>

#include <algorithm>

#include "base/strings.h"
#include "exposition/text_writer.h"
#include "model/snapshot_builder.h"

namespace llmon::http {

std::string gzip_compress(const std::string& data, int level, std::shared_ptr<void>* state) {
  std::shared_ptr<void> local;
  std::shared_ptr<void>& holder = state ? *state : local;
  auto* zs = static_cast<z_stream*>(holder.get());
  if (zs) {
    deflateReset(zs);
  } else {
    auto fresh = std::shared_ptr<z_stream>(new z_stream{}, [](z_stream* z) {
      deflateEnd(z);
      delete z;
    });
    if (deflateInit2(fresh.get(), level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
    zs = fresh.get();
    holder = std::move(fresh);
  }
  std::string out;
  out.resize(deflateBound(zs, data.size()) + 32);
  zs->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs->avail_in = static_cast<uInt>(data.size());
  zs->next_out = reinterpret_cast<Bytef*>(out.data());
  zs->avail_out = static_cast<uInt>(out.size());
  int rc = deflate(zs, Z_FINISH);
  out.resize(zs->total_out);
  if (rc != Z_STREAM_END) return {};
  return out;
}

bool accepts_gzip(const std::string& accept_encoding) {
  for (std::string_view entry : base::split(accept_encoding, ',')) {
    auto parts = base::split(entry, ';');
    std::string_view coding = base::trim(parts[0]);
    if (coding != "gzip" && coding != "*") continue;
    double q = 1;
    for (size_t i = 1; i < parts.size(); ++i) {
      std::string_view p = base::trim(parts[i]);
      if (p.substr(0, 2) == "q=") {
        auto v = base::parse_double(p.substr(2));
        q = v ? *v : 0;
      }
    }
    if (q > 0) return true;
  }
  return false;
}

namespace {

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void copy_family(model::SnapshotBuilder& b, const model::Family& f, int collector_label,
                 const std::vector<std::string>& names) {
  auto w = b.family(f.name, f.help, f.type, f.label_names);
  for (const model::Series& s : f.series) {
    if (collector_label >= 0 && (static_cast<size_t>(collector_label) >= s.label_values.size() ||
                                 !contains(names, s.label_values[collector_label])))
      continue;
    w.add(s.label_values, s.value);
  }
}

}  // namespace

model::Snapshot select_collectors(const model::Snapshot& snap, const std::vector<std::string>& names) {
  model::Snapshot out;
  model::SnapshotBuilder b(out, snap.timestamp_ms);
  std::vector<char> owned(snap.families.size(), 0);
  for (const model::CollectorSpan& span : snap.collectors) {
    for (uint32_t i = span.first_family; i < span.end_family && i < snap.families.size(); ++i) owned[i] = 1;
  }
  for (const model::CollectorSpan& span : snap.collectors) {
    if (!contains(names, span.name)) continue;
    for (uint32_t i = span.first_family; i < span.end_family && i < snap.families.size(); ++i)
      copy_family(b, snap.families[i], -1, names);
    out.collectors.push_back(span);  // indices of `snap`, fixed below
  }
  for (size_t i = 0; i < snap.families.size(); ++i) {
    if (owned[i]) continue;
    const model::Family& f = snap.families[i];
    auto it = std::find(f.label_names.begin(), f.label_names.end(), "collector");
    copy_family(b, f, it == f.label_names.end() ? -1 : static_cast<int>(it - f.label_names.begin()), names);
  }
  uint32_t next = 0;
  for (model::CollectorSpan& span : out.collectors) {
    uint32_t n = span.end_family - span.first_family;
    span.first_family = next;
    span.end_family = next += n;
  }
  b.finish();
  out.duration_seconds = snap.duration_seconds;
  return out;
}

FilteredPage MetricsPage::filtered_body(exposition::Format format, bool gzip, const CollectorFilter& filter) {
  if (filter.empty()) return {body(format, gzip), {}};
  FilteredPage page;
  if (!filter.collect.empty() && !filter.exclude.empty()) {
    page.error = "Combined collect and exclude queries are not allowed.\n";  // http.Error adds the newline
    return page;
  }
  model::SnapshotPtr snap = source_();
  if (!snap) return page;
  std::vector<std::string> enabled;
  for (const auto& span : snap->collectors) enabled.push_back(span.name);
  std::vector<std::string> names;
  if (!filter.collect.empty()) {
    for (const std::string& name : filter.collect) {
      if (!contains(enabled, name)) {
        page.error = "Couldn't create filtered metrics handler: couldn't create collector: " +
                     std::string(contains(known_, name) ? "disabled" : "missing") + " collector: " + name;
        return page;
      }
    }
    names = filter.collect;
  } else {
    for (const std::string& name : enabled)
      if (!contains(filter.exclude, name)) names.push_back(name);
    if (names.empty()) names = enabled;  // NewNodeCollector with no filters runs them all
  }
  model::Snapshot part = select_collectors(*snap, names);
  auto text = std::make_shared<std::string>();
  exposition::write_page(part, format, *text);
  if (gzip) {
    page.body = std::make_shared<const std::string>(gzip_compress(*text));
  } else {
    page.body = std::move(text);
  }
  return page;
}

std::shared_ptr<const std::string> MetricsPage::body(exposition::Format format, bool gzip) {
  model::SnapshotPtr snap = source_();
  if (!snap) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  if (snap != snap_) {
    snap_ = snap;
    for (auto& s : slots_) s = Slot{};
  }
  Slot& slot = slots_[format == exposition::Format::kOpenMetrics100 ? 1 : 0];
  if (!slot.plain) {
    auto page = std::make_shared<std::string>();
    page->reserve(64 * 1024);
    exposition::write_page(*snap, format, *page);
    slot.plain = std::move(page);
  }
  if (!gzip) return slot.plain;
  if (!slot.gzipped) slot.gzipped = std::make_shared<const std::string>(gzip_compress(*slot.plain, 1, &zstream_));
  return slot.gzipped;
}

}  // namespace llmon::http
