#include "http/metrics_page.h"

#include <zlib.h>

#include "base/strings.h"
#include "exposition/text_writer.h"

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
