// --web.config.file served: the TLS transport (OpenSSL server side) and the
// request guard (basic auth, roles, configured headers) built from one
// exporter-toolkit file (web_config.h). The file and the certificate files
// it names are stat()ed on each new connection / request and reloaded when
// any changed, so replaced certificates are served without a restart (the
// toolkit rereads the file on every request likewise); a reload that fails
// keeps the previous state and is logged. Whether TLS is on is fixed at
// start. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/status.h"
#include "http/server.h"
#include "http/transport.h"

namespace llmon::websec {

class WebSecurity;

// Reads the file and checks it whole (certificates loaded, as `promtool
// check web-config` does): the error names FILE:LINE:COL or the file.
Status check_web_config_file(const std::string& path);

// Builds both halves from `path`; error when the file does not check.
Expected<std::shared_ptr<WebSecurity>> open_web_security(const std::string& path, std::vector<std::string> admin_users,
                                                         base::Logger& log);

class WebSecurity : public http::RequestGuard, public std::enable_shared_from_this<WebSecurity> {
 public:
  struct State;
  WebSecurity(std::string path, std::vector<std::string> admin_users, base::Logger& log);
  ~WebSecurity() override;

  Status load();  // (re)builds the state from the files
  bool tls() const;
  std::shared_ptr<http::Transport> transport();  // null without tls_server_config

  bool admit(const http::Request& req, http::Response& res) override;
  void finish(http::Response& res) override;

  std::shared_ptr<const State> current();  // reloads when a file changed

 private:
  std::string path_;
  std::vector<std::string> admin_users_;
  base::Logger& log_;
  std::mutex mu_;
  std::shared_ptr<const State> state_;
};

}  // namespace llmon::websec
