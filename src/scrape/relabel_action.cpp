// Relabel action names (relabel.h).
#include <array>
#include <utility>

#include "base/strings.h"
#include "go/strconv.h"
#include "scrape/relabel.h"

namespace llmon::scrape {
namespace {

constexpr std::array<std::pair<std::string_view, RelabelAction>, 11> kActions{{
    {"replace", RelabelAction::kReplace},
    {"keep", RelabelAction::kKeep},
    {"drop", RelabelAction::kDrop},
    {"keepequal", RelabelAction::kKeepEqual},
    {"dropequal", RelabelAction::kDropEqual},
    {"hashmod", RelabelAction::kHashMod},
    {"labelmap", RelabelAction::kLabelMap},
    {"labeldrop", RelabelAction::kLabelDrop},
    {"labelkeep", RelabelAction::kLabelKeep},
    {"lowercase", RelabelAction::kLowercase},
    {"uppercase", RelabelAction::kUppercase},
}};

}  // namespace

std::optional<RelabelAction> parse_relabel_action(std::string_view s) {
  for (const auto& [name, action] : kActions)
    if (base::iequals(s, name)) return action;
  return std::nullopt;
}

std::string unknown_relabel_action_message(std::string_view s) {
  return "unknown relabel action " + go::quote(s);
}

std::string_view relabel_action_name(RelabelAction a) {
  for (const auto& [name, action] : kActions)
    if (action == a) return name;
  return "replace";
}

}  // namespace llmon::scrape
