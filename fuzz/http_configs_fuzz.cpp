// Fuzz target: the two HTTP security configs a user writes by hand, the
// server's --web.config.file (websec/web_config.h, exporter-toolkit format)
// and the clients' --http.config.file (scrape/http_client_config.h,
// Prometheus's HTTP client block). Any bytes: a config or an error that
// names the file; never a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scrape/http_client_config.h"
#include "websec/web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto w = llmon::websec::parse_web_config(in, "web.yml"); !w && w.error().find("web.yml") == std::string::npos)
    __builtin_trap();
  if (auto c = llmon::scrape::parse_http_client_config(in, "client.yml");
      !c && c.error().find("client.yml") == std::string::npos)
    __builtin_trap();
  return 0;
}
