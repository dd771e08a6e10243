// A WriteRequest decoder for the tests, written from protobuf's wire-format
// guide and prompb's .proto alone (not from the encoder).
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <string_view>
#include <vector>

#include "remote/write_request.h"

namespace llmon::remote::testing {

// A protobuf reader written from the wire-format guide alone, for checking
// what the encoder wrote.
struct Reader {
  std::string_view b;
  bool done() const { return b.empty(); }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      EXPECT_FALSE(b.empty());
      if (b.empty()) return v;
      const auto c = static_cast<uint8_t>(b[0]);
      b.remove_prefix(1);
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      if (!(c & 0x80)) break;
    }
    return v;
  }
  std::string_view bytes() {
    const size_t n = varint();
    EXPECT_LE(n, b.size());
    std::string_view out = b.substr(0, n);
    b.remove_prefix(n);
    return out;
  }
  uint64_t fixed64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[i])) << (8 * i);
    b.remove_prefix(8);
    return v;
  }
};

struct Decoded {
  std::vector<WriteSeries> series;
  std::vector<WriteMetadata> metadata;
};

// prometheus.Sample and io.prometheus.write.v2.Sample alike: value (1,
// double), timestamp (2, int64 ms).
inline WriteSample decode_sample(Reader& item) {
  WriteSample p;
  while (!item.done()) {
    const uint64_t f = item.varint();
    if (f == (1 << 3 | 1))
      p.v = std::bit_cast<double>(item.fixed64());
    else if (f == (2 << 3 | 0))
      p.t_ms = static_cast<int64_t>(item.varint());
    else
      ADD_FAILURE() << "sample field " << f;
  }
  return p;
}

inline Decoded decode(std::string_view body) {
  Decoded d;
  Reader r{body};
  while (!r.done()) {
    const uint64_t tag = r.varint();
    if (tag == (1 << 3 | 2)) {
      WriteSeries s;
      Reader ts{r.bytes()};
      while (!ts.done()) {
        const uint64_t t = ts.varint();
        Reader item{ts.bytes()};
        if (t == (1 << 3 | 2)) {
          model::Label l;
          while (!item.done()) {
            const uint64_t f = item.varint();
            if (f == (1 << 3 | 2))
              l.name = item.bytes();
            else if (f == (2 << 3 | 2))
              l.value = item.bytes();
            else
              ADD_FAILURE() << "label field " << f;
          }
          s.labels.push_back(l);
        } else if (t == (2 << 3 | 2)) {
          s.samples.push_back(decode_sample(item));
        } else {
          ADD_FAILURE() << "timeseries field " << t;
        }
      }
      d.series.push_back(std::move(s));
    } else if (tag == (4 << 3 | 2)) {
      WriteMetadata m;
      Reader item{r.bytes()};
      while (!item.done()) {
        const uint64_t f = item.varint();
        if (f == (1 << 3 | 0))
          m.type = static_cast<int>(item.varint());
        else if (f == (2 << 3 | 2))
          m.family = item.bytes();
        else if (f == (4 << 3 | 2))
          m.help = item.bytes();
        else if (f == (5 << 3 | 2))
          m.unit = item.bytes();
        else
          ADD_FAILURE() << "metadata field " << f;
      }
      d.metadata.push_back(m);
    } else {
      ADD_FAILURE() << "WriteRequest field " << tag;
      break;
    }
  }
  return d;
}

}  // namespace llmon::remote::testing
