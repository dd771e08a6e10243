#include "diagnose/detector.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace llmon::diagnose {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kCritical:
      return "critical";
  }
  return "info";
}

std::map<std::string, double> default_gpu_prices() {
  // On-demand cloud list prices per GPU-hour, rounded (late 2026); override
  // with --diagnose.gpu-price.
  return {{"A10", 1.0}, {"L4", 0.8}, {"L40S", 1.6}, {"A100", 1.8}, {"H100", 2.5}, {"H200", 3.5}, {"B200", 5.0}};
}

Expected<std::map<std::string, double>> parse_gpu_prices(std::string_view text) {
  std::map<std::string, double> out = default_gpu_prices();
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    pos = comma == std::string_view::npos ? text.size() : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string price(eq == std::string_view::npos ? "" : item.substr(eq + 1));
    char* end = nullptr;
    double p = price.empty() ? -1 : std::strtod(price.c_str(), &end);
    if (eq == 0 || eq == std::string_view::npos || !end || *end != '\0' || !(p >= 0))
      return Status::error("--diagnose.gpu-price: \"" + std::string(item) + "\" is not MODEL=PRICE (e.g. H100=2.5)");
    out[std::string(item.substr(0, eq))] = p;
  }
  return out;
}

double gpu_price_for(const Options& o, std::string_view model_name) {
  double price = o.default_gpu_price;
  size_t best = 0;
  for (const auto& [key, p] : o.gpu_price) {
    if (key.size() > best && model_name.find(key) != std::string_view::npos) {
      best = key.size();
      price = p;
    }
  }
  return price;
}

std::string Context::sel(std::string_view name, std::string_view extra) const {
  std::string out(name);
  out += '{';
  out += options_.selector;
  if (!options_.selector.empty() && !extra.empty()) out += ',';
  out += extra;
  out += '}';
  return out;
}

std::string Context::window() const {
  return prom_duration(options_.window_ms);
}

int64_t Context::sub_step_ms() const {
  const int64_t step = std::max<int64_t>(15'000, options_.window_ms / 480);
  return (step + 14'999) / 15'000 * 15'000;  // whole multiples of 15 s
}

std::string Context::sub() const {
  return "[" + window() + ":" + prom_duration(sub_step_ms()) + "]";
}

std::string prom_duration(int64_t ms) {
  int64_t s = ms / 1000;
  char buf[32];
  if (s % 3600 == 0)
    std::snprintf(buf, sizeof buf, "%lldh", static_cast<long long>(s / 3600));
  else if (s % 60 == 0)
    std::snprintf(buf, sizeof buf, "%lldm", static_cast<long long>(s / 60));
  else
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  return buf;
}

promql::Vector Context::query(const std::string& expr) {
  auto r = source_.instant(expr, options_.t_ms);
  if (!r) {
    errors_.push_back(r.error());
    return {};
  }
  return std::move(*r);
}

Finding Context::finding(std::string_view kind, Severity severity) const {
  Finding f;
  f.kind = std::string(kind);
  f.severity = severity;
  f.start_ms = options_.t_ms - options_.window_ms;
  f.end_ms = options_.t_ms;
  return f;
}

std::map<std::string, std::string> subject_of(const promql::VectorSample& s,
                                              std::initializer_list<std::string_view> names) {
  std::map<std::string, std::string> out;
  for (std::string_view n : names) {
    std::string_view v = s.labels.get(n);
    if (!v.empty()) out.emplace(std::string(n), std::string(v));
  }
  return out;
}

double first_value(const promql::Vector& v, double fallback) {
  return v.empty() ? fallback : v[0].v;
}

namespace {
// Whether `fs_device` ("/dev/nvme1n1p1", "/dev/sda2") is `disk` ("nvme1n1",
// "sda") or one of its partitions.
bool on_disk(std::string_view fs_device, std::string_view disk) {
  std::string prefix = "/dev/" + std::string(disk);
  if (disk.empty() || fs_device.substr(0, prefix.size()) != prefix) return false;
  std::string_view rest = fs_device.substr(prefix.size());
  if (rest.empty()) return true;
  if (rest[0] == 'p')
    rest.remove_prefix(1);  // nvme0n1p1
  else if (disk.back() >= '0' && disk.back() <= '9')
    return false;  // nvme0n1 is not nvme0n10
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

std::string mountpoint_of(const promql::Vector& filesystems, std::string_view disk) {
  for (const auto& m : filesystems)
    if (on_disk(m.labels.get("device"), disk)) return std::string(m.labels.get("mountpoint"));
  return "";
}

const promql::VectorSample* find_by(const promql::Vector& v, std::string_view label, std::string_view value) {
  for (const auto& s : v)
    if (s.labels.get(label) == value) return &s;
  return nullptr;
}

}  // namespace llmon::diagnose
