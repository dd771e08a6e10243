// Dynamic template values (template_value.h).
#include "rules/template_value.h"

namespace llmon::rules::tmpl {

template <typename T>
Value Value::of(Kind kind, T&& payload) {
  Value v;
  v.kind_ = kind;
  v.v_ = std::forward<T>(payload);
  return v;
}

Value Value::boolean(bool b) {
  return of(Kind::kBool, b);
}

Value Value::integer(int64_t i) {
  return of(Kind::kInt, i);
}

Value Value::uint8(uint8_t b) {
  Value v = integer(b);
  v.unsigned_ = true;
  return v;
}

Value Value::number(double f) {
  return of(Kind::kFloat, f);
}

Value Value::complex(std::complex<double> c) {
  return of(Kind::kComplex, c);
}

Value Value::string(std::string s) {
  return of(Kind::kString, std::move(s));
}

Value Value::html(std::string s) {
  Value v = string(std::move(s));
  v.html_ = true;
  return v;
}

Value Value::string_map(const std::map<std::string, std::string>& m) {
  auto data = std::make_shared<MapData>();
  data->string_elems = true;
  for (const auto& [k, val] : m) data->entries.emplace(k, Value::string(val));
  return of(Kind::kMap, std::shared_ptr<const MapData>(std::move(data)));
}

Value Value::iface_map(std::map<std::string, Value> m) {
  auto data = std::make_shared<MapData>();
  data->string_elems = false;
  for (auto& [k, val] : m) data->entries.emplace(k, val.unwrapped().in_interface());
  return of(Kind::kMap, std::shared_ptr<const MapData>(std::move(data)));
}

Value Value::list(std::vector<Value> elems) {
  for (auto& e : elems) e = e.unwrapped().in_interface();
  return of(Kind::kList, std::make_shared<const std::vector<Value>>(std::move(elems)));
}

Value Value::structure(std::vector<std::pair<std::string, Value>> fields) {
  auto data = std::make_shared<StructData>();
  data->fields = std::move(fields);
  return of(Kind::kStruct, std::shared_ptr<const StructData>(std::move(data)));
}

Value Value::sample(SamplePtr s) {
  return of(Kind::kSample, std::move(s));
}

Value Value::query_result(std::shared_ptr<QueryResult> r) {
  return of(Kind::kQueryResult, std::move(r));
}

Value Value::time(Time t) {
  return of(Kind::kTime, std::make_shared<const Time>(t));
}

Value Value::nil_interface() {
  Value v;
  v.iface_ = true;
  return v;
}

Value Value::in_interface() const {
  Value v = *this;
  v.iface_ = true;
  return v;
}

Value Value::unwrapped() const {
  Value v = *this;
  v.iface_ = false;
  return v;
}

std::string Value::type_name() const {
  switch (kind_) {
    case Kind::kInvalid:
      return iface_ ? "interface {}" : "<nil>";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return unsigned_ ? "uint8" : "int";
    case Kind::kFloat:
      return "float64";
    case Kind::kComplex:
      return "complex128";
    case Kind::kString:
      return html_ ? "template.HTML" : "string";
    case Kind::kMap:
      return as_map().string_elems ? "map[string]string" : "map[string]interface {}";
    case Kind::kList:
      return "[]interface {}";
    case Kind::kStruct: {
      const auto& fields = as_struct().fields;
      if (fields.empty()) return "struct {}";
      std::string out = "struct { ";
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) out += "; ";
        out += fields[i].first + " " + fields[i].second.static_type_name();
      }
      return out + " }";
    }
    case Kind::kSample:
      return "*template.sample";
    case Kind::kQueryResult:
      return "template.queryResult";
    case Kind::kTime:
      return "*time.Time";
  }
  return "<nil>";
}

bool Value::is_nil_pointer() const {
  switch (kind_) {
    case Kind::kSample:
      return as_sample() == nullptr;
    case Kind::kQueryResult:
      return as_query_result() == nullptr;
    default:
      return false;
  }
}

int64_t Value::length() const {
  switch (kind_) {
    case Kind::kString:
      return static_cast<int64_t>(as_string().size());
    case Kind::kMap:
      return static_cast<int64_t>(as_map().entries.size());
    case Kind::kList:
      return static_cast<int64_t>(as_list().size());
    case Kind::kQueryResult:
      return as_query_result() ? static_cast<int64_t>(as_query_result()->size()) : 0;
    default:
      return -1;
  }
}

bool is_true(const Value& v) {
  switch (v.kind()) {
    case Kind::kInvalid:
      return false;
    case Kind::kBool:
      return v.as_bool();
    case Kind::kInt:
      return v.as_int() != 0;
    case Kind::kFloat:
      return v.as_float() != 0;
    case Kind::kComplex:
      return v.as_complex() != std::complex<double>(0, 0);
    case Kind::kString:
    case Kind::kMap:
    case Kind::kList:
    case Kind::kQueryResult:
      return v.length() > 0;
    case Kind::kStruct:
      return true;
    case Kind::kSample:
      return v.as_sample() != nullptr;
    case Kind::kTime:
      return v.as_time() != nullptr;
  }
  return false;
}

Value alert_template_data(const std::map<std::string, std::string>& labels,
                          const std::map<std::string, std::string>& external_labels, std::string external_url,
                          double value) {
  return Value::structure({{"Labels", Value::string_map(labels)},
                           {"ExternalLabels", Value::string_map(external_labels)},
                           {"ExternalURL", Value::string(std::move(external_url))},
                           {"Value", Value::number(value)}});
}

}  // namespace llmon::rules::tmpl
