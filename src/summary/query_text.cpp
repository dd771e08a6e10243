// Text layout of query answers; see api_text.h.
#include "summary/query_text.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "api/json.h"

namespace llmon::summary {
namespace {

using nlohmann::json;

// `name{a="1", b="2"}` with Prometheus's label value escapes; `{}` when empty.
Expected<std::string> series_name(const json& metric) {
  if (!metric.is_object()) return Status::error("\"metric\" is not an object");
  std::string name, labels;
  for (const auto& [k, v] : metric.items()) {
    if (!v.is_string()) return Status::error("label \"" + k + "\" is not a string");
    const std::string& value = v.get_ref<const std::string&>();
    if (k == "__name__") {
      name = value;
      continue;
    }
    if (!labels.empty()) labels += ", ";
    labels += k + "=\"";
    for (char c : value) {
      if (c == '\\')
        labels += "\\\\";
      else if (c == '"')
        labels += "\\\"";
      else if (c == '\n')
        labels += "\\n";
      else
        labels += c;
    }
    labels += '"';
  }
  if (labels.empty() && !name.empty()) return name;
  return name + "{" + labels + "}";
}

// A [t, "v"] pair: t re-written as Prometheus writes it (milliseconds as three
// digits), v as received.
Expected<std::pair<std::string, std::string>> point(const json& p) {
  if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_string())
    return Status::error("a point is not [time, \"value\"]");
  std::string t;
  api::append_sample_timestamp(t, static_cast<int64_t>(std::llround(p[0].get<double>() * 1000)));
  return std::make_pair(t, p[1].get<std::string>());
}

Expected<std::vector<std::string>> strings(const json& env, const char* key) {
  std::vector<std::string> out;
  auto it = env.find(key);
  if (it == env.end()) return out;
  if (!it->is_array()) return Status::error(std::string("\"") + key + "\" is not an array");
  for (const auto& w : *it) {
    if (!w.is_string()) return Status::error(std::string("\"") + key + "\" holds a non-string");
    out.push_back(w.get<std::string>());
  }
  return out;
}

Status render_result(const json& data, std::string& out) {
  if (!data.is_object() || !data.contains("resultType") || !data.contains("result"))
    return Status::error("\"data\" has no resultType/result");
  const json& type = data["resultType"];
  const json& result = data["result"];
  if (type == "scalar" || type == "string") {
    if (!result.is_array() || result.size() != 2 || !result[1].is_string())
      return Status::error("a scalar/string result is not [time, \"value\"]");
    out += result[1].get<std::string>() + "\n";
    return Status::ok();
  }
  if (!result.is_array()) return Status::error("\"result\" is not an array");
  for (const auto& s : result) {
    if (!s.is_object() || !s.contains("metric")) return Status::error("a series has no \"metric\"");
    auto name = series_name(s["metric"]);
    if (!name) return name.status();
    if (type == "vector") {
      if (!s.contains("value")) return Status::error("a vector sample has no \"value\"");
      auto p = point(s["value"]);
      if (!p) return p.status();
      out += *name + " " + p->second + "\n";
    } else if (type == "matrix") {
      if (!s.contains("values") || !s["values"].is_array()) return Status::error("a matrix series has no \"values\"");
      out += *name + "\n";
      for (const auto& v : s["values"]) {
        auto p = point(v);
        if (!p) return p.status();
        out += "  " + p->first + " " + p->second + "\n";
      }
    } else {
      return Status::error("unknown resultType " + type.dump());
    }
  }
  return Status::ok();
}

}  // namespace

Expected<RenderedAnswer> render_answer(std::string_view text) {
  json env = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (env.is_discarded()) return Status::error("the answer is not JSON");
  if (!env.is_object() || !env.contains("status") || !env["status"].is_string())
    return Status::error("the answer has no \"status\": not a Prometheus API response");
  RenderedAnswer a;
  auto w = strings(env, "warnings");
  if (!w) return w.status();
  a.warnings = std::move(*w);
  auto i = strings(env, "infos");
  if (!i) return i.status();
  a.infos = std::move(*i);
  const std::string& status = env["status"].get_ref<const std::string&>();
  if (status == "error") {
    if (env.contains("errorType") && env["errorType"].is_string()) a.error_type = env["errorType"].get<std::string>();
    if (env.contains("error") && env["error"].is_string()) a.error = env["error"].get<std::string>();
    return a;
  }
  if (status != "success") return Status::error("unknown status \"" + status + "\"");
  if (!env.contains("data")) return Status::error("a success answer without \"data\"");
  a.success = true;
  if (Status s = render_result(env["data"], a.text); !s) return s;
  return a;
}

}  // namespace llmon::summary
