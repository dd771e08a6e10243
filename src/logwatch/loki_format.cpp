// Loki's push API: docs/logwatch-forward.md; the protobuf messages are
// grafana/loki pkg/push/push.proto and google/protobuf/timestamp.proto, the
// wire format protobuf's encoding guide (varints, length-delimited fields).
#include "logwatch/loki_format.h"

#include <snappy.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "base/proto_wire.h"
#include "base/utf8.h"

namespace llmon::logwatch {

namespace {

using base::put_bytes;
using base::put_tag;
using base::put_varint;

bool needs_quotes(std::string_view v) {
  if (v.empty()) return true;
  for (unsigned char c : v)
    if (c <= ' ' || c == '=' || c == '"' || c == '\\' || c == 0x7f) return true;
  return false;
}

// Go strconv.Quote's escapes for ASCII; valid UTF-8 beyond ASCII as is.
void append_quoted(std::string& out, std::string_view raw) {
  static const char kHex[] = "0123456789abcdef";
  std::string v = base::to_valid_utf8(raw);
  out += '"';
  for (unsigned char c : v) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

bool valid_label_name(std::string_view n) {
  if (n.empty()) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    char c = n[i];
    bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string loki_line(const Event& e) {
  std::string line;
  for (size_t i = 0; i < e.lines.size(); ++i) {
    if (i > 0) line += '\n';
    line += e.lines[i];
  }
  line = base::to_valid_utf8(line);
  std::string extra;
  for (const auto& [k, v] : e.labels) {
    if (!extra.empty()) extra += ' ';
    extra += k;
    extra += '=';
    if (needs_quotes(v))
      append_quoted(extra, v);
    else
      extra += base::to_valid_utf8(v);
  }
  if (e.repeat > 1) extra += (extra.empty() ? "" : " ") + std::string("repeat=") + std::to_string(e.repeat);
  if (!extra.empty()) line += '\t' + extra;
  return line;
}

std::vector<LokiStream> loki_streams(const std::vector<Event>& events, const LokiLabelOptions& o) {
  std::map<LokiLabels, std::vector<LokiEntry>> by_labels;
  for (const Event& e : events) {
    std::map<std::string, std::string> l = {{"job", "llmon"},
                                            {"host", o.host},
                                            {"rule", e.rule},
                                            {"severity", severity_name(e.severity)},
                                            {"source", base::to_valid_utf8(e.source)}};
    for (const auto& [k, v] : o.static_labels) l[k] = v;
    LokiLabels key;
    for (auto& [k, v] : l)
      if (!v.empty()) key.emplace_back(k, v);  // Loki treats an empty value as absent
    by_labels[key].push_back({e.time_ms * 1'000'000, loki_line(e)});
  }
  std::vector<LokiStream> out;
  for (auto& [labels, entries] : by_labels) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const LokiEntry& a, const LokiEntry& b) { return a.time_ns < b.time_ns; });
    out.push_back({labels, std::move(entries)});
  }
  return out;
}

std::string loki_json_body(const std::vector<LokiStream>& streams) {
  nlohmann::json arr = nlohmann::json::array();
  for (const LokiStream& s : streams) {
    nlohmann::json labels = nlohmann::json::object();
    for (const auto& [k, v] : s.labels) labels[k] = base::to_valid_utf8(v);
    nlohmann::json values = nlohmann::json::array();
    for (const LokiEntry& e : s.entries) values.push_back({std::to_string(e.time_ns), base::to_valid_utf8(e.line)});
    arr.push_back({{"stream", std::move(labels)}, {"values", std::move(values)}});
  }
  nlohmann::json body = {{"streams", std::move(arr)}};
  return body.dump();
}

std::string loki_protobuf_body(const std::vector<LokiStream>& streams) {
  std::string out, stream, entry, ts;
  for (const LokiStream& s : streams) {
    stream.clear();
    put_bytes(stream, 1, prometheus_labels(s.labels));
    for (const LokiEntry& e : s.entries) {
      ts.clear();
      int64_t seconds = e.time_ns / 1'000'000'000;
      int64_t nanos = e.time_ns % 1'000'000'000;
      if (nanos < 0) {  // Timestamp.nanos is 0..999,999,999 even before 1970
        nanos += 1'000'000'000;
        --seconds;
      }
      if (seconds != 0) {
        put_tag(ts, 1, 0);
        put_varint(ts, static_cast<uint64_t>(seconds));  // int64: two's complement as a varint
      }
      if (nanos != 0) {
        put_tag(ts, 2, 0);
        put_varint(ts, static_cast<uint64_t>(nanos));
      }
      entry.clear();
      put_bytes(entry, 1, ts);
      put_bytes(entry, 2, base::to_valid_utf8(e.line));
      put_bytes(stream, 2, entry);
    }
    put_bytes(out, 1, stream);
  }
  return out;
}

std::string snappy_block(std::string_view raw) {
  std::string out;
  snappy::Compress(raw.data(), raw.size(), &out);
  return out;
}

std::string prometheus_labels(const LokiLabels& labels) {
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ", ";
    out += labels[i].first;
    out += '=';
    append_quoted(out, labels[i].second);
  }
  out += '}';
  return out;
}

Expected<LokiLabels> parse_loki_labels(std::string_view text) {
  std::map<std::string, std::string> m;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view pair = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    pos = comma == std::string_view::npos ? text.size() : comma + 1;
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) return Status::error("label \"" + std::string(pair) + "\": want name=value");
    std::string name(pair.substr(0, eq));
    if (!valid_label_name(name))
      return Status::error("label \"" + std::string(pair) + "\": the name must match [a-zA-Z_][a-zA-Z0-9_]*");
    m[name] = std::string(pair.substr(eq + 1));
  }
  return LokiLabels(m.begin(), m.end());
}

}  // namespace llmon::logwatch
