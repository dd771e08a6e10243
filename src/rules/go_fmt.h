// Go's fmt.Sprint, Sprintln and Sprintf over template values, as
// text/template's print/printf/println and its action printing use them:
// verbs v s d f F e E g G x X o O b c q U t T %, flags + - # space 0, width
// and precision (also * and [n] argument indexes), and Go's error forms
// (%!d(string=x), %!s(MISSING), %!(EXTRA int=1), %!(NOVERB)). Maps print
// sorted by key (map[a:1 b:2]); structs as {v1 v2}; *template.sample at top
// level as &{map[...] 1}. Known difference: a pointer nested in a slice or
// map prints as &{...} where Go prints its (random) address.
// Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/template_value.h"

namespace llmon::rules::gofmt {

// fmt.Sprint(args...): spaces between operands when neither is a string.
std::string sprint(const std::vector<tmpl::Value>& args);
// fmt.Sprintln(args...): always spaces, then a newline.
std::string sprintln(const std::vector<tmpl::Value>& args);
// fmt.Sprintf(format, args...).
std::string sprintf(std::string_view format, const std::vector<tmpl::Value>& args);

}  // namespace llmon::rules::gofmt
