// One gRPC unary call over HTTP/2 with prior knowledge (gRPC's
// PROTOCOL-HTTP2.md; docs/kubernetes.md "The gRPC client"), as a pure state
// machine: it writes the client's bytes (connection preface, SETTINGS,
// HEADERS with plain HPACK literals, one DATA frame holding the 5-byte gRPC
// prefix and the message) and reads the server's frames in any split:
// SETTINGS (acknowledged), PING (answered), WINDOW_UPDATE, GOAWAY,
// RST_STREAM, HEADERS + CONTINUATION (decoded with HPACK, dynamic table and
// Huffman included), padded DATA (a WINDOW_UPDATE gives back each frame's
// bytes) and the trailers with grpc-status and grpc-message. No I/O, no
// clock: unix_grpc.h drives it over a socket. One call per object; not
// thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/hpack.h"

namespace llmon::kube {

struct GrpcRequest {
  std::string path;                     // "/v1.PodResourcesLister/List"
  std::string authority = "localhost";  // what gRPC's Go client sends for unix sockets
  std::string message;                  // the serialised request message
};

class GrpcUnaryCall {
 public:
  // `max_response_bytes` bounds the response message (and so what DATA frames
  // may bring): beyond it the call fails.
  GrpcUnaryCall(const GrpcRequest& request, size_t max_response_bytes);

  // Bytes to write now; empties the buffer. The first call returns the whole
  // request; later ones acknowledgements and window updates.
  std::string take_output();

  // Feeds bytes read from the server. An error is a protocol violation (the
  // call then is over, as done() says).
  Status feed(std::string_view bytes);

  // The server closed the connection: an error unless done().
  Status end_of_input();

  // The call is over: the trailers came, or an error.
  bool done() const { return done_; }

  // After done(): the response message, or the error (a protocol error, or
  // a grpc-status other than 0 with its grpc-message).
  Expected<std::string> result() const;

  // The response's headers and trailers, as decoded (for tests).
  const std::vector<HeaderField>& headers() const { return headers_; }
  const std::vector<HeaderField>& trailers() const { return trailers_; }

 private:
  Status frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload);
  Status header_block_done(bool end_stream);
  Status finish();
  Status fail(std::string why);

  size_t max_response_bytes_;
  std::string out_;
  std::string in_;       // bytes not yet parsed into frames
  size_t consumed_ = 0;  // bytes of the server's stream parsed so far (for errors)
  HpackDecoder hpack_;
  std::string block_;  // a header block being joined from CONTINUATIONs
  bool in_block_ = false;
  bool block_end_stream_ = false;
  std::vector<HeaderField> headers_, trailers_;
  bool have_headers_ = false;
  std::string data_;  // the DATA bytes of stream 1: gRPC length-prefixed messages
  bool done_ = false;
  Status error_;
  std::string message_;
};

// The gRPC status code names (grpc/doc/statuscodes.md), "UNKNOWN" past 16.
std::string_view grpc_status_name(int code);

// grpc-message is percent-encoded (PROTOCOL-HTTP2.md): undoes it.
std::string grpc_percent_decode(std::string_view s);

}  // namespace llmon::kube
