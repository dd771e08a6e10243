// SMTP reply parser; see smtp_reply.h and RFC 5321 §4.2.
#include "notify/email/smtp_reply.h"

#include <cctype>

#include "base/utf8.h"

namespace llmon::notify {

std::string SmtpReply::text() const {
  std::string out;
  for (const auto& l : lines) {
    if (!out.empty()) out += ' ';
    out += l;
  }
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return base::to_valid_utf8(out);
}

std::string SmtpReply::summary() const {
  std::string t = text();
  return t.empty() ? std::to_string(code) : std::to_string(code) + " " + t;
}

namespace {

// Quotes a bad line for an error message (bounded, printable).
std::string quote_line(std::string_view line) {
  std::string out = "\"";
  for (size_t i = 0; i < line.size() && i < 60; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (line.size() > 60) out += "...";
  return out + "\"";
}

}  // namespace

Expected<std::optional<SmtpReply>> SmtpReplyParser::next() {
  SmtpReply reply;
  size_t line_start = pos_;
  while (true) {
    size_t nl = buf_.find('\n', line_start);
    if (nl == std::string::npos) {
      if (buf_.size() - line_start > kMaxLineBytes)
        return Status::error("reply line longer than " + std::to_string(kMaxLineBytes) + " bytes");
      return std::optional<SmtpReply>();
    }
    std::string_view line(buf_.data() + line_start, nl - line_start);
    if (line.size() > kMaxLineBytes)
      return Status::error("reply line longer than " + std::to_string(kMaxLineBytes) + " bytes");
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    bool code_ok =
        line.size() >= 3 && line[0] >= '2' && line[0] <= '5' && std::isdigit(static_cast<unsigned char>(line[1])) &&
        std::isdigit(static_cast<unsigned char>(line[2])) && (line.size() == 3 || line[3] == ' ' || line[3] == '-');
    if (!code_ok) return Status::error("malformed reply line " + quote_line(line));
    int code = (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
    if (reply.lines.empty()) {
      reply.code = code;
    } else if (code != reply.code) {
      return Status::error("multi-line reply mixes codes " + std::to_string(reply.code) + " and " +
                           std::to_string(code));
    }
    reply.lines.emplace_back(line.size() > 4 ? line.substr(4) : std::string_view());
    line_start = nl + 1;
    if (line.size() > 3 && line[3] == '-') {
      if (reply.lines.size() >= kMaxLines)
        return Status::error("multi-line reply longer than " + std::to_string(kMaxLines) + " lines");
      continue;
    }
    // Complete. Drop consumed bytes once they dominate the buffer.
    pos_ = line_start;
    if (pos_ > 4096 && pos_ * 2 > buf_.size()) {
      buf_.erase(0, pos_);
      pos_ = 0;
    }
    return std::optional<SmtpReply>(std::move(reply));
  }
}

Expected<SmtpReply> parse_smtp_reply(std::string_view text) {
  SmtpReplyParser p;
  p.feed(text);
  auto r = p.next();
  if (!r) return r.status();
  if (!r->has_value()) return Status::error("incomplete reply");
  if (p.buffered() != 0) return Status::error("bytes after the reply");
  return std::move(**r);
}

SmtpExtensions parse_ehlo_extensions(const SmtpReply& ehlo_reply) {
  SmtpExtensions ext;
  for (size_t i = 1; i < ehlo_reply.lines.size(); ++i) {
    std::string_view l = ehlo_reply.lines[i];
    size_t sp = l.find(' ');
    std::string key(l.substr(0, sp));
    for (char& c : key) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string params = sp == std::string_view::npos ? std::string() : std::string(l.substr(sp + 1));
    if (key.empty()) continue;
    ext.emplace(std::move(key), std::move(params));  // a repeated keyword keeps its first line
  }
  return ext;
}

}  // namespace llmon::notify
