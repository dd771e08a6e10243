// The dynamic values Go's text/template sees when Prometheus expands an alert
// template (template.go, rules/alerting.go): strings, float64, int, bool,
// maps, slices, the alert data struct, *template.sample and
// template.queryResult. A Value carries enough of its Go type (name, kind,
// whether it sits in an interface{} slot) for the engine to reproduce Go's
// behaviour and error wording. Not a general reflection emulation.
// Values are immutable except QueryResult, which sortByLabel sorts in place
// (as Go's sort.Stable on the shared slice does). Not thread-safe to share a
// QueryResult between concurrent executions.
#pragma once

#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace llmon::rules::tmpl {

// template.sample: {Labels map[string]string; Value float64}.
struct Sample {
  std::map<std::string, std::string> labels;
  double value = 0;
};
using SamplePtr = std::shared_ptr<Sample>;   // *template.sample; nullptr is nil
using QueryResult = std::vector<SamplePtr>;  // template.queryResult

// A time.Time in UTC: seconds since the epoch and nanoseconds [0, 1e9).
struct Time {
  int64_t sec = 0;
  int32_t nsec = 0;
};

// Go reflect kinds the engine distinguishes.
enum class Kind : uint8_t {
  kInvalid,      // no value (reflect.Value{}); "<no value>" when printed
  kBool,         // bool
  kInt,          // int (signed) or uint8 (from indexing a string)
  kFloat,        // float64
  kComplex,      // complex128 (template literals like 1i)
  kString,       // string or template.HTML
  kMap,          // map[string]string or map[string]interface {}
  kList,         // []interface {}
  kStruct,       // a struct with exported fields (the alert data)
  kSample,       // *template.sample
  kQueryResult,  // template.queryResult
  kTime,         // *time.Time
};

class Value;
struct MapData {
  bool string_elems = true;  // map[string]string, else map[string]interface {}
  std::map<std::string, Value> entries;
};
struct StructData {
  std::vector<std::pair<std::string, Value>> fields;  // declaration order
};

class Value {
 public:
  Value() = default;  // invalid
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value uint8(uint8_t b);
  static Value number(double f);
  static Value complex(std::complex<double> c);
  static Value string(std::string s);
  static Value html(std::string s);                                      // html/template.HTML (safeHtml)
  static Value string_map(const std::map<std::string, std::string>& m);  // map[string]string
  static Value iface_map(std::map<std::string, Value> m);                // map[string]interface {}
  static Value list(std::vector<Value> elems);                           // []interface {}
  static Value structure(std::vector<std::pair<std::string, Value>> fields);
  static Value sample(SamplePtr s);                           // nullptr gives a nil *template.sample
  static Value query_result(std::shared_ptr<QueryResult> r);  // nullptr gives a nil queryResult
  static Value time(Time t);
  // A nil interface{} (a missing key of a map[string]interface {}).
  static Value nil_interface();

  Kind kind() const { return kind_; }
  bool valid() const { return kind_ != Kind::kInvalid; }
  // In an interface{} slot (element of a map[string]interface {} or
  // []interface {}); a nil interface has kind kInvalid and iface() true.
  bool iface() const { return iface_; }
  Value in_interface() const;  // the same value, boxed in an interface{}
  Value unwrapped() const;     // the concrete value (a nil interface becomes invalid)
  bool is_nil_interface() const { return iface_ && kind_ == Kind::kInvalid; }

  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const { return std::get<int64_t>(v_); }
  bool is_unsigned() const { return unsigned_; }  // uint8
  double as_float() const { return std::get<double>(v_); }
  std::complex<double> as_complex() const { return std::get<std::complex<double>>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  bool is_html() const { return html_; }
  const MapData& as_map() const { return *std::get<std::shared_ptr<const MapData>>(v_); }
  const std::vector<Value>& as_list() const { return *std::get<std::shared_ptr<const std::vector<Value>>>(v_); }
  const StructData& as_struct() const { return *std::get<std::shared_ptr<const StructData>>(v_); }
  const SamplePtr& as_sample() const { return std::get<SamplePtr>(v_); }
  const std::shared_ptr<QueryResult>& as_query_result() const { return std::get<std::shared_ptr<QueryResult>>(v_); }
  const std::shared_ptr<const Time>& as_time() const { return std::get<std::shared_ptr<const Time>>(v_); }

  // Go's reflect.Type.String() of the dynamic value: "float64",
  // "map[string]string", "*template.sample", "struct { Labels ... }";
  // "interface {}" for a nil interface, "<nil>" for an invalid value.
  std::string type_name() const;
  // The static type seen by reflection: "interface {}" when boxed.
  std::string static_type_name() const { return iface_ ? "interface {}" : type_name(); }
  // A nil pointer, map or slice (kSample, kQueryResult, kMap, kList).
  bool is_nil_pointer() const;
  // Go's Len for strings, maps, slices; -1 otherwise.
  int64_t length() const;

 private:
  // A value of `kind` holding `payload` (the factories above).
  template <typename T>
  static Value of(Kind kind, T&& payload);

  Kind kind_ = Kind::kInvalid;
  bool iface_ = false;
  bool unsigned_ = false;
  bool html_ = false;
  std::variant<std::monostate, bool, int64_t, double, std::complex<double>, std::string, std::shared_ptr<const MapData>,
               std::shared_ptr<const std::vector<Value>>, std::shared_ptr<const StructData>, SamplePtr,
               std::shared_ptr<QueryResult>, std::shared_ptr<const Time>>
      v_;
};

// text/template's isTrue: the zero value of a type is false; ok is false
// when the value has no truth (never for the kinds above).
bool is_true(const Value& v);

// The alert template data (template.AlertTemplateData): a struct with
// Labels, ExternalLabels (map[string]string), ExternalURL (string), Value
// (float64).
Value alert_template_data(const std::map<std::string, std::string>& labels,
                          const std::map<std::string, std::string>& external_labels, std::string external_url,
                          double value);

}  // namespace llmon::rules::tmpl
