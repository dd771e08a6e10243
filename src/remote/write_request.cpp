#include "remote/write_request.h"

#include <snappy.h>

#include <cstring>

#include "base/proto_wire.h"

namespace llmon::remote {
namespace {

void put_int64(std::string& out, int field, int64_t v) {
  base::put_tag(out, field, 0);
  base::put_varint(out, static_cast<uint64_t>(v));  // int64: two's complement, 10 bytes when negative
}

void put_raw_double(std::string& out, int field, double d) {
  base::put_tag(out, field, 1);
  uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof d);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xff);
}

}  // namespace

std::vector<SeriesView> views_of(const std::vector<WriteSeries>& series) {
  std::vector<SeriesView> out;
  out.reserve(series.size());
  for (const WriteSeries& s : series) out.push_back({&s.labels, s.samples, s.metadata});
  return out;
}

void encode_write_request(std::span<const SeriesView> series, const std::vector<WriteMetadata>& metadata,
                          std::string& out) {
  out.clear();
  std::string ts, item;
  for (const SeriesView& s : series) {
    ts.clear();
    for (const model::Label& l : *s.labels) {
      item.clear();
      base::put_bytes(item, 1, l.name);
      base::put_bytes(item, 2, l.value);
      base::put_bytes(ts, 1, item);
    }
    for (const WriteSample& p : s.samples) {
      item.clear();
      put_raw_double(item, 1, p.v);
      put_int64(item, 2, p.t_ms);
      base::put_bytes(ts, 2, item);
    }
    base::put_bytes(out, 1, ts);
  }
  for (const WriteMetadata& m : metadata) {
    item.clear();
    if (m.type != 0) {
      base::put_tag(item, 1, 0);
      base::put_varint(item, static_cast<uint64_t>(m.type));
    }
    base::put_bytes(item, 2, m.family);
    if (!m.help.empty()) base::put_bytes(item, 4, m.help);
    if (!m.unit.empty()) base::put_bytes(item, 5, m.unit);
    base::put_bytes(out, 4, item);
  }
}

std::string snappy_compress(std::string_view raw) {
  std::string out;
  snappy::Compress(raw.data(), raw.size(), &out);
  return out;
}

}  // namespace llmon::remote
