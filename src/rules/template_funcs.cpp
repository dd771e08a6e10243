// text/template's builtin functions (template_funcs.h), following funcs.go
// of Go 1.19, and the function table.
#include "rules/template_funcs.h"

#include <unordered_map>

#include "rules/go_fmt.h"
#include "go/strconv.h"
#include "go/strings.h"
#include "rules/template_internal.h"

namespace llmon::rules::tmpl {

namespace {

// A panic inside a Go function, recovered by text/template's safeCall.
constexpr const char* kZeroValueType = "reflect: call of reflect.Value.Type on zero Value";

// reflect's indirect(): through interfaces and non-nil pointers. A nil
// pointer stays (is_nil true); a non-nil *sample becomes its struct.
struct Indirect {
  Value v;
  bool is_nil = false;
};
Indirect indirect(const Value& in) {
  Value v = in.unwrapped();
  if (in.is_nil_interface()) return {in, true};
  if (v.kind() == Kind::kSample) {
    if (!v.as_sample()) return {v, true};
    return {Value::structure(
                {{"Labels", Value::string_map(v.as_sample()->labels)}, {"Value", Value::number(v.as_sample()->value)}}),
            false};
  }
  if (v.kind() == Kind::kTime && !v.as_time()) return {v, true};
  return {v, false};
}

// The type a dereferenced value prints as ("template.sample", "time.Time").
std::string deref_type_name(const Value& original, const Value& v) {
  const Value o = original.unwrapped();
  if (o.kind() == Kind::kSample) return "template.sample";
  if (o.kind() == Kind::kTime) return "time.Time";
  return v.type_name();
}

enum class BasicKind { kInvalid, kBool, kComplex, kInt, kFloat, kString, kUint };

BasicKind basic_kind(const Value& v) {
  switch (v.kind()) {
    case Kind::kBool:
      return BasicKind::kBool;
    case Kind::kInt:
      return v.is_unsigned() ? BasicKind::kUint : BasicKind::kInt;
    case Kind::kFloat:
      return BasicKind::kFloat;
    case Kind::kComplex:
      return BasicKind::kComplex;
    case Kind::kString:
      return BasicKind::kString;
    default:
      return BasicKind::kInvalid;
  }
}

const Status kBadComparisonType = Status::error("invalid type for comparison");
const Status kBadComparison = Status::error("incompatible types for comparison");

bool is_nil(const Value& v) {
  return !v.valid() || v.is_nil_pointer();
}

// reflect.Kind equality for the non-basic kinds eq compares.
bool same_kind(const Value& a, const Value& b) {
  auto k = [](const Value& v) {
    if (v.kind() == Kind::kQueryResult) return Kind::kList;  // both slices
    if (v.kind() == Kind::kTime) return Kind::kSample;       // both pointers
    return v.kind();
  };
  return k(a) == k(b);
}

Expected<bool> eq_values(const Value& in1, const std::vector<Value>& rest) {
  const Value arg1 = in1.unwrapped();
  if (rest.empty()) return Status::error("missing argument for comparison");
  const BasicKind k1 = basic_kind(arg1);
  for (const auto& in2 : rest) {
    const Value arg = in2.unwrapped();
    const BasicKind k2 = basic_kind(arg);
    bool truth = false;
    if (k1 != k2) {
      if (k1 == BasicKind::kInt && k2 == BasicKind::kUint) {
        truth = arg1.as_int() >= 0 && arg1.as_int() == arg.as_int();
      } else if (k1 == BasicKind::kUint && k2 == BasicKind::kInt) {
        truth = arg.as_int() >= 0 && arg1.as_int() == arg.as_int();
      } else if (arg1.valid() && arg.valid()) {
        return kBadComparison;
      }
    } else {
      switch (k1) {
        case BasicKind::kBool:
          truth = arg1.as_bool() == arg.as_bool();
          break;
        case BasicKind::kComplex:
          truth = arg1.as_complex() == arg.as_complex();
          break;
        case BasicKind::kFloat:
          truth = arg1.as_float() == arg.as_float();
          break;
        case BasicKind::kInt:
        case BasicKind::kUint:
          truth = arg1.as_int() == arg.as_int();
          break;
        case BasicKind::kString:
          truth = arg1.as_string() == arg.as_string();
          break;
        case BasicKind::kInvalid: {
          if (!same_kind(arg1, arg) && arg1.valid() && arg.valid()) {
            return Status::error("non-comparable types " + gofmt::sprintf("%s", {arg1}) + ": " + arg1.type_name() + ", " +
                                 arg.type_name() + ": " + gofmt::sprintf("%v", {arg}));
          }
          if (is_nil(arg1) || is_nil(arg)) {
            truth = is_nil(arg) == is_nil(arg1);
          } else if (arg.kind() == Kind::kSample || arg.kind() == Kind::kTime) {
            truth = arg.kind() == Kind::kSample ? arg1.as_sample() == arg.as_sample() : arg1.as_time() == arg.as_time();
          } else {
            // Maps, slices and structs holding them are not comparable.
            return Status::error("non-comparable type " + gofmt::sprintf("%s", {arg}) + ": " + arg.type_name());
          }
          break;
        }
      }
    }
    if (truth) return true;
  }
  return false;
}

Expected<bool> lt_values(const Value& in1, const Value& in2) {
  const Value a = in1.unwrapped(), b = in2.unwrapped();
  const BasicKind k1 = basic_kind(a);
  if (k1 == BasicKind::kInvalid) return kBadComparisonType;
  const BasicKind k2 = basic_kind(b);
  if (k2 == BasicKind::kInvalid) return kBadComparisonType;
  if (k1 != k2) {
    if (k1 == BasicKind::kInt && k2 == BasicKind::kUint) return a.as_int() < 0 || a.as_int() < b.as_int();
    if (k1 == BasicKind::kUint && k2 == BasicKind::kInt) return b.as_int() >= 0 && a.as_int() < b.as_int();
    return kBadComparison;
  }
  switch (k1) {
    case BasicKind::kBool:
    case BasicKind::kComplex:
      return kBadComparisonType;
    case BasicKind::kFloat:
      return a.as_float() < b.as_float();
    case BasicKind::kInt:
    case BasicKind::kUint:
      return a.as_int() < b.as_int();
    case BasicKind::kString:
      return a.as_string() < b.as_string();
    default:
      return kBadComparisonType;
  }
}

Expected<Value> bool_result(const Expected<bool>& b) {
  if (!b) return b.status();
  return Value::boolean(*b);
}

Expected<Value> fn_eq(CallEnv&, std::vector<Value>& a) {
  return bool_result(eq_values(a[0], std::vector<Value>(a.begin() + 1, a.end())));
}
Expected<Value> fn_ne(CallEnv&, std::vector<Value>& a) {
  auto e = eq_values(a[0], {a[1]});
  if (!e) return e.status();
  return Value::boolean(!*e);
}
Expected<Value> fn_lt(CallEnv&, std::vector<Value>& a) {
  return bool_result(lt_values(a[0], a[1]));
}
Expected<Value> fn_le(CallEnv&, std::vector<Value>& a) {
  auto l = lt_values(a[0], a[1]);
  if (!l || *l) return bool_result(l);
  return bool_result(eq_values(a[0], {a[1]}));
}
Expected<Value> fn_gt(CallEnv& env, std::vector<Value>& a) {
  auto le = fn_le(env, a);
  if (!le) return le;
  return Value::boolean(!le->as_bool());
}
Expected<Value> fn_ge(CallEnv&, std::vector<Value>& a) {
  auto l = lt_values(a[0], a[1]);
  if (!l) return l.status();
  return Value::boolean(!*l);
}

Expected<Value> fn_first_arg(CallEnv&, std::vector<Value>& a) {  // and/or are special-cased by the executor
  return a.empty() ? Value() : a[0];
}

Expected<Value> fn_not(CallEnv&, std::vector<Value>& a) {
  return Value::boolean(!is_true(a[0].unwrapped()));
}

Expected<Value> fn_len(CallEnv&, std::vector<Value>& a) {
  const Indirect ind = indirect(a[0]);
  if (ind.is_nil) return Status::error("len of nil pointer");
  const Value& v = ind.v;
  switch (v.kind()) {
    case Kind::kString:
    case Kind::kMap:
    case Kind::kList:
    case Kind::kQueryResult:
      return Value::integer(v.length());
    case Kind::kInvalid:
      return Status::error(kZeroValueType);
    default:
      return Status::error("len of type " + deref_type_name(a[0], v));
  }
}

// text/template's indexArg.
Expected<int64_t> index_arg(const Value& index, int64_t cap) {
  int64_t x = 0;
  if (index.kind() == Kind::kInt && !index.iface()) {
    x = index.as_int();
  } else if (!index.valid() && !index.iface()) {
    return Status::error("cannot index slice/array with nil");
  } else {
    return Status::error("cannot index slice/array with type " + index.static_type_name());
  }
  if (x < 0 || x > cap) return Status::error("index out of range: " + std::to_string(x));
  return x;
}

Expected<Value> fn_index(CallEnv&, std::vector<Value>& a) {
  Value item = a[0].unwrapped();
  if (!item.valid()) return Status::error("index of untyped nil");
  for (size_t k = 1; k < a.size(); ++k) {
    const Value index = a[k].unwrapped();
    const Value original = item;
    const Indirect ind = indirect(item);
    if (ind.is_nil) return Status::error("index of nil pointer");
    item = ind.v;
    switch (item.kind()) {
      case Kind::kString:
      case Kind::kList:
      case Kind::kQueryResult: {
        auto x = index_arg(index, item.length());
        if (!x) return x.status();
        if (*x == item.length())
          return Status::error(item.kind() == Kind::kString ? "reflect: string index out of range"
                                                            : "reflect: slice index out of range");
        if (item.kind() == Kind::kString) {
          item = Value::uint8(static_cast<uint8_t>(item.as_string()[static_cast<size_t>(*x)]));
        } else if (item.kind() == Kind::kList) {
          item = item.as_list()[static_cast<size_t>(*x)];
        } else {
          item = Value::sample((*item.as_query_result())[static_cast<size_t>(*x)]);
        }
        break;
      }
      case Kind::kMap: {
        const MapData& m = item.as_map();
        if (!index.valid()) return Status::error("value is nil; should be of type string");
        if (index.kind() != Kind::kString || index.is_html())
          return Status::error("value has type " + index.type_name() + "; should be string");
        auto it = m.entries.find(index.as_string());
        if (it != m.entries.end()) {
          item = it->second;
        } else {
          item = m.string_elems ? Value::string("") : Value::nil_interface();
        }
        break;
      }
      default:
        return Status::error("can't index item of type " + deref_type_name(original, item));
    }
  }
  return item;
}

Expected<Value> fn_slice(CallEnv&, std::vector<Value>& a) {
  Value item = a[0].unwrapped();
  if (!item.valid()) return Status::error("slice of untyped nil");
  const size_t nidx = a.size() - 1;
  if (nidx > 3) return Status::error("too many slice indexes: " + std::to_string(nidx));
  int64_t cap = 0;
  switch (item.kind()) {
    case Kind::kString:
      if (nidx == 3) return Status::error("cannot 3-index slice a string");
      cap = item.length();
      break;
    case Kind::kList:
    case Kind::kQueryResult:
      cap = item.length();
      break;
    default:
      return Status::error("can't slice item of type " + item.type_name());
  }
  int64_t idx[3] = {0, item.length(), 0};
  for (size_t i = 0; i < nidx; ++i) {
    auto x = index_arg(a[i + 1], cap);
    if (!x) return x.status();
    idx[i] = *x;
  }
  if (idx[0] > idx[1])
    return Status::error("invalid slice index: " + std::to_string(idx[0]) + " > " + std::to_string(idx[1]));
  if (nidx == 3 && idx[1] > idx[2])
    return Status::error("invalid slice index: " + std::to_string(idx[1]) + " > " + std::to_string(idx[2]));
  const auto from = static_cast<size_t>(idx[0]), to = static_cast<size_t>(idx[1]);
  if (item.kind() == Kind::kString) return Value::string(item.as_string().substr(from, to - from));
  if (item.kind() == Kind::kList) {
    const auto& l = item.as_list();
    return Value::list(
        std::vector<Value>(l.begin() + static_cast<ptrdiff_t>(from), l.begin() + static_cast<ptrdiff_t>(to)));
  }
  const auto& r = item.as_query_result();
  if (!r) return Value::query_result(nullptr);
  return Value::query_result(std::make_shared<QueryResult>(r->begin() + static_cast<ptrdiff_t>(from),
                                                           r->begin() + static_cast<ptrdiff_t>(to)));
}

Expected<Value> fn_call(CallEnv&, std::vector<Value>& a) {
  const Value fn = a[0].unwrapped();
  if (!fn.valid()) return Status::error("call of nil");
  return Status::error("non-function of type " + fn.type_name());
}

Expected<Value> fn_print(CallEnv&, std::vector<Value>& a) {
  return Value::string(gofmt::sprint(a));
}
Expected<Value> fn_printf(CallEnv&, std::vector<Value>& a) {
  return Value::string(gofmt::sprintf(a[0].as_string(), std::vector<Value>(a.begin() + 1, a.end())));
}
Expected<Value> fn_println(CallEnv&, std::vector<Value>& a) {
  return Value::string(gofmt::sprintln(a));
}

// text/template's evalArgs: fmt.Sprint of the printable values, or the
// one string argument itself.
std::string eval_args(const std::vector<Value>& args) {
  if (args.size() == 1 && args[0].kind() == Kind::kString && !args[0].is_html()) return args[0].as_string();
  std::vector<Value> printable;
  for (const auto& v : args) {
    if (!v.valid()) {
      printable.push_back(Value::string("<no value>"));
    } else if (v.kind() == Kind::kSample && v.as_sample()) {
      printable.push_back(indirect(v).v);
    } else {
      printable.push_back(v);
    }
  }
  return gofmt::sprint(printable);
}

Expected<Value> fn_html(CallEnv&, std::vector<Value>& a) {
  return Value::string(go::html_escape(eval_args(a)));
}
Expected<Value> fn_js(CallEnv&, std::vector<Value>& a) {
  return Value::string(go::js_escape(eval_args(a)));
}
Expected<Value> fn_urlquery(CallEnv&, std::vector<Value>& a) {
  return Value::string(go::query_escape(eval_args(a)));
}

const std::unordered_map<std::string_view, Function>& table() {
  // Built once, immutable afterwards.
  static const std::unordered_map<std::string_view, Function> t = [] {
    std::unordered_map<std::string_view, Function> m;
    for (auto& f : builtin_functions()) m.emplace(f.name, f);
    for (auto& f : prometheus_functions()) m.emplace(f.name, f);
    return m;
  }();
  return t;
}

}  // namespace

std::vector<Function> builtin_functions() {
  using A = ArgType;
  return {
      {"and", {A::kValue, A::kValue}, true, true, fn_first_arg},
      {"or", {A::kValue, A::kValue}, true, true, fn_first_arg},
      {"not", {A::kValue}, false, true, fn_not},
      {"len", {A::kValue}, false, true, fn_len},
      {"index", {A::kValue, A::kValue}, true, true, fn_index},
      {"slice", {A::kValue, A::kValue}, true, true, fn_slice},
      {"call", {A::kValue, A::kValue}, true, true, fn_call},
      {"print", {A::kAny}, true, true, fn_print},
      {"printf", {A::kString, A::kAny}, true, true, fn_printf},
      {"println", {A::kAny}, true, true, fn_println},
      {"html", {A::kAny}, true, true, fn_html},
      {"js", {A::kAny}, true, true, fn_js},
      {"urlquery", {A::kAny}, true, true, fn_urlquery},
      {"eq", {A::kValue, A::kValue}, true, true, fn_eq},
      {"ne", {A::kValue, A::kValue}, false, true, fn_ne},
      {"lt", {A::kValue, A::kValue}, false, true, fn_lt},
      {"le", {A::kValue, A::kValue}, false, true, fn_le},
      {"gt", {A::kValue, A::kValue}, false, true, fn_gt},
      {"ge", {A::kValue, A::kValue}, false, true, fn_ge},
  };
}

std::string_view arg_type_name(ArgType t) {
  switch (t) {
    case ArgType::kValue:
      return "reflect.Value";
    case ArgType::kAny:
      return "interface {}";
    case ArgType::kString:
      return "string";
    case ArgType::kFloat64:
      return "float64";
    case ArgType::kQueryResult:
      return "template.queryResult";
    case ArgType::kSample:
      return "*template.sample";
  }
  return "";
}

const Function* find_function(std::string_view name) {
  const auto& t = table();
  auto it = t.find(name);
  return it == t.end() ? nullptr : &it->second;
}

Expected<double> convert_to_float(const Value& in) {
  const Value v = in.unwrapped();
  switch (v.kind()) {
    case Kind::kFloat:
      return v.as_float();
    case Kind::kString:
      if (!v.is_html()) return go::parse_float(v.as_string());
      break;
    case Kind::kInt:
      if (!v.is_unsigned()) return static_cast<double>(v.as_int());
      break;
    default:
      break;
  }
  return Status::error("can't convert " + v.type_name() + " to float");
}

}  // namespace llmon::rules::tmpl
