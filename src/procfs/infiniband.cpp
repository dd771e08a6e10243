#include "procfs/infiniband.h"

#include <cmath>

#include "go/strconv.h"
#include "procfs/thermal.h"

namespace llmon::procfs {
namespace {

constexpr IbCounterSpec kSpecs[] = {
    {"counters_ext", "port_multicast_rcv_packets", "legacy_multicast_packets_received_total",
     "Number of multicast packets received"},
    {"counters_ext", "port_multicast_xmit_packets", "legacy_multicast_packets_transmitted_total",
     "Number of multicast packets transmitted"},
    {"counters_ext", "port_rcv_data_64", "legacy_data_received_bytes_total",
     "Number of data octets received on all links", true},
    {"counters_ext", "port_rcv_packets_64", "legacy_packets_received_total",
     "Number of data packets received on all links"},
    {"counters_ext", "port_unicast_rcv_packets", "legacy_unicast_packets_received_total",
     "Number of unicast packets received"},
    {"counters_ext", "port_unicast_xmit_packets", "legacy_unicast_packets_transmitted_total",
     "Number of unicast packets transmitted"},
    {"counters_ext", "port_xmit_data_64", "legacy_data_transmitted_bytes_total",
     "Number of data octets transmitted on all links", true},
    {"counters_ext", "port_xmit_packets_64", "legacy_packets_transmitted_total",
     "Number of data packets received on all links"},
    {"counters", "excessive_buffer_overrun_errors", "excessive_buffer_overrun_errors_total",
     "Number of times that OverrunErrors consecutive flow control update periods occurred, each having at least "
     "one overrun error."},
    {"counters", "link_downed", "link_downed_total",
     "Number of times the link failed to recover from an error state and went down"},
    {"counters", "link_error_recovery", "link_error_recovery_total",
     "Number of times the link successfully recovered from an error state"},
    {"counters", "local_link_integrity_errors", "local_link_integrity_errors_total",
     "Number of times that the count of local physical errors exceeded the threshold specified by LocalPhyErrors."},
    {"counters", "multicast_rcv_packets", "multicast_packets_received_total",
     "Number of multicast packets received (including errors)"},
    {"counters", "multicast_xmit_packets", "multicast_packets_transmitted_total",
     "Number of multicast packets transmitted (including errors)"},
    {"counters", "port_rcv_constraint_errors", "port_constraint_errors_received_total",
     "Number of packets received on the switch physical port that are discarded"},
    {"counters", "port_xmit_constraint_errors", "port_constraint_errors_transmitted_total",
     "Number of packets not transmitted from the switch physical port"},
    {"counters", "port_rcv_data", "port_data_received_bytes_total", "Number of data octets received on all links",
     true},
    {"counters", "port_xmit_data", "port_data_transmitted_bytes_total",
     "Number of data octets transmitted on all links", true},
    {"counters", "port_rcv_discards", "port_discards_received_total",
     "Number of inbound packets discarded by the port because the port is down or congested"},
    {"counters", "port_xmit_discards", "port_discards_transmitted_total",
     "Number of outbound packets discarded by the port because the port is down or congested"},
    {"counters", "port_rcv_errors", "port_errors_received_total",
     "Number of packets containing an error that were received on this port"},
    {"counters", "port_rcv_packets", "port_packets_received_total",
     "Number of packets received on all VLs by this port (including errors)"},
    {"counters", "port_xmit_packets", "port_packets_transmitted_total",
     "Number of packets transmitted on all VLs from this port (including errors)"},
    {"counters", "port_xmit_wait", "port_transmit_wait_total",
     "Number of ticks during which the port had data to transmit but no data was sent during the entire tick"},
    {"counters", "unicast_rcv_packets", "unicast_packets_received_total",
     "Number of unicast packets received (including errors)"},
    {"counters", "unicast_xmit_packets", "unicast_packets_transmitted_total",
     "Number of unicast packets transmitted (including errors)"},
    {"counters", "port_rcv_remote_physical_errors", "port_receive_remote_physical_errors_total",
     "Number of packets marked with the EBP (End of Bad Packet) delimiter received on the port."},
    {"counters", "port_rcv_switch_relay_errors", "port_receive_switch_relay_errors_total",
     "Number of packets that could not be forwarded by the switch."},
    {"counters", "symbol_error", "symbol_error_total",
     "Number of minor link errors detected on one or more physical lanes."},
    {"counters", "VL15_dropped", "vl15_dropped_total",
     "Number of incoming VL15 packets dropped due to resource limitations."},
};

Status bad(std::string_view what, std::string_view message) {
  return Status::error(std::string(what) + ": " + std::string(message));
}

}  // namespace

Expected<IbState> parse_ib_state(std::string_view text, std::string_view what) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
    return bad(what, "expected \"ID: NAME\", got \"" + std::string(sysfs_trimmed(text)) + "\"");
  std::string_view id = sysfs_trimmed(text.substr(0, colon));
  IbState out;
  out.name = std::string(sysfs_trimmed(text.substr(colon + 1)));
  // strconv.ParseUint(id, 10, 32)
  uint64_t v = 0;
  bool ok = !id.empty() && id.size() <= 10;
  for (char c : id) {
    if (c < '0' || c > '9') ok = false;
    if (ok) v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok || v > UINT32_MAX) return bad(what, "state id is not an unsigned integer: \"" + std::string(id) + "\"");
  out.id = static_cast<uint32_t>(v);
  return out;
}

Expected<uint64_t> parse_ib_rate(std::string_view text, std::string_view what) {
  const size_t sp = text.find(' ');
  if (sp == std::string_view::npos)
    return bad(what, "expected \"<Gb/s> Gb/sec (...)\", got \"" + std::string(sysfs_trimmed(text)) + "\"");
  std::string_view num = sysfs_trimmed(text.substr(0, sp));
  auto v = go::parse_float(num);
  // ParseFloat(s, 32): the value rounded to float32 (out of float32's range is an error).
  if (!v || std::isinf(static_cast<float>(*v)) || std::isnan(*v) || *v < 0)
    return bad(what, "rate is not a number: \"" + std::string(num) + "\"");
  const double gbps = static_cast<double>(static_cast<float>(*v));
  const double bytes = gbps * 125000000;
  if (bytes >= 18446744073709551616.0) return bad(what, "rate out of range: \"" + std::string(num) + "\"");
  return static_cast<uint64_t>(bytes);
}

std::span<const IbCounterSpec> ib_counter_specs() {
  return kSpecs;
}

size_t ib_counter_index(std::string_view dir, std::string_view file) {
  for (size_t i = 0; i < std::size(kSpecs); ++i)
    if (kSpecs[i].dir == dir && kSpecs[i].file == file) return i;
  return std::size(kSpecs);
}

Expected<std::optional<uint64_t>> parse_ib_counter(const IbCounterSpec& spec, std::string_view text,
                                                   std::string_view what) {
  std::string_view t = sysfs_trimmed(text);
  auto v = go::parse_uint(t);
  if (!v) {
    // procfs' workaround for kernels that write "N/A (no PMA)" (node_exporter issue 966).
    if (t.find("N/A (no PMA)") != std::string_view::npos) return std::optional<uint64_t>();
    return bad(what, "not an unsigned integer: \"" + std::string(t) + "\"");
  }
  return std::optional<uint64_t>(spec.times4 ? *v * 4 : *v);
}

}  // namespace llmon::procfs
