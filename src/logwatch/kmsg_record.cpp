// The /dev/kmsg record parser (docs/logwatch-kmsg.md).
#include "logwatch/kmsg_record.h"

#include <charconv>
#include <cstdint>
#include <string>

#include "base/strings.h"

namespace llmon::logwatch {
namespace {

Status bad(std::string what) {
  return Status::error("kmsg record: " + what);
}

// The field quoted for an error message, cut to a readable length.
std::string quoted(std::string_view field) {
  std::string out = "\"";
  std::string_view shown = field.substr(0, 32);
  for (char c : shown) out += (c >= ' ' && c < 0x7f) ? c : '?';
  if (shown.size() < field.size()) out += "...";
  return out + "\"";
}

// Cuts the next comma-separated field off the header.
std::string_view next_field(std::string_view& header) {
  size_t comma = header.find(',');
  std::string_view field = header.substr(0, comma);
  header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
  return field;
}

Status parse_header(std::string_view header, KmsgRecord& rec) {
  std::string_view prio = next_field(header);
  auto p = base::parse_u64(prio);
  if (!p) return bad("priority " + quoted(prio) + " is not a number");
  if (*p > static_cast<uint64_t>(kKmsgMaxPrio)) return bad("priority " + quoted(prio) + " is out of range");
  rec.priority = static_cast<int>(*p & 7);
  rec.facility = static_cast<int>(*p >> 3);

  if (header.empty()) return bad("no sequence number after the priority");
  std::string_view seq = next_field(header);
  auto s = base::parse_u64(seq);
  if (!s) return bad("seq " + quoted(seq) + " is not a number");
  rec.seq = *s;

  if (header.empty()) return bad("no timestamp after the sequence number");
  std::string_view usec = next_field(header);
  auto u = base::parse_u64(usec);
  if (!u || *u > static_cast<uint64_t>(INT64_MAX)) return bad("timestamp " + quoted(usec) + " is not a number");
  rec.usec = static_cast<int64_t>(*u);

  // A record without FLAGS is malformed; fields after it are ignored.
  if (header.empty()) return bad("no flags after the timestamp");
  std::string_view flags = next_field(header);
  if (flags.empty()) return bad("empty flags field");
  rec.continuation = flags.find_first_of("c+") != std::string_view::npos;
  return Status::ok();
}

}  // namespace

void decode_kmsg_escapes(std::string_view in, std::string& out) {
  out.reserve(out.size() + in.size());
  size_t i = 0;
  while (i < in.size()) {
    size_t bs = in.find('\\', i);
    if (bs == std::string_view::npos) {
      out.append(in.substr(i));
      return;
    }
    out.append(in.substr(i, bs - i));
    // \xNN: two hex digits (from_chars takes no sign for an unsigned value).
    unsigned byte = 0;
    bool escape = bs + 3 < in.size() && in[bs + 1] == 'x';
    if (escape) {
      const char* digits = in.data() + bs + 2;
      auto [end, ec] = std::from_chars(digits, digits + 2, byte, 16);
      escape = ec == std::errc() && end == digits + 2;
    }
    if (escape) {
      out.push_back(static_cast<char>(byte));
      i = bs + 4;
    } else {
      out.push_back('\\');
      i = bs + 1;
    }
  }
}

Expected<KmsgRecord> parse_kmsg_record(std::string_view raw) {
  if (!raw.empty() && raw.back() == '\n') raw.remove_suffix(1);
  size_t nl = raw.find('\n');
  std::string_view first = raw.substr(0, nl);
  std::string_view rest = nl == std::string_view::npos ? std::string_view() : raw.substr(nl + 1);

  size_t semi = first.find(';');
  if (semi == std::string_view::npos) {
    if (first.empty()) return bad("empty record");
    return bad("no ';' between the header and the text in " + quoted(first));
  }
  KmsgRecord rec;
  if (Status s = parse_header(first.substr(0, semi), rec); !s) return s;
  decode_kmsg_escapes(first.substr(semi + 1), rec.text);

  int line = 1;
  while (nl != std::string_view::npos) {
    ++line;
    nl = rest.find('\n');
    std::string_view entry = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (entry.empty() || entry.front() != ' ') {
      return bad("line " + std::to_string(line) + " does not start with a space (dictionary lines do)");
    }
    entry.remove_prefix(1);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return bad("dictionary line " + std::to_string(line) + " " + quoted(entry) + " is not KEY=value");
    }
    auto& kv = rec.dict.emplace_back();
    decode_kmsg_escapes(entry.substr(0, eq), kv.first);
    decode_kmsg_escapes(entry.substr(eq + 1), kv.second);
  }
  return rec;
}

}  // namespace llmon::logwatch
