// `llmon check web-config FILE...` and `llmon check http-config FILE...`:
// validate the server's --web.config.file (exporter-toolkit format, the
// certificates loaded as the agent would) and the clients' --http.config.file
// (Prometheus's HTTP client block, its secret files read) before deploying
// them. Output as `promtool check web-config`: "FILE SUCCESS" on stdout,
// "FILE FAILED: why" on stderr; exit 1 when any file failed, 2 on usage.
#include <cstdio>
#include <string>
#include <vector>

#include "app/agent_client.h"
#include "app/commands.h"
#include "websec/web_security.h"

namespace llmon::app {

int run_check(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  if (args.size() < 2 || (args[0] != "web-config" && args[0] != "http-config")) {
    std::fprintf(err,
                 "usage: llmon check web-config FILE...   (--web.config.file: TLS, basic auth; docs/security.md)\n"
                 "       llmon check http-config FILE...  (--http.config.file of the client commands)\n");
    return 2;
  }
  int rc = 0;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& f = args[i];
    Status st;
    if (args[0] == "web-config") {
      st = websec::check_web_config_file(f);
    } else {
      net::http::ClientOptions o;
      st = apply_http_config_file(f, o);
    }
    if (st) {
      std::fprintf(out, "%s SUCCESS\n", f.c_str());
    } else {
      std::fprintf(err, "%s FAILED: %s\n", f.c_str(), st.message().c_str());
      rc = 1;
    }
  }
  return rc;
}

}  // namespace llmon::app
