// Fuzz target: relabelling (scrape/relabel.h). Lines of the input: regex,
// replacement, target_label, then label values for a, b and __name__. A
// replace rule and a labelmap rule are compiled from them (errors are fine)
// and applied; the result must be sorted by name with no empty value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "scrape/relabel.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmon::scrape;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  while (parts.size() < 6) {
    const size_t nl = text.find('\n');
    parts.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  parts.resize(6);
  std::vector<llmon::model::Label> labels{{"a", parts[3]}, {"b", parts[4]}, {"__name__", parts[5]}};
  for (RelabelAction action : {RelabelAction::kReplace, RelabelAction::kLabelMap, RelabelAction::kKeep,
                               RelabelAction::kHashMod, RelabelAction::kLowercase}) {
    RelabelConfig c;
    c.action = action;
    c.regex = parts[0];
    c.set_regex = true;
    c.replacement = action == RelabelAction::kLowercase ? "$1" : parts[1];
    c.target_label = parts[2];
    c.modulus = 7;
    if (action != RelabelAction::kLabelMap) {
      c.source_labels = {"a", "b"};
      c.set_source_labels = true;
    }
    auto r = Relabeler::compile({c});
    if (!r) continue;
    std::vector<llmon::model::Label> ls = labels;
    if (!r->process(ls)) continue;
    for (size_t i = 0; i < ls.size(); ++i) {
      if (ls[i].value.empty()) std::abort();
      if (i > 0 && !(ls[i - 1].name < ls[i].name)) std::abort();
    }
  }
  return 0;
}
