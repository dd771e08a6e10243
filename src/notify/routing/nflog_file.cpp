#include "notify/routing/nflog_file.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace llmon::notify {

std::string encode_nflog(const Nflog& log) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [key, e] : log)
    entries.push_back({{"key", key}, {"ts", e.timestamp_ms}, {"firing", e.firing}, {"resolved", e.resolved}});
  return nlohmann::json{{"version", 1}, {"entries", entries}}.dump();
}

Expected<Nflog> decode_nflog(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::error("not a JSON object");
  if (!j.contains("version") || j["version"] != 1) return Status::error("unknown version");
  if (!j.contains("entries") || !j["entries"].is_array()) return Status::error("no \"entries\" array");
  Nflog out;
  size_t i = 0;
  for (const auto& e : j["entries"]) {
    ++i;
    auto bad = [&](const char* what) { return Status::error("entry " + std::to_string(i) + ": " + what); };
    if (!e.is_object() || !e.contains("key") || !e["key"].is_string()) return bad("no string \"key\"");
    if (!e.contains("ts") || !e["ts"].is_number_integer()) return bad("no integer \"ts\"");
    NflogEntry n;
    n.timestamp_ms = e["ts"].get<int64_t>();
    for (const char* field : {"firing", "resolved"}) {
      if (!e.contains(field) || !e[field].is_array()) return bad("fingerprint list missing");
      auto& list = std::string_view(field) == "firing" ? n.firing : n.resolved;
      for (const auto& fp : e[field]) {
        if (!fp.is_number_unsigned() && !fp.is_number_integer()) return bad("fingerprint is not a number");
        list.push_back(fp.get<uint64_t>());
      }
    }
    out[e["key"].get<std::string>()] = std::move(n);
  }
  return out;
}

Expected<Nflog> load_nflog(const std::string& path, int64_t now_ms) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Nflog{};  // no log yet
  std::ostringstream ss;
  ss << in.rdbuf();
  auto log = decode_nflog(ss.str());
  if (log) return log;
  const std::string aside = path + ".corrupt-" + std::to_string(now_ms);
  std::rename(path.c_str(), aside.c_str());
  return Status::error("notification log " + path + ": " + log.error() + "; moved to " + aside +
                       ", starting with an empty log");
}

}  // namespace llmon::notify
