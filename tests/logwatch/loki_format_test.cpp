// Loki push bodies: the protobuf decoded by a reader written here from
// push.proto and the protobuf wire format (not the encoder's helpers), the
// snappy block inflated by libsnappy, the JSON parsed back; label strings
// and lines on literals.
#include "logwatch/loki_format.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <nlohmann/json.hpp>

namespace llmon::logwatch {
namespace {

// --- A minimal protobuf reader: (field, wire type, varint or bytes).
struct Field {
  int number = 0;
  int wire = 0;
  uint64_t varint = 0;
  std::string bytes;
};

std::vector<Field> fields(std::string_view b) {
  std::vector<Field> out;
  size_t i = 0;
  auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0; i < b.size(); shift += 7) {
      auto c = static_cast<unsigned char>(b[i++]);
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      if (!(c & 0x80)) return v;
    }
    ADD_FAILURE() << "truncated varint";
    return v;
  };
  while (i < b.size()) {
    uint64_t key = varint();
    Field f;
    f.number = static_cast<int>(key >> 3);
    f.wire = static_cast<int>(key & 7);
    if (f.wire == 0) {
      f.varint = varint();
    } else if (f.wire == 2) {
      uint64_t n = varint();
      EXPECT_LE(i + n, b.size());
      f.bytes = std::string(b.substr(i, n));
      i += n;
    } else {
      ADD_FAILURE() << "unexpected wire type " << f.wire;
      break;
    }
    out.push_back(std::move(f));
  }
  return out;
}

struct DecodedEntry {
  int64_t seconds = 0;
  int64_t nanos = 0;
  std::string line;
};
struct DecodedStream {
  std::string labels;
  std::vector<DecodedEntry> entries;
};

std::vector<DecodedStream> decode_push_request(std::string_view body) {
  std::vector<DecodedStream> out;
  for (const Field& s : fields(body)) {
    EXPECT_EQ(s.number, 1);  // PushRequest.streams
    EXPECT_EQ(s.wire, 2);
    DecodedStream ds;
    for (const Field& f : fields(s.bytes)) {
      if (f.number == 1) {  // StreamAdapter.labels
        ds.labels = f.bytes;
      } else if (f.number == 2) {  // StreamAdapter.entries
        DecodedEntry de;
        for (const Field& ef : fields(f.bytes)) {
          if (ef.number == 1) {  // EntryAdapter.timestamp
            for (const Field& tf : fields(ef.bytes)) {
              if (tf.number == 1) de.seconds = static_cast<int64_t>(tf.varint);
              if (tf.number == 2) de.nanos = static_cast<int64_t>(tf.varint);
            }
          } else if (ef.number == 2) {  // EntryAdapter.line
            de.line = ef.bytes;
          } else {
            ADD_FAILURE() << "unexpected EntryAdapter field " << ef.number;
          }
        }
        ds.entries.push_back(de);
      } else {
        ADD_FAILURE() << "unexpected StreamAdapter field " << f.number;
      }
    }
    out.push_back(std::move(ds));
  }
  return out;
}

Event event(uint64_t id, int64_t t_ms, std::string rule, Severity sev, std::string line) {
  Event e;
  e.id = id;
  e.time_ms = e.first_ms = t_ms;
  e.source = "/var/log/train.log";
  e.rule = std::move(rule);
  e.severity = sev;
  e.lines = {std::move(line)};
  return e;
}

TEST(LokiFormat, PrometheusLabelString) {
  EXPECT_EQ(prometheus_labels({}), "{}");
  EXPECT_EQ(prometheus_labels({{"a", "b"}, {"job", "llmon"}}), "{a=\"b\", job=\"llmon\"}");
  EXPECT_EQ(prometheus_labels({{"p", "C:\\x \"q\"\n\x01"}}), "{p=\"C:\\\\x \\\"q\\\"\\n\\x01\"}");
  EXPECT_EQ(prometheus_labels({{"u", "caf\xC3\xA9"}}), "{u=\"caf\xC3\xA9\"}");
}

TEST(LokiFormat, LineCarriesEventLabelsAndRepeat) {
  Event e = event(1, 1000, "cuda_oom", Severity::kError, "CUDA out of memory");
  EXPECT_EQ(loki_line(e), "CUDA out of memory");
  e.labels = {{"size", "2.00 GiB"}, {"gpu", "3"}};
  e.repeat = 4;
  EXPECT_EQ(loki_line(e), "CUDA out of memory\tgpu=3 size=\"2.00 GiB\" repeat=4");
  e.labels.clear();
  e.lines = {"Traceback", "ValueError: \xFF"};
  EXPECT_EQ(loki_line(e), "Traceback\nValueError: \xEF\xBF\xBD\trepeat=4");
}

TEST(LokiFormat, StreamsByLowCardinalityLabels) {
  std::vector<Event> events = {event(3, 3000, "xid", Severity::kCritical, "Xid 79"),
                               event(1, 2000, "cuda_oom", Severity::kError, "oom b"),
                               event(2, 1000, "cuda_oom", Severity::kError, "oom a")};
  events[0].source = "kmsg";
  events[0].labels = {{"xid", "79"}};  // an event label: in the line, not the stream
  LokiLabelOptions o;
  o.host = "node1";
  o.static_labels = {{"cluster", "a"}, {"job", "training"}};
  auto streams = loki_streams(events, o);
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(prometheus_labels(streams[0].labels),
            "{cluster=\"a\", host=\"node1\", job=\"training\", rule=\"cuda_oom\", severity=\"error\", "
            "source=\"/var/log/train.log\"}");
  ASSERT_EQ(streams[0].entries.size(), 2u);
  EXPECT_EQ(streams[0].entries[0].time_ns, 1000'000'000);  // sorted by time
  EXPECT_EQ(streams[0].entries[0].line, "oom a");
  EXPECT_EQ(streams[1].labels.size(), 6u);
  EXPECT_EQ(streams[1].entries[0].line, "Xid 79\txid=79");
  // A static label with an empty value removes that label.
  o.static_labels = {{"source", ""}};
  streams = loki_streams(events, o);
  EXPECT_EQ(prometheus_labels(streams[1].labels),
            "{host=\"node1\", job=\"llmon\", rule=\"xid\", severity=\"critical\"}");
}

TEST(LokiFormat, ProtobufDecodesToTheStreams) {
  std::vector<Event> events = {event(1, 1796275003123, "cuda_oom", Severity::kError, "oom"),
                               event(2, 1796275004000, "cuda_oom", Severity::kError, std::string(300, 'x')),
                               event(3, 5, "xid", Severity::kCritical, "Xid")};
  LokiLabelOptions o;
  o.host = "h";
  std::string raw = loki_protobuf_body(loki_streams(events, o));
  auto decoded = decode_push_request(raw);
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_EQ(decoded[0].labels,
            "{host=\"h\", job=\"llmon\", rule=\"cuda_oom\", severity=\"error\", source=\"/var/log/train.log\"}");
  ASSERT_EQ(decoded[0].entries.size(), 2u);
  EXPECT_EQ(decoded[0].entries[0].seconds, 1796275003);
  EXPECT_EQ(decoded[0].entries[0].nanos, 123'000'000);
  EXPECT_EQ(decoded[0].entries[0].line, "oom");
  EXPECT_EQ(decoded[0].entries[1].seconds, 1796275004);
  EXPECT_EQ(decoded[0].entries[1].nanos, 0);                     // proto3 default: not written
  EXPECT_EQ(decoded[0].entries[1].line, std::string(300, 'x'));  // a two-byte length varint
  EXPECT_EQ(decoded[1].entries[0].seconds, 0);
  EXPECT_EQ(decoded[1].entries[0].nanos, 5'000'000);

  std::string compressed = snappy_block(raw);
  std::string back;
  ASSERT_TRUE(snappy::Uncompress(compressed.data(), compressed.size(), &back));
  EXPECT_EQ(back, raw);
}

TEST(LokiFormat, ProtobufBytesGolden) {
  LokiStream s{{{"a", "b"}}, {{1'500'000'000, "hi"}}};
  // streams(1) { labels(1) "{a=\"b\"}", entries(2) { timestamp(1) { seconds(1) 1, nanos(2) 500000000 },
  // line(2) "hi" } }
  std::string want = std::string("\x0a\x19", 2) + "\x0a\x07{a=\"b\"}" + "\x12\x0e" + "\x0a\x08" + "\x08\x01" +
                     "\x10\x80\xca\xb5\xee\x01" + "\x12\x02hi";
  EXPECT_EQ(loki_protobuf_body({s}), want);
}

TEST(LokiFormat, JsonBody) {
  std::vector<Event> events = {event(1, 1796275003123, "cuda_oom", Severity::kError, "oom \"q\" \xFF")};
  LokiLabelOptions o;
  o.host = "h";
  std::string body = loki_json_body(loki_streams(events, o));
  auto j = nlohmann::json::parse(body);
  ASSERT_EQ(j["streams"].size(), 1u);
  EXPECT_EQ(j["streams"][0]["stream"], nlohmann::json({{"job", "llmon"},
                                                       {"host", "h"},
                                                       {"rule", "cuda_oom"},
                                                       {"severity", "error"},
                                                       {"source", "/var/log/train.log"}}));
  EXPECT_EQ(j["streams"][0]["values"], nlohmann::json::parse(R"([["1796275003123000000","oom \"q\" \ufffd"]])"));
}

TEST(LokiFormat, ParseStaticLabels) {
  auto l = parse_loki_labels("cluster=a,env=prod,,dc=");
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(*l, (LokiLabels{{"cluster", "a"}, {"dc", ""}, {"env", "prod"}}));
  EXPECT_TRUE(parse_loki_labels("")->empty());
  EXPECT_FALSE(parse_loki_labels("noequals"));
  EXPECT_FALSE(parse_loki_labels("9x=1"));
  EXPECT_FALSE(parse_loki_labels("a-b=1"));
}

}  // namespace
}  // namespace llmon::logwatch
