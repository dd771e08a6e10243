#include "remote/write_request_v2.h"

#include <cstring>
#include <unordered_map>

#include "base/proto_wire.h"

namespace llmon::remote {
namespace {

// The symbol table: strings in first-use order, "" at index 0.
class Symbols {
 public:
  Symbols() { ref(""); }
  uint32_t ref(std::string_view s) {
    auto [it, fresh] = index_.try_emplace(s, static_cast<uint32_t>(order_.size()));
    if (fresh) order_.push_back(s);
    return it->second;
  }
  void write(std::string& out) const {
    for (std::string_view s : order_) base::put_bytes(out, 4, s);
  }

 private:
  std::unordered_map<std::string_view, uint32_t> index_;
  std::vector<std::string_view> order_;
};

void put_varint_field(std::string& out, int field, uint64_t v) {
  base::put_tag(out, field, 0);
  base::put_varint(out, v);
}

}  // namespace

void encode_write_request_v2(std::span<const SeriesView> series, std::string& out) {
  out.clear();
  Symbols symbols;
  std::string body, ts, item;
  for (const SeriesView& s : series) {
    ts.clear();
    item.clear();
    for (const model::Label& l : *s.labels) {
      base::put_varint(item, symbols.ref(l.name));
      base::put_varint(item, symbols.ref(l.value));
    }
    base::put_bytes(ts, 1, item);  // packed labels_refs
    for (const WriteSample& p : s.samples) {
      item.clear();
      base::put_double(item, 1, p.v);  // fixed64, bit-exact
      put_varint_field(item, 2, static_cast<uint64_t>(p.t_ms));
      base::put_bytes(ts, 2, item);
    }
    if (const WriteMetadata* m = s.metadata) {
      item.clear();
      if (m->type != 0) put_varint_field(item, 1, static_cast<uint64_t>(m->type));
      if (!m->help.empty()) put_varint_field(item, 3, symbols.ref(m->help));
      if (!m->unit.empty()) put_varint_field(item, 4, symbols.ref(m->unit));
      base::put_bytes(ts, 5, item);
    }
    base::put_bytes(body, 5, ts);
  }
  symbols.write(out);
  out += body;
}

}  // namespace llmon::remote
