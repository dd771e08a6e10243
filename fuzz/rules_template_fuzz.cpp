// Fuzz target: the alert template engine (rules/template.h). Every input is
// parsed as an alert template and, when it parses, executed against fixed
// alert data with a query callback that answers from a small table. A parse
// or execution error must carry a message that starts as Go's does; an
// execution must stay within its output budget. Nothing may crash, hang or
// recurse without bound (range runs over the given data only; nesting,
// steps and output are limited).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rules/template.h"

using namespace llmon;
using namespace llmon::rules;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto t = parse_alert_template("Fuzz", in);
  if (!t) {
    if (t.error().rfind("error parsing template __alert_Fuzz: template: __alert_Fuzz:", 0) != 0) std::abort();
    return 0;
  }
  const tmpl::Value alert =
      tmpl::alert_template_data({{"__name__", "up"}, {"instance", "host-1.example.com:9100"}, {"job", "node"}},
                                {{"cluster", "c1"}}, "http://prom.example.com/", 0.25);
  TemplateEnv env;
  env.max_output_bytes = 64 * 1024;
  env.max_steps = 20000;
  env.external_url = "http://prom.example.com/prefix";
  env.query = [](std::string_view q) -> Expected<std::vector<tmpl::Sample>> {
    if (q == "empty") return std::vector<tmpl::Sample>{};
    if (q.size() > 64) return Status::error("query too long");
    return std::vector<tmpl::Sample>{{{{"__name__", "up"}, {"instance", "b"}}, 1}, {{{"instance", "a"}}, 2}};
  };
  for (int i = 0; i < 2; ++i) {  // parse once, execute many times
    auto out = expand(*t, alert, env);
    if (out) {
      if (out->size() > env.max_output_bytes) std::abort();
    } else if (out.error().rfind("error executing template __alert_Fuzz: template: ", 0) != 0) {
      std::abort();
    }
  }
  return 0;
}
