// An io.prometheus.write.v2.Request decoder for the tests, written from the
// remote write 2.0 spec and types.proto alone (not from the encoder): it
// resolves every reference through the symbol table and fails the test on a
// reference outside it, an odd labels_refs length or a symbol table not
// starting with "".
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <optional>
#include <string>
#include <vector>

#include "remote/write_request_decoder.h"

namespace llmon::remote::testing {

struct DecodedSeriesV2 {
  std::vector<model::Label> labels;
  std::vector<WriteSample> samples;
  std::optional<WriteMetadata> metadata;  // family left empty (2.0 has none)
};

struct DecodedV2 {
  std::vector<std::string> symbols;
  std::vector<DecodedSeriesV2> series;
};

inline DecodedV2 decode_v2(std::string_view body) {
  DecodedV2 d;
  std::vector<std::string_view> raw_series;
  Reader r{body};
  while (!r.done()) {
    const uint64_t tag = r.varint();
    if (tag == (4 << 3 | 2)) {
      d.symbols.emplace_back(r.bytes());
    } else if (tag == (5 << 3 | 2)) {
      raw_series.push_back(r.bytes());
    } else {
      ADD_FAILURE() << "Request field " << tag;
      break;
    }
  }
  EXPECT_FALSE(d.symbols.empty());
  if (!d.symbols.empty()) {
    EXPECT_EQ(d.symbols[0], "") << "symbols must start with the empty string";
  }
  auto sym = [&](uint64_t ref) -> std::string {
    EXPECT_LT(ref, d.symbols.size()) << "reference outside the symbol table";
    return ref < d.symbols.size() ? d.symbols[ref] : std::string();
  };
  for (std::string_view raw : raw_series) {
    DecodedSeriesV2 s;
    std::vector<uint64_t> refs;
    Reader ts{raw};
    while (!ts.done()) {
      const uint64_t t = ts.varint();
      if (t == (1 << 3 | 2)) {  // packed
        Reader p{ts.bytes()};
        while (!p.done()) refs.push_back(p.varint());
      } else if (t == (1 << 3 | 0)) {
        refs.push_back(ts.varint());
      } else if (t == (2 << 3 | 2)) {
        Reader item{ts.bytes()};
        s.samples.push_back(decode_sample(item));
      } else if (t == (5 << 3 | 2)) {
        WriteMetadata m;
        Reader item{ts.bytes()};
        while (!item.done()) {
          const uint64_t f = item.varint();
          if (f == (1 << 3 | 0))
            m.type = static_cast<int>(item.varint());
          else if (f == (3 << 3 | 0))
            m.help = sym(item.varint());
          else if (f == (4 << 3 | 0))
            m.unit = sym(item.varint());
          else
            ADD_FAILURE() << "metadata field " << f;
        }
        s.metadata = m;
      } else {
        ADD_FAILURE() << "TimeSeries field " << t;
        break;
      }
    }
    EXPECT_EQ(refs.size() % 2, 0u) << "labels_refs must come in pairs";
    for (size_t i = 0; i + 1 < refs.size(); i += 2) s.labels.push_back({sym(refs[i]), sym(refs[i + 1])});
    d.series.push_back(std::move(s));
  }
  return d;
}

}  // namespace llmon::remote::testing
