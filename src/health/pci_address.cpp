#include "health/pci_address.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "base/strings.h"

namespace llmon::health {
namespace {

std::optional<uint64_t> hex(std::string_view s, size_t max_digits) {
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace

std::optional<std::string> normalize_bus_id(std::string_view text) {
  text = base::trim(text);
  if (text.substr(0, 4) == "PCI:" || text.substr(0, 4) == "pci:") text.remove_prefix(4);
  std::string_view function = "0";
  if (size_t dot = text.rfind('.'); dot != std::string_view::npos) {
    function = text.substr(dot + 1);
    text = text.substr(0, dot);
  }
  const std::vector<std::string_view> parts = base::split(text, ':');
  if (parts.size() != 2 && parts.size() != 3) return std::nullopt;
  const size_t off = parts.size() - 2;
  std::optional<uint64_t> domain = off ? hex(parts[0], 8) : std::optional<uint64_t>(0);
  auto bus = hex(parts[off], 2), dev = hex(parts[off + 1], 2);
  auto fn = hex(function, 1);
  if (!domain || !bus || !dev || !fn || *dev > 0x1f || *fn > 7) return std::nullopt;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04llx:%02llx:%02llx.%llx", static_cast<unsigned long long>(*domain),
                static_cast<unsigned long long>(*bus), static_cast<unsigned long long>(*dev),
                static_cast<unsigned long long>(*fn));
  return std::string(buf);
}

bool same_bus_id(std::string_view a, std::string_view b) {
  auto x = normalize_bus_id(a), y = normalize_bus_id(b);
  return x && y && *x == *y;
}

}  // namespace llmon::health
