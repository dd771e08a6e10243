// API v2 silence JSON (see silence_json.h).
#include "notify/silences/silence_json.h"

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/civil_time.h"

namespace llmon::notify {

namespace {

using nlohmann::json;

// Invalid UTF-8 (from a command line) becomes U+FFFD instead of throwing.
std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json matcher_json(const Matcher& m) {
  return json{{"name", m.name()}, {"value", m.value()}, {"isRegex", m.is_regex()}, {"isEqual", m.is_equal()}};
}

json silence_json(const Silence& s) {
  json ms = json::array();
  for (const auto& m : s.matchers) ms.push_back(matcher_json(m));
  return json{{"id", s.id},
              {"updatedAt", silence_time_string(s.updated_at_ms)},
              {"comment", s.comment},
              {"createdBy", s.created_by},
              {"endsAt", silence_time_string(s.ends_at_ms)},
              {"matchers", std::move(ms)},
              {"startsAt", silence_time_string(s.starts_at_ms)}};
}

Expected<std::string> get_string(const json& o, const char* key, bool required) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) {
    if (required) return Status::error(std::string(key) + ": required");
    return std::string();
  }
  if (!it->is_string()) return Status::error(std::string(key) + ": expected a string");
  return it->get<std::string>();
}

Expected<int64_t> get_time(const json& o, const char* key, bool required) {
  auto s = get_string(o, key, required);
  if (!s) return s.status();
  if (s->empty()) {
    if (required) return Status::error(std::string(key) + ": required");
    return int64_t{0};
  }
  auto t = parse_silence_time(*s);
  if (!t) return Status::error(std::string(key) + ": " + t.error());
  return *t;
}

Expected<Silence> silence_from_json(const json& o, bool postable) {
  if (!o.is_object()) return Status::error("expected a JSON object");
  Silence s;
  auto id = get_string(o, "id", false);
  if (!id) return id.status();
  s.id = *id;
  auto created_by = get_string(o, "createdBy", true);
  if (!created_by) return created_by.status();
  s.created_by = *created_by;
  auto comment = get_string(o, "comment", true);
  if (!comment) return comment.status();
  s.comment = *comment;
  auto starts = get_time(o, "startsAt", true);
  if (!starts) return starts.status();
  s.starts_at_ms = *starts;
  auto ends = get_time(o, "endsAt", true);
  if (!ends) return ends.status();
  s.ends_at_ms = *ends;
  if (!postable) {
    auto upd = get_time(o, "updatedAt", false);
    if (!upd) return upd.status();
    s.updated_at_ms = *upd;
  }
  auto mit = o.find("matchers");
  if (mit == o.end() || mit->is_null()) return Status::error("matchers: required");
  if (!mit->is_array()) return Status::error("matchers: expected an array");
  if (mit->empty()) return Status::error("matchers: at least one matcher required");
  for (size_t i = 0; i < mit->size(); ++i) {
    const json& mj = (*mit)[i];
    const std::string where = "matchers[" + std::to_string(i) + "]";
    if (!mj.is_object()) return Status::error(where + ": expected an object");
    auto name = get_string(mj, "name", true);
    if (!name) return name.status().with_context(where);
    auto value = get_string(mj, "value", true);
    if (!value) return value.status().with_context(where);
    bool is_regex = false, is_equal = true;
    for (auto [key, field] : {std::pair{"isRegex", &is_regex}, std::pair{"isEqual", &is_equal}}) {
      auto it = mj.find(key);
      if (it == mj.end() || it->is_null()) {
        if (std::string_view(key) == "isRegex") return Status::error(where + ".isRegex: required");
        continue;
      }
      if (!it->is_boolean()) return Status::error(where + "." + key + ": expected true or false");
      *field = it->get<bool>();
    }
    MatchType t = is_regex ? (is_equal ? MatchType::kRegexp : MatchType::kNotRegexp)
                           : (is_equal ? MatchType::kEqual : MatchType::kNotEqual);
    auto m = Matcher::make(t, *name, *value);
    // Alertmanager rejects these when validating the silence (400), not the schema.
    if (!m) return Status::error("silence invalid: invalid label matcher " + std::to_string(i) + ": " + m.error());
    s.matchers.push_back(std::move(*m));
  }
  return s;
}

}  // namespace

std::string silence_time_string(int64_t unix_ms) {
  const base::CivilTime t = base::civil_from_unix_ms(unix_ms);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02u:%02u:%02u.%03uZ", static_cast<long long>(t.year), t.month,
                t.day, t.hour, t.minute, t.second, t.millis);
  return buf;
}

Expected<int64_t> parse_silence_time(std::string_view s) {
  auto bad = [&] { return Status::error("invalid RFC 3339 time \"" + std::string(s) + "\""); };
  size_t i = 0;
  auto num = [&](size_t n, int64_t& out) {
    if (i + n > s.size()) return false;
    out = 0;
    for (size_t k = 0; k < n; ++k) {
      char c = s[i + k];
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    i += n;
    return true;
  };
  auto lit = [&](char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  int64_t y, mo, d, h, mi, sec;
  if (!num(4, y) || !lit('-') || !num(2, mo) || !lit('-') || !num(2, d)) return bad();
  if (!(lit('T') || lit('t'))) return bad();
  if (!num(2, h) || !lit(':') || !num(2, mi) || !lit(':') || !num(2, sec)) return bad();
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return bad();
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > kDays[mo - 1] || (mo == 2 && d == 29 && !leap)) return bad();
  int64_t frac_ms = 0;
  if (lit('.')) {
    size_t start = i;
    int digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (digits < 3) frac_ms = frac_ms * 10 + (s[i] - '0');
      ++digits;
      ++i;
    }
    if (i == start) return bad();
    for (int k = digits; k < 3; ++k) frac_ms *= 10;
  }
  int64_t offset_s = 0;
  if (lit('Z') || lit('z')) {
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    const int sign = s[i] == '-' ? -1 : 1;
    ++i;
    int64_t oh, om;
    if (!num(2, oh) || !lit(':') || !num(2, om) || oh > 23 || om > 59) return bad();
    offset_s = sign * (oh * 3600 + om * 60);
  } else {
    return bad();
  }
  if (i != s.size()) return bad();
  const int64_t secs = base::days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                       h * 3600 + mi * 60 + sec - offset_s;
  return secs * 1000 + frac_ms;
}

std::string render_gettable_silence(const Silence& s, int64_t now_ms) {
  json j = silence_json(s);
  j["status"] = json{{"state", std::string(silence_state_string(silence_state(s, now_ms)))}};
  return dump(j);
}

std::string render_gettable_silences(const std::vector<Silence>& list, int64_t now_ms) {
  json arr = json::array();
  for (const auto& s : list) {
    json j = silence_json(s);
    j["status"] = json{{"state", std::string(silence_state_string(silence_state(s, now_ms)))}};
    arr.push_back(std::move(j));
  }
  return dump(arr);
}

std::string render_silence_id(std::string_view id) {
  return dump(json{{"silenceID", std::string(id)}});
}

Expected<Silence> parse_postable_silence(std::string_view body) {
  json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::error("invalid JSON");
  return silence_from_json(j, true);
}

Expected<Silence> parse_silence_object_json(std::string_view object_json) {
  json j = json::parse(object_json.begin(), object_json.end(), nullptr, false);
  if (j.is_discarded()) return Status::error("invalid JSON");
  return silence_from_json(j, false);
}

namespace {

SilenceApiReply api_error(int status, const std::string& message) {
  return {status, dump(json(message))};
}

bool is_uuid(std::string_view id) {
  if (id.size() != 36) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

}  // namespace

SilenceApiReply post_silence_api(Silences& store, std::string_view body, int64_t now_ms) {
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded()) return api_error(400, "parsing silence body failed: invalid JSON");
  auto s = silence_from_json(j, true);
  if (!s) return api_error(s.error().rfind("silence invalid", 0) == 0 ? 400 : 422, s.error());
  if (s->starts_at_ms >= s->ends_at_ms)
    return api_error(400, "Failed to create silence: start time must be before end time");
  if (s->ends_at_ms < now_ms) return api_error(400, "Failed to create silence: end time can't be in the past");
  auto id = store.set(std::move(*s));
  if (!id) {
    const std::string& e = id.error();
    if (e == "silence not found") return api_error(404, e);
    if (e.rfind("silence invalid", 0) == 0 || e.rfind("silence limit", 0) == 0) return api_error(400, e);
    return api_error(500, e);
  }
  return {200, render_silence_id(*id)};
}

SilenceApiReply delete_silence_api(Silences& store, std::string_view id) {
  if (!is_uuid(id)) return api_error(422, "silenceID in path must be of type uuid: \"" + std::string(id) + "\"");
  Status st = store.expire(id);
  if (!st) return api_error(st.message() == "silence not found" ? 404 : 500, st.message());
  return {200, ""};
}

}  // namespace llmon::notify
