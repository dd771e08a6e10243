#include "app/agent_client.h"

#include <filesystem>

#include "base/file_reader.h"
#include "config/flag_names.h"
#include "scrape/http_client_config.h"

namespace llmon::app {

Status apply_http_config_file(const std::string& file, net::http::ClientOptions& o) {
  if (file.empty()) return Status::ok();
  auto fail = [&](const std::string& why) { return Status::error("--http.config.file " + file + ": " + why); };
  auto text = base::read_file(file);
  if (!text) return fail(text.error());
  auto c = scrape::parse_http_client_config(*text, file);
  if (!c) return Status::error("--http.config.file " + c.error());  // the parser names FILE:LINE:COL
  // Relative paths are relative to the file's directory, as Prometheus reads them.
  const std::filesystem::path dir = std::filesystem::path(file).parent_path();
  auto rel = [&](std::string& p) {
    if (!p.empty() && p[0] != '/' && !dir.empty()) p = (dir / p).string();
  };
  rel(c->tls.ca_file);
  rel(c->tls.cert_file);
  rel(c->tls.key_file);
  if (c->basic_auth) rel(c->basic_auth->password_file);
  if (c->authorization) rel(c->authorization->credentials_file);
  if (Status st = scrape::apply_http_client_config(*c, o); !st) return fail(st.message());
  return Status::ok();
}

Expected<net::HttpUrl> agent_url(const config::Settings& s) {
  std::string text = s.get(config::flag::kUrl);
  if (text.empty()) text = net::url_for_listen_address(s.get(config::flag::kWebListenAddress));
  auto url = net::parse_http_url(text);
  if (!url) return url.status();
  if (Status st = apply_http_config_file(s.get(config::flag::kHttpConfigFile), url->client); !st) return st;
  return url;
}

}  // namespace llmon::app
