// Fuzz target: app/top_vector_answer.h, the query API's vector answers as
// `llmon top --url` reads them. Any bytes: an error or a snapshot whose
// families are consistent (every series has one value per label name,
// order is a permutation sorted by name); never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "app/top_vector_answer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto snap = llmon::app::parse_vector_answer(in, 7);
  if (!snap) return 0;
  const auto& s = **snap;
  if (s.order.size() != s.families.size()) std::abort();
  for (const auto& f : s.families)
    for (const auto& series : f.series)
      if (series.label_values.size() != f.label_names.size()) std::abort();
  for (size_t i = 1; i < s.order.size(); ++i)
    if (s.families[s.order[i - 1]].name > s.families[s.order[i]].name) std::abort();
  return 0;
}
