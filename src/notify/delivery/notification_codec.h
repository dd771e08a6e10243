// Lossless binary encoding of a Notification, the payload a DeliveryQueue job
// carries for webhook / email / exec senders (so a queued notification
// survives a restart byte for byte, label values that are not UTF-8
// included). Pure functions; decode never trusts the input.
//
// Layout (all integers little-endian):
//   u8 version (1)
//   str receiver, str group_key, pairs group_labels, i64 created_ms,
//   str external_url, u32 alert_count, then per alert:
//     pairs labels, pairs annotations, i64 starts_at_ms, i64 ends_at_ms,
//     str generator_url
//   str   = u32 byte length, bytes
//   pairs = u32 count, count × (str name, str value)
// Nothing may follow the last alert.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "notify/notification.h"

namespace llmon::notify {

std::string encode_notification(const Notification& n);
// Errors say what was being read and at which byte offset.
Expected<Notification> decode_notification(std::string_view bytes);

}  // namespace llmon::notify
