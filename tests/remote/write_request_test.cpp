#include "remote/write_request.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <bit>
#include <cmath>
#include <cstring>

namespace llmon::remote {
namespace {

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

Decoded decode(std::string_view body) {
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
          s.samples.push_back(p);
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

TEST(WriteRequest, RoundTripsSeriesSamplesAndMetadata) {
  const double stale = std::bit_cast<double>(0x7ff0000000000002ull);
  std::vector<WriteSeries> in = {
      {{{"__name__", "up"}, {"instance", "gpu01:9400"}, {"job", "llmon"}}, {{1733230000000, 1}, {1733230001000, 0}}},
      {{{"__name__", "neg"}}, {{-5, -2.5}, {0, stale}, {1, 1e300}}},
      {{{"__name__", "empty_samples"}}, {}},
  };
  std::vector<WriteMetadata> meta = {{1, "http_requests_total", "Requests.", ""}, {0, "x", "", "bytes"}};
  std::string out;
  encode_write_request(in, meta, out);
  Decoded d = decode(out);
  ASSERT_EQ(d.series.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(d.series[i].labels, in[i].labels);
    ASSERT_EQ(d.series[i].samples.size(), in[i].samples.size());
    for (size_t j = 0; j < in[i].samples.size(); ++j) {
      EXPECT_EQ(d.series[i].samples[j].t_ms, in[i].samples[j].t_ms);
      EXPECT_EQ(std::bit_cast<uint64_t>(d.series[i].samples[j].v), std::bit_cast<uint64_t>(in[i].samples[j].v));
    }
  }
  ASSERT_EQ(d.metadata.size(), 2u);
  EXPECT_EQ(d.metadata[0].type, 1);
  EXPECT_EQ(d.metadata[0].family, "http_requests_total");
  EXPECT_EQ(d.metadata[0].help, "Requests.");
  EXPECT_EQ(d.metadata[1].unit, "bytes");
}

TEST(WriteRequest, KnownBytes) {
  // WriteRequest{timeseries: [{labels: [{a, b}], samples: [{value: 1, timestamp: 2}]}]}
  std::string out;
  encode_write_request({{{{"a", "b"}}, {{2, 1.0}}}}, {}, out);
  const std::string want = std::string("\x0a\x15", 2) +
                           std::string(
                               "\x0a\x06\x0a\x01"
                               "a\x12\x01"
                               "b",
                               8) +
                           std::string("\x12\x0b\x09\x00\x00\x00\x00\x00\x00\xf0\x3f\x10\x02", 13);
  EXPECT_EQ(out, want);
}

TEST(WriteRequest, EmptyRequestIsEmpty) {
  std::string out = "junk";
  encode_write_request({}, {}, out);
  EXPECT_TRUE(out.empty());
}

TEST(WriteRequest, SnappyBlockFormatRoundTrips) {
  std::string raw;
  encode_write_request({{{{"__name__", "m"}}, std::vector<WriteSample>(1000, {5, 1})}}, {}, raw);
  const std::string c = snappy_compress(raw);
  EXPECT_LT(c.size(), raw.size());
  // The block format starts with the uncompressed length as a varint (the
  // framed format would start with the stream identifier 0xff 06 00 00 sNaPpY).
  EXPECT_NE(static_cast<uint8_t>(c[0]), 0xff);
  std::string back;
  ASSERT_TRUE(snappy::Uncompress(c.data(), c.size(), &back));
  EXPECT_EQ(back, raw);
}

}  // namespace
}  // namespace llmon::remote
