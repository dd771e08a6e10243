// Pushgateway push URLs (push_path.h).
#include "scrape/push_path.h"

#include <algorithm>

#include "go/strconv.h"
#include "model/metric.h"

namespace llmon::scrape {

namespace {

constexpr std::string_view kPrefix = "/metrics/job";
constexpr std::string_view kBase64Suffix = "@base64";
constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int decode_char(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

struct Route {
  bool base64 = false;
  std::string_view job;     // the job segment as written
  std::string_view labels;  // "" or "/..." (the router's *labels)
};

bool route(std::string_view path, Route& r) {
  if (path.substr(0, kPrefix.size()) != kPrefix) return false;
  path.remove_prefix(kPrefix.size());
  if (path.substr(0, kBase64Suffix.size()) == kBase64Suffix) {
    r.base64 = true;
    path.remove_prefix(kBase64Suffix.size());
  }
  if (path.empty() || path[0] != '/') return false;
  path.remove_prefix(1);
  const size_t slash = path.find('/');
  r.job = path.substr(0, slash);
  if (r.job.empty()) return false;
  r.labels = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
  return true;
}

void set_label(std::vector<model::Label>& labels, std::string name, std::string value) {
  for (auto& l : labels) {
    if (l.name == name) {
      l.value = std::move(value);  // a later pair wins, as in Go's map
      return;
    }
  }
  labels.push_back({std::move(name), std::move(value)});
}

bool needs_base64(std::string_view v) {
  return v.empty() || v.find('/') != std::string_view::npos;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_escaped_segment(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
}

}  // namespace

std::string_view GroupingKey::job() const {
  for (const auto& l : labels)
    if (l.name == "job") return l.value;
  return {};
}

Expected<std::string> decode_base64url(std::string_view s) {
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  std::string out;
  uint32_t acc = 0;
  int bits = 0, in_quantum = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n' || c == '\r') continue;
    const int v = decode_char(c);
    if (v < 0) return Status::error("illegal base64 data at input byte " + std::to_string(i));
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    in_quantum = (in_quantum + 1) % 4;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // One character alone in the last quantum carries no whole byte.
  if (in_quantum == 1) return Status::error("illegal base64 data at input byte " + std::to_string(s.size() - 1));
  return out;
}

std::string encode_base64url(std::string_view s) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : s) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(acc >> bits) & 0x3f]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 0x3f]);
  return out;
}

Expected<std::string> unescape_path(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out += raw[i];
      continue;
    }
    if (i + 2 >= raw.size() || hex_value(raw[i + 1]) < 0 || hex_value(raw[i + 2]) < 0) {
      // Go's EscapeError shows the escape: up to 3 bytes from the '%'.
      return Status::error("invalid URL escape " + go::quote(raw.substr(i, 3)));
    }
    out += static_cast<char>(hex_value(raw[i + 1]) * 16 + hex_value(raw[i + 2]));
    i += 2;
  }
  return out;
}

bool is_push_path(std::string_view raw) {
  auto path = unescape_path(raw);
  Route r;
  return path && route(*path, r);
}

Expected<GroupingKey> parse_push_path(std::string_view raw) {
  auto decoded = unescape_path(raw);
  if (!decoded) return decoded.status();
  const std::string& path = *decoded;
  Route r;
  if (!route(path, r)) return Status::error("404 page not found");
  std::string job(r.job);
  if (r.base64) {
    auto decoded = decode_base64url(r.job);
    if (!decoded) {
      // Go's handler quotes the variable after the failed decode: "".
      return Status::error("invalid base64 encoding in job name \"\": " + decoded.error());
    }
    job = std::move(*decoded);
  }
  GroupingKey key;
  if (r.labels.size() > 1) {
    std::vector<std::string_view> parts;
    std::string_view rest = r.labels.substr(1);
    while (true) {
      const size_t slash = rest.find('/');
      parts.push_back(rest.substr(0, slash));
      if (slash == std::string_view::npos) break;
      rest.remove_prefix(slash + 1);
    }
    if (parts.size() % 2 != 0) {
      return Status::error("odd number of components in label string " + go::quote(r.labels));
    }
    for (size_t i = 0; i + 1 < parts.size(); i += 2) {
      std::string_view name = parts[i];
      const bool b64 =
          name.size() >= kBase64Suffix.size() && name.substr(name.size() - kBase64Suffix.size()) == kBase64Suffix;
      if (b64) name.remove_suffix(kBase64Suffix.size());
      if (!model::is_valid_label_name(name) || name.substr(0, 2) == "__") {
        return Status::error("improper label name " + go::quote(name));
      }
      std::string value(parts[i + 1]);
      if (b64) {
        auto decoded = decode_base64url(parts[i + 1]);
        if (!decoded) {
          return Status::error("invalid base64 encoding for label " + std::string(name) + "=" +
                               go::quote(parts[i + 1]) + ": " + decoded.error());
        }
        value = std::move(*decoded);
      }
      set_label(key.labels, std::string(name), std::move(value));
    }
  }
  if (job.empty()) return Status::error("job name is required");
  set_label(key.labels, "job", std::move(job));
  std::sort(key.labels.begin(), key.labels.end(),
            [](const model::Label& a, const model::Label& b) { return a.name < b.name; });
  return key;
}

std::string push_path(const GroupingKey& key) {
  std::string out(kPrefix);
  const std::string_view job = key.job();
  if (needs_base64(job)) {
    out += "@base64/";
    out += job.empty() ? "=" : encode_base64url(job);
  } else {
    out += '/';
    append_escaped_segment(out, job);
  }
  for (const auto& l : key.labels) {
    if (l.name == "job") continue;
    out += '/';
    out += l.name;
    if (needs_base64(l.value)) {
      out += "@base64/";
      out += l.value.empty() ? "=" : encode_base64url(l.value);
    } else {
      out += '/';
      append_escaped_segment(out, l.value);
    }
  }
  return out;
}

}  // namespace llmon::scrape
