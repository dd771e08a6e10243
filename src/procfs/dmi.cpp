#include "procfs/dmi.h"

#include "base/utf8.h"
#include "procfs/thermal.h"

namespace llmon::procfs {
namespace {

constexpr DmiAttribute kAttrs[] = {
    {"bios_date", "bios_date"},
    {"bios_release", "bios_release"},
    {"bios_vendor", "bios_vendor"},
    {"bios_version", "bios_version"},
    {"board_asset_tag", "board_asset_tag"},
    {"board_name", "board_name"},
    {"board_serial", "board_serial"},
    {"board_vendor", "board_vendor"},
    {"board_version", "board_version"},
    {"chassis_asset_tag", "chassis_asset_tag"},
    {"chassis_serial", "chassis_serial"},
    {"chassis_vendor", "chassis_vendor"},
    {"chassis_version", "chassis_version"},
    {"product_family", "product_family"},
    {"product_name", "product_name"},
    {"product_serial", "product_serial"},
    {"product_sku", "product_sku"},
    {"product_uuid", "product_uuid"},
    {"product_version", "product_version"},
    {"sys_vendor", "system_vendor"},
};

}  // namespace

std::span<const DmiAttribute> dmi_attributes() {
  return kAttrs;
}

size_t dmi_attribute_index(std::string_view file) {
  for (size_t i = 0; i < std::size(kAttrs); ++i)
    if (kAttrs[i].file == file) return i;
  return std::size(kAttrs);
}

std::string dmi_value(std::string_view content) {
  return base::to_valid_utf8(sysfs_trimmed(content));
}

}  // namespace llmon::procfs
