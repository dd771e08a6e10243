// RFC 4648 base64 (standard alphabet, with padding), for HTTP basic auth
// (RFC 7617) and SMTP AUTH. Pure.
#pragma once

#include <string>
#include <string_view>

namespace llmon::net {

std::string base64_encode(std::string_view in);

}  // namespace llmon::net
