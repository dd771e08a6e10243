#include "procfs/net_class.h"

#include <array>

namespace llmon::procfs {
namespace {

using IntField = std::optional<int64_t> NetClassIface::*;
using TextField = std::string NetClassIface::*;

struct Attr {
  std::string_view file;
  IntField int_field;
  TextField text_field;
};

constexpr Attr kAttrs[] = {
    {"addr_assign_type", &NetClassIface::addr_assign_type, nullptr},
    {"address", nullptr, &NetClassIface::address},
    {"broadcast", nullptr, &NetClassIface::broadcast},
    {"carrier", &NetClassIface::carrier, nullptr},
    {"carrier_changes", &NetClassIface::carrier_changes, nullptr},
    {"carrier_down_count", &NetClassIface::carrier_down_count, nullptr},
    {"carrier_up_count", &NetClassIface::carrier_up_count, nullptr},
    {"dev_id", &NetClassIface::dev_id, nullptr},
    {"dormant", &NetClassIface::dormant, nullptr},
    {"duplex", nullptr, &NetClassIface::duplex},
    {"flags", &NetClassIface::flags, nullptr},
    {"ifalias", nullptr, &NetClassIface::ifalias},
    {"ifindex", &NetClassIface::ifindex, nullptr},
    {"iflink", &NetClassIface::iflink, nullptr},
    {"link_mode", &NetClassIface::link_mode, nullptr},
    {"mtu", &NetClassIface::mtu, nullptr},
    {"name_assign_type", &NetClassIface::name_assign_type, nullptr},
    {"netdev_group", &NetClassIface::netdev_group, nullptr},
    {"operstate", nullptr, &NetClassIface::operstate},
    {"speed", &NetClassIface::speed, nullptr},
    {"tx_queue_len", &NetClassIface::tx_queue_len, nullptr},
    {"type", &NetClassIface::type, nullptr},
};

static_assert(std::size(kAttrs) == kNetClassAttributeCount);

constexpr auto kFileNames = [] {
  std::array<std::string_view, std::size(kAttrs)> a{};
  for (size_t i = 0; i < a.size(); ++i) a[i] = kAttrs[i].file;
  return a;
}();

}  // namespace

void reset(NetClassIface& iface) {
  iface.name.clear();
  for (const auto& a : kAttrs) {
    if (a.int_field) (iface.*a.int_field).reset();
    if (a.text_field) (iface.*a.text_field).clear();
  }
}

std::span<const std::string_view> net_class_attribute_files() { return kFileNames; }

size_t net_class_attribute_index(std::string_view file) {
  for (size_t i = 0; i < std::size(kAttrs); ++i)
    if (kAttrs[i].file == file) return i;
  return kNetClassAttributeCount;
}

bool set_attribute_at(NetClassIface& iface, size_t index, std::string_view content) {
  if (index >= std::size(kAttrs)) return false;
  const Attr& a = kAttrs[index];
  std::string_view v = trim_go_space(content);
  if (a.text_field) {
    (iface.*a.text_field).assign(v.data(), v.size());
  } else {
    // procfs' ValueParser.PInt64 hands out a pointer to 0 when parsing fails.
    iface.*a.int_field = parse_go_int(v).value_or(0);
  }
  return true;
}

bool set_attribute(NetClassIface& iface, std::string_view file, std::string_view content) {
  return set_attribute_at(iface, net_class_attribute_index(file), content);
}

std::string_view trim_go_space(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace llmon::procfs
