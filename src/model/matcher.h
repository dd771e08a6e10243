// A label matcher of a selector (PromQL, the store's select(), the API's
// match[] parameters). Plain data: matching is the query layer's.
#pragma once

#include <string>

namespace llmon::model {

// The regex kinds are only data here: they are
// compiled and matched by the query layer (RE2, fully anchored, as PromQL).
struct Matcher {
  enum class Type { kEq, kNeq, kRe, kNre };
  Type type = Type::kEq;
  std::string name;
  std::string value;
};

}  // namespace llmon::model
