// A tiny blocking HTTP/1.1 client on raw POSIX sockets, for tests only: it is
// independent of the server's code so server tests cannot share its bugs.
// One request per connection (Connection: close); every wait has a deadline;
// errors come back in HttpResult::error, never as exceptions.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace llmon::testing {

struct HttpResult {
  int status = 0;            // 0: no parsable response (see error)
  std::string status_line;   // "HTTP/1.1 200 OK"
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;          // raw bytes (still gzipped if the server gzipped)
  std::string error;         // transport problem, empty when all went well
  bool write_failed = false;  // the server closed before taking the whole request

  // Value of the first header with that lower-case name, or "".
  std::string header(const std::string& lower_name) const;
  bool has_header(const std::string& lower_name) const;
};

// Sends `raw` (a complete request, bytes as given) to 127.0.0.1:port and reads
// the response until the server closes or Content-Length is satisfied.
// head_response: the request was HEAD, so the response has no body.
HttpResult http_raw(int port, const std::string& raw, bool head_response = false, int timeout_ms = 5000);

// GET (or another body-less method) with extra "Name: value" header lines.
HttpResult http_request(int port, const std::string& method, const std::string& target,
                        const std::vector<std::string>& header_lines = {}, int timeout_ms = 5000);

// A TCP port on 127.0.0.1 that was free when asked (bind to port 0).
int free_tcp_port();

// Inflates one gzip member (RFC 1952) into out; false when it is not valid gzip.
bool gunzip(const std::string& in, std::string& out);

}  // namespace llmon::testing
