// The gRPC unary call over recorded frames (tests/fixtures/kube/*.h2: what
// gRPC's own server, python3-grpcio 1.51, sent for one List call; made with
// tests/tools/grpc_record.py) fed whole and byte by byte, and over frames
// built here for what that server did not send: CONTINUATION, padding,
// priority, GOAWAY, RST_STREAM, bad statuses.
#include "kube/grpc_call.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kube/hpack.h"
#include "kube/http2_frame.h"
#include "kube/pod_resources.h"
#include "support/test_paths.h"

namespace llmon::kube {
namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream f(testing::fixture("kube/" + name), std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

GrpcRequest list_request() {
  GrpcRequest r;
  r.path = std::string(kPodResourcesListPath);
  return r;
}

struct Frame {
  h2::FrameHeader h;
  std::string payload;
};

std::vector<Frame> frames_of(std::string_view bytes) {
  std::vector<Frame> out;
  while (bytes.size() >= h2::kFrameHeaderBytes) {
    h2::FrameHeader h = h2::parse_frame_header(bytes);
    out.push_back({h, std::string(bytes.substr(h2::kFrameHeaderBytes, h.length))});
    bytes.remove_prefix(h2::kFrameHeaderBytes + h.length);
  }
  return out;
}

TEST(GrpcCall, WritesPrefaceSettingsHeadersAndOneMessage) {
  GrpcRequest req = list_request();
  req.message = "\x0a\x01x";
  GrpcUnaryCall call(req, 1 << 20);
  std::string out = call.take_output();
  ASSERT_TRUE(out.starts_with(h2::kClientPreface));
  auto frames = frames_of(std::string_view(out).substr(h2::kClientPreface.size()));
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].h.type, h2::kSettings);
  EXPECT_EQ(frames[0].h.stream, 0u);
  EXPECT_EQ(frames[0].payload, std::string("\x00\x02\x00\x00\x00\x00\x00\x06\x00\x01\x00\x00", 12));
  EXPECT_EQ(frames[1].h.type, h2::kHeaders);
  EXPECT_EQ(frames[1].h.flags, h2::kEndHeaders);
  EXPECT_EQ(frames[1].h.stream, 1u);
  HpackDecoder d;
  std::vector<HeaderField> fields;
  ASSERT_TRUE(d.decode(frames[1].payload, fields));
  EXPECT_EQ(fields, (std::vector<HeaderField>{{":method", "POST"},
                                              {":scheme", "http"},
                                              {":path", "/v1.PodResourcesLister/List"},
                                              {":authority", "localhost"},
                                              {"content-type", "application/grpc"},
                                              {"te", "trailers"}}));
  EXPECT_EQ(frames[2].h.type, h2::kData);
  EXPECT_EQ(frames[2].h.flags, h2::kEndStream);
  EXPECT_EQ(frames[2].payload, std::string("\x00\x00\x00\x00\x03\x0a\x01x", 8));
  EXPECT_EQ(call.take_output(), "");
}

void expect_recorded_list(GrpcUnaryCall& call) {
  ASSERT_TRUE(call.done());
  auto msg = call.result();
  ASSERT_TRUE(msg) << msg.error();
  auto pods = parse_list_pod_resources(*msg);
  ASSERT_TRUE(pods) << pods.error();
  ASSERT_EQ(pods->size(), 3u);
  EXPECT_EQ((*pods)[1].name, "idle-notebook");
  // The server acknowledged our SETTINGS, we acknowledge its and answer its PING.
  auto replies = frames_of(call.take_output());
  int settings_acks = 0, ping_acks = 0, window_updates = 0;
  for (const auto& f : replies) {
    settings_acks += f.h.type == h2::kSettings && f.h.flags == h2::kAck;
    ping_acks += f.h.type == h2::kPing && f.h.flags == h2::kAck;
    window_updates += f.h.type == h2::kWindowUpdate;
  }
  EXPECT_EQ(settings_acks, 1);
  EXPECT_EQ(ping_acks, 1);
  EXPECT_GE(window_updates, 1);
  bool grpc_status = false;
  for (const auto& t : call.trailers()) grpc_status = grpc_status || (t.name == "grpc-status" && t.value == "0");
  EXPECT_TRUE(grpc_status);
}

TEST(GrpcCall, RecordedListAnswerWhole) {
  const std::string rec = read_fixture("list_ok.h2");
  ASSERT_FALSE(rec.empty());
  GrpcUnaryCall call(list_request(), 1 << 20);
  (void)call.take_output();
  ASSERT_TRUE(call.feed(rec));
  expect_recorded_list(call);
}

TEST(GrpcCall, RecordedListAnswerByteByByte) {
  const std::string rec = read_fixture("list_ok.h2");
  GrpcUnaryCall call(list_request(), 1 << 20);
  (void)call.take_output();
  for (size_t i = 0; i < rec.size() && !call.done(); ++i) ASSERT_TRUE(call.feed(rec.substr(i, 1))) << "byte " << i;
  expect_recorded_list(call);
}

TEST(GrpcCall, RecordedTrailersOnlyError) {
  GrpcUnaryCall call(list_request(), 1 << 20);
  Status st = call.feed(read_fixture("list_unavailable.h2"));
  EXPECT_EQ(st.message(), "grpc-status 14 (UNAVAILABLE): kubelet is going away: 100%");
  EXPECT_EQ(call.result().error(), st.message());
}

TEST(GrpcCall, ResponseTooLargeFails) {
  GrpcUnaryCall call(list_request(), 16);
  Status st = call.feed(read_fixture("list_ok.h2"));
  EXPECT_NE(st.message().find("response above 16 bytes"), std::string::npos) << st.message();
}

// Builds a server stream: SETTINGS, then the frames given.
struct Server {
  std::string bytes;
  Server() { h2::append_frame(bytes, h2::kSettings, 0, 0, {}); }
  Server& frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view p) {
    h2::append_frame(bytes, type, flags, stream, p);
    return *this;
  }
  static std::string block(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
    std::string b;
    for (auto [n, v] : fields) hpack_literal(b, n, v);
    return b;
  }
  static std::string message(std::string_view m) {
    std::string d(1, '\0');
    h2::put_u32(d, static_cast<uint32_t>(m.size()));
    return d + std::string(m);
  }
};

std::string run(const Server& s) {
  GrpcUnaryCall call(list_request(), 1 << 20);
  Status st = call.feed(s.bytes);
  if (!st) return st.message();
  if (!call.done()) return "not done: " + call.end_of_input().message();
  auto r = call.result();
  return r ? "message:" + *r : r.error();
}

const std::string kOkHeaders = Server::block({{":status", "200"}, {"content-type", "application/grpc+proto"}});
const std::string kOkTrailers = Server::block({{"grpc-status", "0"}});

TEST(GrpcCall, ContinuationPaddingAndPriority) {
  Server s;
  // HEADERS with PRIORITY and padding, its block split over a CONTINUATION.
  std::string h("\x03", 1);                     // pad length 3
  h += std::string("\x00\x00\x00\x00\x10", 5);  // priority: dependency 0, weight 16
  h += kOkHeaders.substr(0, 5) + "pad";
  s.frame(h2::kHeaders, h2::kPadded | h2::kPriorityFlag, 1, h)
      .frame(h2::kContinuation, h2::kEndHeaders, 1, kOkHeaders.substr(5));
  std::string d("\x02", 1);
  d += Server::message("hello") + "pp";
  s.frame(h2::kData, h2::kPadded, 1, d).frame(h2::kHeaders, h2::kEndHeaders | h2::kEndStream, 1, kOkTrailers);
  EXPECT_EQ(run(s), "message:hello");
}

TEST(GrpcCall, MessageOverSeveralDataFrames) {
  Server s;
  std::string m = Server::message("0123456789");
  s.frame(h2::kHeaders, h2::kEndHeaders, 1, kOkHeaders).frame(h2::kData, 0, 1, m.substr(0, 3));
  s.frame(h2::kData, 0, 1, m.substr(3)).frame(h2::kData, 0, 1, "");
  s.frame(h2::kHeaders, h2::kEndHeaders | h2::kEndStream, 1, kOkTrailers);
  EXPECT_EQ(run(s), "message:0123456789");
}

TEST(GrpcCall, ProtocolErrors) {
  {
    GrpcUnaryCall call(list_request(), 1 << 20);
    EXPECT_EQ(call.feed("HTTP/1.1 400 Bad Request\r\n\r\n").message(),
              "http2: the server's first frame is not SETTINGS (not an HTTP/2 server?) (frame at byte 0 of the "
              "server's stream)");
  }
  EXPECT_EQ(run(Server().frame(h2::kGoAway, 0, 0,
                               std::string("\x00\x00\x00\x00\x00\x00\x00\x0b"
                                           "calm",
                                           12))),
            "http2: GOAWAY before the call's stream, error code 11: calm (frame at byte 9 of the server's stream)");
  EXPECT_EQ(run(Server().frame(h2::kRstStream, 0, 1, std::string("\x00\x00\x00\x08", 4))),
            "http2: the server reset the stream, error code 8 (frame at byte 9 of the server's stream)");
  EXPECT_EQ(run(Server().frame(h2::kHeaders, h2::kEndHeaders, 1,
                               Server::block({{":status", "404"}, {"content-type", "text/plain"}}))),
            "http2: HTTP status 404 (frame at byte 9 of the server's stream)");
  EXPECT_EQ(run(Server().frame(h2::kHeaders, h2::kEndHeaders, 1, Server::block({{":status", "200"}}))),
            "http2: content-type missing, not application/grpc (frame at byte 9 of the server's stream)");
  EXPECT_EQ(run(Server().frame(h2::kData, 0, 1, "x")),
            "http2: DATA before the response headers (frame at byte 9 of the server's stream)");
  EXPECT_EQ(run(Server()
                    .frame(h2::kHeaders, h2::kEndHeaders, 1, kOkHeaders)
                    .frame(h2::kData, h2::kEndStream, 1, Server::message("x"))),
            "http2: the stream ended without trailers (no grpc-status) (frame at byte 68 of the server's stream)");
  EXPECT_EQ(run(Server()
                    .frame(h2::kHeaders, h2::kEndHeaders, 1, kOkHeaders)
                    .frame(h2::kHeaders, h2::kEndHeaders | h2::kEndStream, 1, Server::block({{"x", "y"}}))),
            "http2: no grpc-status in the trailers (frame at byte 68 of the server's stream)");
  EXPECT_EQ(run(Server().frame(h2::kHeaders, 0, 1, kOkHeaders.substr(0, 4)).frame(h2::kData, 0, 1, "x")),
            "http2: frame type 0 inside a header block (CONTINUATION expected) (frame at byte 22 of the server's "
            "stream)");
  EXPECT_EQ(run(Server()
                    .frame(h2::kHeaders, h2::kEndHeaders, 1, kOkHeaders)
                    .frame(h2::kData, 0, 1, Server::message("a") + Server::message("b"))
                    .frame(h2::kHeaders, h2::kEndHeaders | h2::kEndStream, 1, kOkTrailers)),
            "http2: response message of 7 bytes, its prefix says 1 (a unary call has one message) (frame at byte 89 "
            "of the server's stream)");
  EXPECT_EQ(run(Server().frame(h2::kPushPromise, h2::kEndHeaders, 1, std::string(4, '\0'))),
            "http2: PUSH_PROMISE although SETTINGS_ENABLE_PUSH is 0 (frame at byte 9 of the server's stream)");
  EXPECT_EQ(run(Server().frame(h2::kHeaders, h2::kEndHeaders, 1, std::string(1, '\x80'))),
            "http2: hpack: index 0 at byte 0 (frame at byte 9 of the server's stream)");
  {
    Server s;
    std::string big(3, '\0');
    big[0] = '\x01';  // 65536-byte frame announced
    s.bytes += big + std::string("\x00\x00\x00\x00\x00\x01", 6);
    EXPECT_EQ(run(s),
              "http2: frame of 65536 bytes above SETTINGS_MAX_FRAME_SIZE 16384 (frame at byte 9 of the "
              "server's stream)");
  }
  EXPECT_EQ(run(Server()),
            "not done: http2: the server closed the connection before the call ended (frame at byte 9 "
            "of the server's stream)");
}

TEST(GrpcCall, GrpcErrorWithPercentEncodedMessage) {
  Server s;
  s.frame(h2::kHeaders, h2::kEndHeaders | h2::kEndStream, 1,
          Server::block({{":status", "200"},
                         {"content-type", "application/grpc"},
                         {"grpc-status", "12"},
                         {"grpc-message", "unknown method List for service v1.PodResourcesLister %E2%9C%93 %zz"}}));
  EXPECT_EQ(run(s),
            "grpc-status 12 (UNIMPLEMENTED): unknown method List for service v1.PodResourcesLister \xe2\x9c\x93 %zz");
}

TEST(GrpcCall, AnswersPingsAndIgnoresUnknownFrames) {
  GrpcUnaryCall call(list_request(), 1 << 20);
  (void)call.take_output();
  Server s;
  s.frame(h2::kPing, 0, 0, "12345678")
      .frame(0xfa, 0, 0, "ext")
      .frame(h2::kWindowUpdate, 0, 0, std::string("\x00\x00\x01\x00", 4));
  ASSERT_TRUE(call.feed(s.bytes));
  auto out = frames_of(call.take_output());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].h.type, h2::kSettings);
  EXPECT_EQ(out[1].h.type, h2::kPing);
  EXPECT_EQ(out[1].h.flags, h2::kAck);
  EXPECT_EQ(out[1].payload, "12345678");
  EXPECT_FALSE(call.done());
}

}  // namespace
}  // namespace llmon::kube
