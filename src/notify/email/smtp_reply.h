// SMTP reply parsing (RFC 5321 §4.2): "250-first\r\n250-more\r\n250 last\r\n"
// is one reply with code 250 and three text lines. A pure byte parser with
// no I/O: the transport feeds it what it read, the dialogue consumes whole
// replies. It is not an SMTP server parser (commands are not parsed here).
// Not thread-safe; one parser per connection.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::notify {

struct SmtpReply {
  int code = 0;                    // 200..599
  std::vector<std::string> lines;  // text after "NNN-" / "NNN ", one per line
  // All lines joined by a space: "550 5.1.1 <x>: user unknown" style text
  // for error messages (control characters replaced by spaces).
  std::string text() const;
  // "550 5.1.1 user unknown" (code, a space, text()).
  std::string summary() const;
  bool positive() const { return code >= 200 && code < 400; }
  bool transient() const { return code >= 400 && code < 500; }
};

// Incremental parser. Lines may end in CRLF or a bare LF (servers in the wild
// do both). Limits: a line is at most kMaxLineBytes, a reply at most
// kMaxLines lines; longer input is a protocol error, not a hang.
class SmtpReplyParser {
 public:
  static constexpr size_t kMaxLineBytes = 4096;
  static constexpr size_t kMaxLines = 512;

  void feed(std::string_view bytes) { buf_.append(bytes); }
  // The next complete reply; nullopt when more bytes are needed; an error for
  // malformed input (after which the connection is unusable).
  Expected<std::optional<SmtpReply>> next();
  // Bytes received but not yet part of a returned reply (a STARTTLS client
  // must see none after the 220, or a man in the middle injected them).
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  size_t pos_ = 0;  // start of the reply being assembled
};

// Parses exactly one complete reply (all of `text`); for tests and tools.
Expected<SmtpReply> parse_smtp_reply(std::string_view text);

// EHLO keywords (upper-cased) to their parameters ("AUTH" -> "PLAIN LOGIN").
// The first reply line is the server's greeting name and is skipped.
using SmtpExtensions = std::map<std::string, std::string>;
SmtpExtensions parse_ehlo_extensions(const SmtpReply& ehlo_reply);

}  // namespace llmon::notify
