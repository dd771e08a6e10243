// Fuzz target: the PromQL parser and printer (promql/parser.h). Every input
// is parsed as a query and as a selector; a parse error must carry a message
// and a position inside the input. When a query parses, its canonical text
// must parse again, print identically (format is a fixed point), and
// pretty() must parse back to the same canonical text; any mismatch aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "promql/parser.h"

using namespace llmon;

namespace {

void check_error(const promql::ParseResult& r, std::string_view in) {
  if (r.error.message.empty() || r.error.pos < 0 || r.error.pos > static_cast<int>(in.size())) std::abort();
  if (r.error.to_string(in).find(": parse error: ") == std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  promql::ParseResult r = promql::parse(in);
  if (!r.ok()) {
    check_error(r, in);
  } else {
    std::string once = promql::format(*r.expr);
    promql::ParseResult again = promql::parse(once);
    if (!again.ok() || promql::format(*again.expr) != once) std::abort();
    promql::ParseResult from_pretty = promql::parse(promql::pretty(*r.expr));
    if (!from_pretty.ok() || promql::format(*from_pretty.expr) != once) std::abort();
    if (promql::format(*promql::clone(*r.expr)) != once) std::abort();
    promql::type_of(*r.expr);
  }
  promql::ParseResult sel = promql::parse_selector(in);
  if (sel.ok()) {
    if (!std::holds_alternative<promql::VectorSelector>(sel.expr->node)) std::abort();
  } else {
    check_error(sel, in);
  }
  return 0;
}
