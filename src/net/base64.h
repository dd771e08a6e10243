// RFC 4648 base64 (standard alphabet, with padding), for HTTP basic auth
// (RFC 7617) and SMTP AUTH. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmon::net {

std::string base64_encode(std::string_view in);
// Strict decoding (padding required, no whitespace); nullopt on bad input.
std::optional<std::string> base64_decode(std::string_view in);

}  // namespace llmon::net
