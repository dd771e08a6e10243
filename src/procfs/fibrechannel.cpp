#include "procfs/fibrechannel.h"

#include "go/strconv.h"
#include "procfs/thermal.h"

namespace llmon::procfs {
namespace {

constexpr FcAttribute kAttrs[] = {
    {"speed", false},         {"port_state", false},        {"port_type", false},        {"node_name", true},
    {"port_id", true},        {"port_name", true},          {"fabric_name", true},       {"dev_loss_tmo", false},
    {"symbolic_name", false}, {"supported_classes", false}, {"supported_speeds", false},
};

constexpr FcCounter kCounters[] = {
    {"dumped_frames", "dumped_frames_total", "Number of dumped frames"},
    {"error_frames", "error_frames_total", "Number of errors in frames"},
    {"invalid_crc_count", "invalid_crc_total", "Invalid Cyclic Redundancy Check count"},
    {"rx_frames", "rx_frames_total", "Number of frames received"},
    {"rx_words", "rx_words_total", "Number of words received by host port"},
    {"tx_frames", "tx_frames_total", "Number of frames transmitted by host port"},
    {"tx_words", "tx_words_total", "Number of words transmitted by host port"},
    {"seconds_since_last_reset", "seconds_since_last_reset_total", "Number of seconds since last host port reset"},
    {"invalid_tx_word_count", "invalid_tx_words_total", "Number of invalid words transmitted by host port"},
    {"link_failure_count", "link_failure_total", "Number of times the host port link has failed"},
    {"loss_of_sync_count", "loss_of_sync_total", "Number of failures on either bit or transmission word boundaries"},
    {"loss_of_signal_count", "loss_of_signal_total", "Number of times signal has been lost"},
    {"nos_count", "nos_total", "Number Not_Operational Primitive Sequence received by host port"},
    {"fcp_packet_aborts", "fcp_packet_aborts_total", "Number of aborted packets"},
};

}  // namespace

std::span<const FcAttribute> fc_attributes() {
  return kAttrs;
}
std::span<const FcCounter> fc_counters() {
  return kCounters;
}

std::string fc_attribute_value(const FcAttribute& a, std::string_view text) {
  std::string_view v = sysfs_trimmed(text);
  if (a.hex_prefixed && v.size() > 2) v.remove_prefix(2);
  return std::string(v);
}

std::optional<uint64_t> parse_fc_counter(std::string_view text) {
  return go::parse_uint(sysfs_trimmed(text));
}

}  // namespace llmon::procfs
