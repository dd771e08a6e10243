// Request serialisation (RFC 9112 section 3); see http_request.h.
#include "net/http_request.h"

#include "net/base64.h"

namespace llmon::net::http {

TlsOptions ClientOptions::tls_options() const {
  TlsOptions t;
  t.ca_file = tls_ca_file;
  t.server_name = tls_server_name;
  t.cert_file = tls_cert_file;
  t.key_file = tls_key_file;
  t.insecure_skip_verify = tls_insecure_skip_verify;
  return t;
}

std::string serialize_request(std::string_view method, const Url& url, std::string_view content_type,
                              std::string_view body, const ClientOptions& opts) {
  // A header value may not end a line early (request splitting).
  auto clean = [](std::string_view v) {
    std::string s(v);
    for (char& c : s)
      if (c == '\r' || c == '\n') c = ' ';
    return s;
  };
  std::string r;
  r.reserve(256 + body.size());
  r.append(method).append(" ").append(url.target).append(" HTTP/1.1\r\n");
  r.append("Host: ").append(url.host_header()).append("\r\n");
  if (!opts.user_agent.empty()) r.append("User-Agent: ").append(clean(opts.user_agent)).append("\r\n");
  if (!opts.basic_auth_username.empty() || !opts.basic_auth_password.empty()) {
    r.append("Authorization: Basic ")
        .append(base64_encode(opts.basic_auth_username + ":" + opts.basic_auth_password))
        .append("\r\n");
  } else if (url.has_userinfo) {
    r.append("Authorization: Basic ").append(base64_encode(url.username + ":" + url.password)).append("\r\n");
  } else if (!opts.bearer_token.empty()) {
    r.append("Authorization: Bearer ").append(clean(opts.bearer_token)).append("\r\n");
  }
  const bool has_body = !body.empty() || method == "POST" || method == "PUT" || method == "PATCH";
  if (has_body) {
    if (!content_type.empty()) r.append("Content-Type: ").append(clean(content_type)).append("\r\n");
    r.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  for (const auto& [k, v] : opts.headers) r.append(clean(k)).append(": ").append(clean(v)).append("\r\n");
  r.append("Connection: close\r\n\r\n");
  r.append(body);
  return r;
}

}  // namespace llmon::net::http
