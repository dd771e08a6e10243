// MIME and RFC 5322 building blocks for alert e-mail: base64 and
// quoted-printable bodies (RFC 2045 §6.7-6.8), RFC 2047 encoded-words for
// non-ASCII header text, header folding, RFC 5322 dates and mailbox
// addresses. Alert text is untrusted: every header value passes through
// header_text(), which removes CR, LF and other controls, so a label cannot
// start a new header. Encoders only (the agent never reads mail). Pure
// functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "net/base64.h"

namespace llmon::notify {

using net::base64_encode;  // RFC 4648, shared with HTTP basic auth
// Base64 in lines of at most 76 characters, each ending in CRLF.
std::string base64_body(std::string_view bytes);
// Quoted-printable with CRLF hard line breaks (input lines may end in LF or
// CRLF), soft breaks keeping lines within 76 characters, '=' and every
// non-printable or non-ASCII byte as =XX, trailing spaces and tabs encoded.
std::string quoted_printable_encode(std::string_view text);

// Header text made safe: invalid UTF-8 replaced, every control character
// (CR, LF, TAB, NUL, DEL, C1) turned into a space.
std::string header_text(std::string_view s);
// One header line "Name: value" (value through header_text()), folded with
// CRLF+SP to 78 columns where it has spaces, ending in CRLF. Values with
// non-ASCII bytes, "=?" or words too long to fold are written as RFC 2047
// "=?UTF-8?B?...?=" encoded-words (each at most 75 characters, split on
// character boundaries). `structured`: the value is already a valid header
// (addresses, message id) and is only folded.
std::string header_line(std::string_view name, std::string_view value, bool structured = false);
// RFC 2047 encoded-words for `text` (valid UTF-8), separated by spaces.
std::string encode_words(std::string_view text);

// "Mon, 02 Jan 2006 15:04:05 +0000" (UTC).
std::string rfc5322_date(int64_t unix_ms);

// A mailbox: "alerts@example.org", "<alerts@example.org>",
// "llmon <alerts@example.org>" or "\"GPU team, on call\" <gpu@example.org>".
// The address must be a plain ASCII addr-spec (dot-atom local part, domain
// name or [literal]); anything with controls, spaces, quotes or brackets in
// the address is refused, so it is safe inside "MAIL FROM:<...>".
struct MailAddress {
  std::string display_name;  // may be empty; any UTF-8
  std::string address;       // local@domain
};
Expected<MailAddress> parse_mail_address(std::string_view s);
// A comma-separated list of mailboxes (Alertmanager's `to: "a@x, B <b@y>"`);
// commas inside quoted display names do not split. Empty entries are errors.
Expected<std::vector<MailAddress>> parse_address_list(std::string_view s);
// For a header: the address alone, or the display name (quoted or encoded
// as needed) and "<address>".
std::string format_mail_address(const MailAddress& a);

}  // namespace llmon::notify
