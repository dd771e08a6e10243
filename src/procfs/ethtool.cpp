#include "procfs/ethtool.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "procfs/powercap.h"  // sanitize_metric_name (node_exporter's SanitizeMetricName)

namespace llmon::procfs {
namespace {

// Go's regexp.ReplaceAllString(s, `(^|_)word(_|$)` -> "${1}repl${2}"): leftmost
// matches, not overlapping, so the '_' a match ends with cannot start the next.
std::string replace_word(const std::string& s, std::string_view word, std::string_view repl) {
  std::string out;
  out.reserve(s.size() + 16);
  size_t i = 0;
  while (i < s.size()) {
    const bool lead = s[i] == '_';
    const size_t w = lead ? i + 1 : i;
    if ((i == 0 || lead) && s.compare(w, word.size(), word) == 0 &&
        (w + word.size() == s.size() || s[w + word.size()] == '_')) {
      if (lead) out += '_';
      out.append(repl);
      i = w + word.size();
      if (i < s.size()) {  // the trailing '_' belongs to the match
        out += '_';
        ++i;
      }
      continue;
    }
    out += s[i++];
  }
  return out;
}

// bit order; ethtool_speed_modes() sorts them by labels.
constexpr EthtoolSpeedMode kSpeedModes[] = {
    {0, 10, "half", "10baseT"},
    {1, 10, "full", "10baseT"},
    {2, 100, "half", "100baseT"},
    {3, 100, "full", "100baseT"},
    {4, 1000, "half", "1000baseT"},
    {5, 1000, "full", "1000baseT"},
    {12, 10000, "full", "10000baseT"},
    {17, 1000, "full", "1000baseKX"},
    {18, 10000, "full", "10000baseKX4"},
    {19, 10000, "full", "10000baseKR"},
    {20, 10000, "full", "10000baseR_FEC"},
    {21, 20000, "full", "20000baseMLD2"},
    {22, 20000, "full", "20000baseKR2"},
    {23, 40000, "full", "40000baseKR4"},
    {24, 40000, "full", "40000baseCR4"},
    {25, 40000, "full", "40000baseSR4"},
    {26, 40000, "full", "40000baseLR4"},
    {27, 56000, "full", "56000baseKR4"},
    {28, 56000, "full", "56000baseCR4"},
    {29, 56000, "full", "56000baseSR4"},
    {30, 56000, "full", "56000baseLR4"},
    {31, 25000, "full", "25000baseCR"},
};

constexpr EthtoolPortType kPortTypes[] = {
    {8, "AUI"}, {11, "BNC"}, {16, "Backplane"}, {10, "FIBRE"}, {9, "MII"}, {7, "TP"},
};

struct Predeclared {
  std::string_view stat, family, help;
};
constexpr Predeclared kPredeclared[] = {
    {"rx_bytes", "node_ethtool_received_bytes_total", "Network interface bytes received"},
    {"rx_dropped", "node_ethtool_received_dropped_total", "Number of received frames dropped"},
    {"rx_errors", "node_ethtool_received_errors_total", "Number of received frames with errors"},
    {"rx_packets", "node_ethtool_received_packets_total", "Network interface packets received"},
    {"tx_bytes", "node_ethtool_transmitted_bytes_total", "Network interface bytes sent"},
    {"tx_errors", "node_ethtool_transmitted_errors_total", "Number of sent frames with errors"},
    {"tx_packets", "node_ethtool_transmitted_packets_total", "Network interface packets sent"},
};

}  // namespace

std::string ethtool_stat_family(std::string_view stat) {
  std::string name = sanitize_metric_name(stat);
  for (char& c : name)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  name.erase(0, name.find_first_not_of('_'));
  if (name.empty()) return {};
  return "node_ethtool_" + replace_word(replace_word(name, "rx", "received"), "tx", "transmitted");
}

EthtoolStatName ethtool_stat_name(std::string_view stat) {
  for (const auto& p : kPredeclared)
    if (p.stat == stat) return {std::string(p.family), std::string(p.help)};
  return {ethtool_stat_family(stat), "Network interface " + std::string(stat)};
}

Status split_ethtool_strings(std::string_view blob, std::vector<std::string_view>& out) {
  out.clear();
  if (blob.size() % kEthtoolStringLen != 0)
    return Status::error("ETHTOOL_GSTRINGS: " + std::to_string(blob.size()) + " bytes is not a whole number of " +
                         std::to_string(kEthtoolStringLen) + "-byte names");
  out.reserve(blob.size() / kEthtoolStringLen);
  for (size_t off = 0; off < blob.size(); off += kEthtoolStringLen) {
    std::string_view rec = blob.substr(off, kEthtoolStringLen);
    out.push_back(rec.substr(0, std::min(rec.find('\0'), rec.size())));
  }
  return Status::ok();
}

std::span<const EthtoolSpeedMode> ethtool_speed_modes() {
  static const auto sorted = [] {
    std::array<EthtoolSpeedMode, std::size(kSpeedModes)> a;
    std::copy(std::begin(kSpeedModes), std::end(kSpeedModes), a.begin());
    std::sort(a.begin(), a.end(), [](const EthtoolSpeedMode& x, const EthtoolSpeedMode& y) {
      return std::pair(x.duplex, x.mode) < std::pair(y.duplex, y.mode);
    });
    return a;
  }();
  return sorted;
}

std::span<const EthtoolPortType> ethtool_port_types() {
  return kPortTypes;
}

}  // namespace llmon::procfs
