#include "logwatch/positions_json.h"

#include <nlohmann/json.hpp>

namespace llmon::logwatch {

namespace {

using nlohmann::json;

template <typename T>
Status read_uint(const json& o, const char* key, T& out) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_unsigned())
    return Status::error(std::string("positions: \"") + key + "\" missing or not a non-negative integer");
  out = it->get<T>();
  return Status::ok();
}

Status read_int(const json& o, const char* key, int64_t& out) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer())
    return Status::error(std::string("positions: \"") + key + "\" missing or not an integer");
  out = it->get<int64_t>();
  return Status::ok();
}

Expected<FileCursor> decode_cursor(const json& o) {
  if (!o.is_object()) return Status::error("positions: a file entry is not an object");
  FileCursor c;
  auto path = o.find("path");
  if (path == o.end() || !path->is_string()) return Status::error("positions: \"path\" missing or not a string");
  c.path = path->get<std::string>();
  Status s;
  if (!(s = read_uint(o, "dev", c.dev)) || !(s = read_uint(o, "ino", c.ino)) ||
      !(s = read_uint(o, "offset", c.offset)) || !(s = read_uint(o, "head_len", c.head_len)) ||
      !(s = read_uint(o, "head_crc", c.head_crc)) || !(s = read_uint(o, "tail_len", c.tail_len)) ||
      !(s = read_uint(o, "tail_crc", c.tail_crc)) || !(s = read_int(o, "saved_ms", c.saved_ms)) ||
      !(s = read_int(o, "mtime_ns", c.mtime_ns)))
    return s.with_context(c.path);
  if (auto d = o.find("draining"); d != o.end() && d->is_boolean()) c.draining = d->get<bool>();
  if (auto done = o.find("done"); done != o.end()) {
    if (!done->is_array()) return Status::error("positions: " + c.path + ": \"done\" is not an array");
    for (const json& g : *done) {
      if (!g.is_array() || g.size() != 4 || !g[0].is_number_unsigned() || !g[1].is_number_unsigned() ||
          !g[2].is_number_unsigned() || !g[3].is_number_integer())
        return Status::error("positions: " + c.path + ": a \"done\" entry is not [dev, ino, size, mtime_ns]");
      c.done.push_back({g[0].get<uint64_t>(), g[1].get<uint64_t>(), g[2].get<uint64_t>(), g[3].get<int64_t>()});
    }
  }
  return c;
}

}  // namespace

std::string encode_positions(const Positions& p) {
  json files = json::array();
  for (const FileCursor& c : p.files) {
    json done = json::array();
    for (const GenerationId& g : c.done) done.push_back(json::array({g.dev, g.ino, g.size, g.mtime_ns}));
    files.push_back({{"path", c.path},
                     {"dev", c.dev},
                     {"ino", c.ino},
                     {"offset", c.offset},
                     {"head_len", c.head_len},
                     {"head_crc", c.head_crc},
                     {"tail_len", c.tail_len},
                     {"tail_crc", c.tail_crc},
                     {"saved_ms", c.saved_ms},
                     {"mtime_ns", c.mtime_ns},
                     {"draining", c.draining},
                     {"done", std::move(done)}});
  }
  json j = {{"files", std::move(files)}};
  if (p.kmsg.valid) j["kmsg"] = {{"boot_id", p.kmsg.boot_id}, {"seq", p.kmsg.seq}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Expected<Positions> decode_positions(std::string_view text) {
  Positions p;
  if (text.empty()) return p;
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::error("positions: not a JSON object");
  if (auto files = j.find("files"); files != j.end()) {
    if (!files->is_array()) return Status::error("positions: \"files\" is not an array");
    for (const json& f : *files) {
      auto c = decode_cursor(f);
      if (!c) return c.status();
      p.files.push_back(std::move(*c));
    }
  }
  if (auto k = j.find("kmsg"); k != j.end()) {
    if (!k->is_object()) return Status::error("positions: \"kmsg\" is not an object");
    auto boot = k->find("boot_id");
    if (boot == k->end() || !boot->is_string()) return Status::error("positions: kmsg \"boot_id\" missing");
    p.kmsg.boot_id = boot->get<std::string>();
    if (Status s = read_uint(*k, "seq", p.kmsg.seq); !s) return s.with_context("kmsg");
    p.kmsg.valid = true;
  }
  return p;
}

}  // namespace llmon::logwatch
