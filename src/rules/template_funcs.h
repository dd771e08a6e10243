// The functions an alert template can call: Go's text/template builtins
// (and, or, not, len, index, slice, call, print, printf, println, html, js,
// urlquery, eq, ne, lt, le, gt, ge) and Prometheus's template functions
// (template/template.go: query, first, label, value, strvalue, args,
// reReplaceAll, safeHtml, match, title, toUpper, toLower, graphLink,
// tableLink, sortByLabel, stripPort, stripDomain, humanize*, toTime,
// pathPrefix, externalURL, parseDuration). Each has its Go signature, which
// decides how the executor converts arguments and words type errors; an
// error result becomes "error calling NAME: <message>". The table is
// immutable; calls are thread-safe given a per-execution CallEnv.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "rules/template.h"
#include "rules/template_value.h"

namespace re2 {
class RE2;
}

namespace llmon::rules::tmpl {

// Go parameter types.
enum class ArgType : uint8_t {
  kValue,        // reflect.Value (the builtins)
  kAny,          // interface{}
  kString,       // string
  kFloat64,      // float64
  kQueryResult,  // template.queryResult
  kSample,       // *template.sample
};
std::string_view arg_type_name(ArgType t);

// Per-execution state a function may use.
struct CallEnv {
  const TemplateEnv* env = nullptr;
  // Compiled regular expressions by pattern (null: the compile error).
  std::unordered_map<std::string, std::shared_ptr<const re2::RE2>> regex_cache;
};

struct Function {
  std::string_view name;
  std::vector<ArgType> params;  // when variadic, the last is the element type
  bool variadic = false;
  bool builtin = false;  // a text/template builtin (and/or short-circuit)
  Expected<Value> (*call)(CallEnv& env, std::vector<Value>& args) = nullptr;
};

// nullptr when no function has that name.
const Function* find_function(std::string_view name);

// Prometheus's convertToFloat: float64, string (strconv.ParseFloat), int.
Expected<double> convert_to_float(const Value& v);

}  // namespace llmon::rules::tmpl
