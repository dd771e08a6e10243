#include "procfs/hwmon.h"

#include "base/strings.h"
#include "base/utf8.h"

namespace llmon::procfs {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim_newlines(std::string_view s) {
  while (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  while (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<HwmonFilename> parse_hwmon_filename(std::string_view name) {
  size_t type_end = 0;
  while (type_end < name.size() && !is_digit(name[type_end])) ++type_end;
  if (type_end == 0) return std::nullopt;
  // Longest type first: type, then every digit, then "" or "_<something>".
  size_t id_end = type_end;
  while (id_end < name.size() && is_digit(name[id_end])) ++id_end;
  std::string_view rest = name.substr(id_end);
  if (rest.empty() || (rest.size() > 1 && rest[0] == '_')) {
    HwmonFilename f;
    f.type = name.substr(0, type_end);
    if (id_end > type_end) {
      auto n = base::parse_i64(name.substr(type_end, id_end - type_end));
      if (!n) return std::nullopt;  // Atoi overflow: node_exporter skips the file
      f.num = *n;
    }
    f.property = rest.empty() ? rest : rest.substr(1);
    return f;
  }
  // Backtrack: a shorter type is followed by a non-digit, so the id is empty
  // and the remainder must be "_<something>".
  for (size_t i = type_end - 1; i >= 1; --i) {
    if (name[i] == '_' && i + 1 < name.size()) {
      HwmonFilename f;
      f.type = name.substr(0, i);
      f.property = name.substr(i + 1);
      return f;
    }
  }
  return std::nullopt;
}

bool is_hwmon_sensor_type(std::string_view t) {
  static constexpr std::string_view kTypes[] = {
      "vrm",  "beep_enable", "update_interval", "in",     "cpu",      "fan",      "pwm",
      "temp", "curr",        "power",           "energy", "humidity", "intrusion"};
  for (auto k : kTypes)
    if (k == t) return true;
  return false;
}

std::string hwmon_clean_name(std::string_view s) {
  // Go lower-cases, then replaces each rune outside [a-z0-9:_] with '_': a
  // multi-byte character is one '_', every invalid byte is one '_'.
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (static_cast<unsigned char>(c) < 0x80) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      bool ok = (c >= 'a' && c <= 'z') || is_digit(c) || c == ':' || c == '_';
      out += ok ? c : '_';
      ++i;
      continue;
    }
    size_t n = base::utf8_sequence_length(s, i);
    out += '_';
    i += n == 0 ? 1 : n;
  }
  size_t b = 0, e = out.size();
  while (b < e && out[b] == '_') ++b;
  while (e > b && out[e - 1] == '_') --e;
  return out.substr(b, e - b);
}

std::string hwmon_chip_from_device_path(std::string_view p) {
  size_t slash = p.rfind('/');
  std::string_view dev_name = slash == std::string_view::npos ? p : p.substr(slash + 1);
  std::string_view prefix = slash == std::string_view::npos ? std::string_view() : p.substr(0, slash);
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  size_t s2 = prefix.rfind('/');
  std::string_view dev_type = s2 == std::string_view::npos ? prefix : prefix.substr(s2 + 1);
  std::string name = hwmon_clean_name(dev_name);
  std::string type = hwmon_clean_name(dev_type);
  if (!type.empty() && !name.empty()) return type + "_" + name;
  return name;
}

std::optional<HwmonMetric> hwmon_metric_for(std::string_view type, std::string_view element, bool has_bare) {
  // One metric: its full name, help, and value = raw * mul / div.
  auto metric = [](std::string name, std::string help, double mul = 1, double div = 1) {
    HwmonMetric m;
    m.name = std::move(name);
    m.help = std::move(help);
    m.mul = mul;
    m.div = div;
    return m;
  };
  if (type == "beep_enable") {
    if (!element.empty()) return std::nullopt;
    HwmonMetric m = metric("node_hwmon_beep_enabled", "Hardware beep enabled");
    m.beep_enable = true;
    return m;
  }
  if (type == "vrm") {
    if (!element.empty()) return std::nullopt;
    return metric("node_hwmon_voltage_regulator_version", "Hardware voltage regulator");
  }
  if (type == "update_interval") {
    if (!element.empty()) return std::nullopt;
    return metric("node_hwmon_update_interval_seconds", "Hardware monitor update interval", 0.001);
  }
  if (element == "label") return std::nullopt;

  std::string name = "node_hwmon_" + std::string(type);
  if (element == "input") {
    if (has_bare) name += "_input";
  } else if (!element.empty()) {
    name += "_" + hwmon_clean_name(element);
  }
  const std::string t(type);
  const std::string el(element);

  if (element == "fault" || element == "alarm") return metric(name, "Hardware sensor " + el + " status (" + t + ")");
  if (element == "beep") return metric(name + "_enabled", "Hardware monitor sensor has beeping enabled");
  if (type == "in" || type == "cpu") return metric(name + "_volts", "Hardware monitor for voltage (" + el + ")", 0.001);
  if (type == "temp" && element != "type")
    return metric(name + "_celsius",
                  "Hardware monitor for temperature (" + (el.empty() ? std::string("input") : el) + ")", 0.001);
  if (type == "curr") return metric(name + "_amps", "Hardware monitor for current (" + el + ")", 0.001);
  if (type == "energy") {
    HwmonMetric m = metric(name + "_joule_total", "Hardware monitor for joules used so far (" + el + ")", 1, 1e6);
    m.counter = true;
    return m;
  }
  if (type == "power" && element == "accuracy")
    return metric(name, "Hardware monitor power meter accuracy, as a ratio", 1, 1e6);
  if (type == "power" &&
      (element == "average_interval" || element == "average_interval_min" || element == "average_interval_max"))
    return metric(name + "_seconds", "Hardware monitor power usage update interval (" + el + ")", 0.001);
  if (type == "power") return metric(name + "_watt", "Hardware monitor for power usage in watts (" + el + ")", 1, 1e6);
  if (type == "humidity")
    return metric(name,
                  "Hardware monitor for humidity, as a ratio (multiply with 100.0 to get the humidity as a "
                  "percentage) (" +
                      el + ")",
                  1, 1e6);
  if (type == "fan" && (element == "input" || element == "min" || element == "max" || element == "target"))
    return metric(name + "_rpm", "Hardware monitor for fan revolutions per minute (" + el + ")");
  return metric(name, "Hardware monitor " + t + " element " + el);
}

std::optional<double> parse_hwmon_value(std::string_view raw) {
  return base::parse_double(trim_newlines(raw));
}

double hwmon_scaled(const HwmonMetric& m, double raw) {
  if (m.beep_enable) return raw == 1 ? 1 : 0;
  if (m.mul != 1) return raw * m.mul;
  if (m.div != 1) return raw / m.div;
  return raw;
}

}  // namespace llmon::procfs
