#include "logwatch/event_json.h"

#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "go/json.h"

namespace llmon::logwatch {

namespace {

std::string text(std::string_view bytes) {
  return base::to_valid_utf8(bytes);
}

}  // namespace

std::string encode_event(const Event& e, bool with_rfc3339) {
  nlohmann::json j;
  j["id"] = e.id;
  j["time_ms"] = e.time_ms;
  j["first_ms"] = e.first_ms;
  if (with_rfc3339) {
    j["time"] = go::json::strfmt_millis(e.time_ms);
    j["first"] = go::json::strfmt_millis(e.first_ms);
  }
  j["source"] = text(e.source);
  j["rule"] = e.rule;
  j["severity"] = severity_name(e.severity);
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [k, v] : e.labels) labels[k] = text(v);
  j["labels"] = std::move(labels);
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& l : e.lines) lines.push_back(text(l));
  j["lines"] = std::move(lines);
  j["repeat"] = e.repeat;
  return j.dump();
}

Expected<Event> decode_event(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::error("not a JSON object");
  Event e;
  auto need = [&](const char* key, nlohmann::json::value_t type) -> Status {
    auto it = j.find(key);
    const bool number = type == nlohmann::json::value_t::number_integer;
    if (it == j.end() || (number ? !it->is_number_integer() : it->type() != type))
      return Status::error(std::string("field \"") + key + "\" missing or of the wrong type");
    return Status::ok();
  };
  using VT = nlohmann::json::value_t;
  for (auto [key, type] : {std::pair{"id", VT::number_integer},
                           {"time_ms", VT::number_integer},
                           {"first_ms", VT::number_integer},
                           {"source", VT::string},
                           {"rule", VT::string},
                           {"severity", VT::string},
                           {"labels", VT::object},
                           {"lines", VT::array},
                           {"repeat", VT::number_integer}}) {
    Status s = need(key, type);
    if (!s) return s;
  }
  e.id = j["id"].get<uint64_t>();
  e.time_ms = j["time_ms"].get<int64_t>();
  e.first_ms = j["first_ms"].get<int64_t>();
  e.rule = j["rule"].get<std::string>();
  e.repeat = j["repeat"].get<uint64_t>();
  if (!parse_severity(j["severity"].get<std::string>(), e.severity))
    return Status::error("field \"severity\": unknown");
  e.source = j["source"].get<std::string>();
  for (const auto& [k, v] : j["labels"].items()) {
    if (!v.is_string()) return Status::error("field \"labels\": values must be strings");
    e.labels[k] = v.get<std::string>();
  }
  for (const auto& l : j["lines"]) {
    if (!l.is_string()) return Status::error("field \"lines\": entries must be strings");
    e.lines.push_back(l.get<std::string>());
  }
  return e;
}

}  // namespace llmon::logwatch
