// The send functions of the two forwarders (queue_forwarder.h runs them):
//  * syslog: RFC 5424 messages (syslog_format.h), RFC 6587 octet counting,
//    over one TCP connection opened on first use and again after the peer
//    closed it or a write failed. A batch whose write failed part-way is
//    sent again whole after the reconnect (the receiver may see the first
//    messages twice: octet counting cannot tell how far it got).
//  * loki: one POST /loki/api/v1/push per batch, snappy-compressed protobuf
//    (Content-Type application/x-protobuf) or JSON; 2xx sent, 429 / 5xx /
//    network errors retried, any other status rejected (dropped, counted).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "logwatch/loki_format.h"
#include "logwatch/queue_forwarder.h"
#include "logwatch/syslog_format.h"

namespace llmon::logwatch {

struct SyslogTarget {
  std::string host;
  uint16_t port = 0;
};
// "tcp://HOST:PORT" (IPv6 in brackets); errors say what is wrong.
Expected<SyslogTarget> parse_syslog_target(std::string_view text);

SendFn syslog_sender(SyslogTarget target, SyslogEventOptions o, int timeout_ms = 5000);

enum class LokiFormat : uint8_t { kProtobuf, kJson };
bool parse_loki_format(std::string_view text, LokiFormat& out);  // "protobuf" | "json"

// `push_url`: the full push URL (http://host:3100/loki/api/v1/push).
Expected<SendFn> loki_sender(std::string push_url, LokiLabelOptions o, LokiFormat format, int timeout_ms = 10000);

}  // namespace llmon::logwatch
