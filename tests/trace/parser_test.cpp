// The streaming parser (src/trace/parser.h) on inline traces: fields, args,
// escapes, the unit of ts, robustness (truncation, bad syntax, huge
// integers, unescaped quotes) and the same events whatever the chunking.
#include "trace/parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llmon::trace {
namespace {

struct Copy {
  char ph;
  std::string name, cat, collective, arg_name, pid_text;
  int64_t ts, dur, pid, tid, stream, device, correlation, external_id, id;
  bool overflowed;
  uint64_t offset;
  bool operator==(const Copy&) const = default;
};

class Collect : public EventSink {
 public:
  void on_event(const RawEvent& e) override {
    events.push_back(Copy{e.ph, std::string(e.name), std::string(e.cat), std::string(e.collective),
                          std::string(e.arg_name), std::string(e.pid_text), e.ts, e.dur, e.pid, e.tid, e.stream,
                          e.device, e.correlation, e.external_id, e.id, e.overflowed, e.offset});
  }
  std::vector<Copy> events;
};

struct Result {
  Status status;
  TraceHeader header;
  std::vector<Copy> events;
};

Result parse(std::string_view text, size_t max_read = SIZE_MAX, size_t chunk = 4u << 20) {
  StringSource src(text, max_read);
  Collect sink;
  Result r;
  ParseOptions opts;
  opts.chunk_bytes = chunk;
  r.status = parse_trace(src, sink, r.header, nullptr, opts);
  r.events = sink.events;
  return r;
}

constexpr std::string_view kTrace = R"({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "numSms": 108}, {"id": 1, "name": "B"}],
  "distributedInfo": {"backend": "nccl", "rank": 5, "world_size": 16, "pg_config": [{"ranks": [0, 1]}]},
  "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 1712195495505582.988, "dur": 4.928,
     "args": {"External id": 112, "device": 0, "stream": 7, "correlation": 135071, "Collective name": "allreduce",
              "grid": [4, 106, 1], "Comms Id": 123456789012345678901234567890, "nested": {"a": [1, {"b": "}"}]}}},
    {"ph": "M", "name": "thread_name", "pid": "Spans", "tid": 3, "args": {"name": "stream \"7\" \u00e9\ud83d\ude00"}},
    {"ph": "f", "id": 11, "pid": 0, "tid": 7, "ts": 10, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "X", "name": "neg", "ts": -5, "dur": -1.5, "args": {"stream": 18446744073709551616}},
    {}
  ],
  "traceName": "t.json",
  "displayTimeUnit": "ns"
}
)";

TEST(TraceParser, FieldsArgsAndHeader) {
  Result r = parse(kTrace);
  ASSERT_TRUE(r.status) << r.status.message();
  EXPECT_EQ(r.header.display_time_unit, "ns");
  EXPECT_EQ(r.header.ns_per_unit(), 1);
  EXPECT_EQ(r.header.rank, 5);
  EXPECT_EQ(r.header.world_size, 16);
  EXPECT_EQ(r.header.backend, "nccl");
  EXPECT_EQ(r.header.schema_version, 1);
  EXPECT_EQ(r.header.trace_name, "t.json");
  EXPECT_EQ(r.header.device_names, (std::vector<std::string>{"NVIDIA A100-SXM4-80GB", "B"}));
  ASSERT_EQ(r.events.size(), 5u);
  const Copy& k = r.events[0];
  EXPECT_EQ(k.ph, 'X');
  EXPECT_EQ(k.cat, "kernel");
  EXPECT_EQ(k.name, "ncclKernel_AllReduce");
  EXPECT_EQ(k.ts, 1712195495505582988);  // µs with three decimals, exact in ns
  EXPECT_EQ(k.dur, 4928);
  EXPECT_EQ(k.stream, 7);
  EXPECT_EQ(k.device, 0);
  EXPECT_EQ(k.correlation, 135071);
  EXPECT_EQ(k.external_id, 112);
  EXPECT_EQ(k.collective, "allreduce");
  EXPECT_FALSE(k.overflowed);  // Comms Id is skipped, not read
  EXPECT_EQ(kTrace.substr(k.offset, 12), R"({"ph": "X", )");
  const Copy& m = r.events[1];
  EXPECT_EQ(m.ph, 'M');
  EXPECT_EQ(m.pid_text, "Spans");
  EXPECT_EQ(m.tid, 3);
  EXPECT_EQ(m.arg_name, "stream \"7\" \xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(r.events[2].id, 11);
  EXPECT_EQ(r.events[2].ts, 10000);
  const Copy& n = r.events[3];
  EXPECT_EQ(n.ts, -5000);
  EXPECT_EQ(n.dur, -1500);
  EXPECT_EQ(n.stream, kAbsent);
  EXPECT_TRUE(n.overflowed);
  EXPECT_EQ(r.events[4].ph, 0);
  EXPECT_EQ(r.events[4].ts, kAbsent);
}

TEST(TraceParser, SameEventsWhateverTheChunking) {
  Result whole = parse(kTrace);
  ASSERT_TRUE(whole.status);
  for (size_t step : {1, 2, 3, 7, 64}) {
    for (size_t chunk : {16, 100}) {
      Result r = parse(kTrace, step, chunk);
      ASSERT_TRUE(r.status) << step << "/" << chunk << ": " << r.status.message();
      EXPECT_EQ(r.events, whole.events) << step << "/" << chunk;
      EXPECT_EQ(r.header.device_names, whole.header.device_names);
      EXPECT_EQ(r.header.display_time_unit, "ns");
    }
  }
}

TEST(TraceParser, TruncatedInputNamesTheOffsets) {
  std::string t(kTrace.substr(0, kTrace.find("\"ph\": \"f\"") + 20));
  Result r = parse(t, 5, 32);
  ASSERT_FALSE(r.status);
  EXPECT_NE(r.status.message().find("truncated: the input ends inside an event that starts at byte"), std::string::npos)
      << r.status.message();
  EXPECT_EQ(r.status.message().rfind("byte " + std::to_string(t.size()) + ":", 0), 0u) << r.status.message();
  EXPECT_EQ(r.events.size(), 2u);  // what came before the cut was delivered
  EXPECT_FALSE(parse("").status);
  EXPECT_FALSE(parse(R"({"traceEvents": [{"ph": "X"})").status);
  EXPECT_FALSE(parse(R"({"traceEvents": [)").status);
}

TEST(TraceParser, SyntaxErrorsNameTheOffset) {
  Result r = parse(R"({"traceEvents": [{"ph": "X", "ts": 1 "dur": 2}]})");
  ASSERT_FALSE(r.status);
  EXPECT_EQ(r.status.message(), "byte 37: expected ',' or '}' in an event, found '\"'");
  Result bad_escape = parse(R"({"traceEvents": [{"name": "a\q"}]})");
  EXPECT_NE(bad_escape.status.message().find("invalid escape"), std::string::npos);
  EXPECT_FALSE(parse("nope").status);
  EXPECT_FALSE(parse(R"({"traceEvents": []} trailing)").status);
}

TEST(TraceParser, OldKinetoUnescapedQuotesAndInvalidUtf8) {
  Result r = parse("{\"traceEvents\": [{\"name\": \"say \"hi\" now\", \"cat\": \"a\xff\xfe\", \"ph\": \"i\"}]}");
  ASSERT_TRUE(r.status) << r.status.message();
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].name, "say \"hi\" now");
  EXPECT_EQ(r.events[0].cat, "a\xff\xfe");  // kept as bytes; printers replace them
  EXPECT_EQ(r.events[0].ph, 'i');
}

TEST(TraceParser, ArrayFormatMayLackItsClosingBracket) {
  Result r = parse(R"([{"ph": "B", "name": "a", "ts": 1}, {"ph": "E", "ts": 2},
)");
  ASSERT_TRUE(r.status) << r.status.message();
  EXPECT_TRUE(r.header.array_format);
  EXPECT_EQ(r.events.size(), 2u);
  EXPECT_TRUE(parse(R"([{"ph": "i"}])").status);
}

TEST(TraceParser, ExponentsAndWrongTypes) {
  Result r = parse(R"({"traceEvents": [{"ts": 1.5e3, "dur": "x", "pid": 1e400, "args": [1, 2]}]})");
  ASSERT_TRUE(r.status) << r.status.message();
  EXPECT_EQ(r.events[0].ts, 1500000);
  EXPECT_EQ(r.events[0].dur, kAbsent);
  EXPECT_EQ(r.events[0].pid, kAbsent);
  EXPECT_TRUE(r.events[0].overflowed);
}

// An input offered whole (ByteSource::view(), as a mapped file is): parsed in
// place, the same events and errors as read in chunks, released only behind
// the parser and in order.
class ViewSource : public ByteSource, public InputView {
 public:
  explicit ViewSource(std::string_view text) : bytes_(std::string(text) + std::string(kInputPadding, 'x')) {
    data = bytes_.data();
    size = text.size();
  }
  Expected<size_t> read(char*, size_t) override { return Status::error("read() called on a view"); }
  InputView* view() override { return this; }
  void release(size_t offset) override { released.push_back(offset); }
  std::vector<size_t> released;

 private:
  std::string bytes_;
};

TEST(TraceParser, InputViewGivesTheSameEventsAndErrors) {
  for (std::string_view text : {kTrace, kTrace.substr(0, 400), std::string_view("[{\"ph\": \"X\"}, {\"ts\": 1e3")}) {
    ViewSource src(text);
    Collect sink;
    TraceHeader header;
    Status st = parse_trace(src, sink, header);
    Result whole = parse(text, 3, 16);
    EXPECT_EQ(st.is_ok(), whole.status.is_ok()) << text;
    EXPECT_EQ(st.message(), whole.status.message());
    EXPECT_EQ(sink.events, whole.events);
    EXPECT_EQ(header.rank, whole.header.rank);
  }
  // A large input is released behind the parser, in order, at event starts' pages.
  std::string big = "[";
  while (big.size() < (40u << 20))
    big += R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"stream": 7}},)"
           "\n";
  big += "{}]";
  ViewSource src(big);
  Collect sink;
  TraceHeader header;
  ParseStats stats;
  ASSERT_TRUE(parse_trace(src, sink, header, &stats));
  EXPECT_EQ(stats.bytes, big.size());
  ASSERT_GE(src.released.size(), 2u);
  for (size_t i = 0; i < src.released.size(); ++i) {
    EXPECT_EQ(src.released[i] % 4096, 0u);
    EXPECT_LT(src.released[i], big.size());
    if (i) {
      EXPECT_GT(src.released[i], src.released[i - 1]);
    }
  }
}

}  // namespace
}  // namespace llmon::trace
