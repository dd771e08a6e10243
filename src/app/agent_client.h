// How client commands (`llmon query`, `alerts`, `events`, `health`,
// `diagnose`, `snapshot`, `trace capture`, `top --url`) reach an agent: its
// URL from --url (else the loopback address of --web.listen-address), and
// for an agent behind --web.config.file the auth and TLS of
// --http.config.file, promtool's flag and format (Prometheus's HTTP client
// block: basic_auth, authorization, bearer_token(_file), tls_config;
// scrape/http_client_config.h). The file and its secret files are read when
// called; errors start with "--http.config.file FILE: ".
#pragma once

#include <string>

#include "base/status.h"
#include "config/settings.h"
#include "net/api_client.h"
#include "net/http_request.h"

namespace llmon::app {

// Adds --http.config.file's settings to `o` (nothing when the flag is empty).
Status apply_http_config_file(const std::string& file, net::http::ClientOptions& o);

// --url (or the listen address) parsed, with --http.config.file applied.
Expected<net::HttpUrl> agent_url(const config::Settings& s);

}  // namespace llmon::app
