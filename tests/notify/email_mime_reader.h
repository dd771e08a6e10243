// A small MIME reader for the e-mail tests: it parses what email.h renders
// back into headers and decoded parts, so tests check meaning rather than
// bytes. Written independently of the encoders (decoding only) and kept
// strict: malformed input makes it return errors, never guess. Tests only.
#pragma once

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmon::notify::testing {

inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

inline std::optional<std::string> b64_decode(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (char c : in) {
    if (c == '\r' || c == '\n') continue;
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else if (c == '=') {
      ++pad;
      continue;
    } else
      return std::nullopt;
    if (pad) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

// RFC 2045 quoted-printable; CRLF hard breaks become "\n".
inline std::optional<std::string> qp_decode(std::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '=') {
      if (i + 2 >= in.size()) return std::nullopt;  // '=' needs two more characters
      if (in[i + 1] == '\r' && in[i + 2] == '\n') {
        i += 2;  // soft break
        continue;
      }
      int h = hex_value(in[i + 1]), l = hex_value(in[i + 2]);
      if (h < 0 || l < 0) return std::nullopt;
      out += static_cast<char>(h * 16 + l);
      i += 2;
    } else if (c == '\r' && i + 1 < in.size() && in[i + 1] == '\n') {
      out += '\n';
      ++i;
    } else if (c == '\r' || c == '\n') {
      return std::nullopt;  // bare CR or LF is not allowed in the encoding
    } else {
      out += c;
    }
  }
  return out;
}

// Decodes RFC 2047 encoded-words (B and Q, charset UTF-8); whitespace between
// adjacent encoded-words is dropped as the RFC says.
inline std::optional<std::string> decode_words(std::string_view v) {
  std::string out;
  bool last_was_word = false;
  size_t i = 0;
  std::string pending_ws;
  while (i < v.size()) {
    if (v.substr(i, 2) == "=?") {
      size_t q1 = v.find('?', i + 2);
      if (q1 == std::string_view::npos) return std::nullopt;
      size_t q2 = v.find('?', q1 + 1);
      if (q2 == std::string_view::npos) return std::nullopt;
      size_t end = v.find("?=", q2 + 1);
      if (end == std::string_view::npos) return std::nullopt;
      std::string charset(v.substr(i + 2, q1 - i - 2));
      for (char& c : charset) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (charset != "UTF-8") return std::nullopt;
      char enc = static_cast<char>(std::toupper(static_cast<unsigned char>(v[q1 + 1])));
      std::string_view text = v.substr(q2 + 1, end - q2 - 1);
      std::optional<std::string> dec;
      if (enc == 'B') {
        dec = b64_decode(text);
      } else if (enc == 'Q') {
        std::string t;
        for (size_t k = 0; k < text.size(); ++k) {
          if (text[k] == '_')
            t += ' ';
          else if (text[k] == '=' && k + 2 < text.size() && hex_value(text[k + 1]) >= 0 &&
                   hex_value(text[k + 2]) >= 0) {
            t += static_cast<char>(hex_value(text[k + 1]) * 16 + hex_value(text[k + 2]));
            k += 2;
          } else
            t += text[k];
        }
        dec = t;
      }
      if (!dec) return std::nullopt;
      if (!last_was_word) out += pending_ws;
      pending_ws.clear();
      out += *dec;
      last_was_word = true;
      i = end + 2;
      continue;
    }
    if (v[i] == ' ' || v[i] == '\t') {
      pending_ws += v[i++];
      continue;
    }
    out += pending_ws;
    pending_ws.clear();
    out += v[i++];
    last_was_word = false;
  }
  return out + pending_ws;
}

struct MimeEntity {
  std::vector<std::pair<std::string, std::string>> headers;  // unfolded, raw values, names as written
  std::string body;                                          // raw (still encoded)
  std::vector<std::string> raw_header_lines;                 // before unfolding

  std::vector<std::string> all(std::string_view name) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : headers) {
      if (k.size() != name.size()) continue;
      bool eq = true;
      for (size_t i = 0; i < k.size(); ++i)
        eq = eq && std::tolower(static_cast<unsigned char>(k[i])) == std::tolower(static_cast<unsigned char>(name[i]));
      if (eq) out.push_back(v);
    }
    return out;
  }
  std::string get(std::string_view name) const {
    auto a = all(name);
    return a.empty() ? std::string() : a[0];
  }
};

// Splits header block and body at the first empty line; unfolds headers.
inline std::optional<MimeEntity> parse_entity(std::string_view m) {
  MimeEntity e;
  size_t sep = m.find("\r\n\r\n");
  if (sep == std::string_view::npos) return std::nullopt;
  std::string_view head = m.substr(0, sep + 2);
  e.body = std::string(m.substr(sep + 4));
  size_t pos = 0;
  while (pos < head.size()) {
    size_t eol = head.find("\r\n", pos);
    if (eol == std::string_view::npos) return std::nullopt;
    std::string line(head.substr(pos, eol - pos));
    e.raw_header_lines.push_back(line);
    if (line.find('\n') != std::string::npos || line.find('\r') != std::string::npos) return std::nullopt;
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
      if (e.headers.empty()) return std::nullopt;
      e.headers.back().second += line;  // unfolding keeps the whitespace
    } else {
      size_t colon = line.find(':');
      if (colon == std::string::npos || colon == 0) return std::nullopt;
      std::string value = line.substr(colon + 1);
      if (!value.empty() && value[0] == ' ') value.erase(0, 1);
      e.headers.emplace_back(line.substr(0, colon), value);
    }
    pos = eol + 2;
  }
  return e;
}

// boundary="..." from a Content-Type value.
inline std::string boundary_of(std::string_view content_type) {
  size_t p = content_type.find("boundary=\"");
  if (p == std::string_view::npos) return {};
  size_t start = p + 10, end = content_type.find('"', start);
  return std::string(content_type.substr(start, end - start));
}

// The parts of a multipart body (preamble and epilogue must be empty).
inline std::optional<std::vector<MimeEntity>> parse_multipart(std::string_view body, std::string_view boundary) {
  std::string delim = "--" + std::string(boundary);
  if (body.substr(0, delim.size() + 2) != delim + "\r\n") return std::nullopt;
  std::vector<MimeEntity> parts;
  size_t pos = delim.size() + 2;
  while (true) {
    size_t next = body.find("\r\n" + delim, pos);
    if (next == std::string_view::npos) return std::nullopt;
    auto part = parse_entity(body.substr(pos, next - pos));
    if (!part) return std::nullopt;
    parts.push_back(std::move(*part));
    size_t after = next + 2 + delim.size();
    if (body.substr(after, 4) == "--\r\n") {
      if (after + 4 != body.size()) return std::nullopt;
      return parts;
    }
    if (body.substr(after, 2) != "\r\n") return std::nullopt;
    pos = after + 2;
  }
}

}  // namespace llmon::notify::testing
