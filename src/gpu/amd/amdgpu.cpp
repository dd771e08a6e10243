#include "gpu/amd/amdgpu.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <span>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "base/strings.h"

namespace llmon::gpu::amd {

// ---- Parsers -------------------------------------------------------------

namespace {

std::string quoted(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string out = "\"";
  for (char c : s.substr(0, kMax)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > kMax) out += "...";
  out += '"';
  return out;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// "<N>" followed by an optional unit; `scale` per unit.
struct Unit {
  std::string_view name;
  uint64_t scale;
};

std::optional<uint64_t> parse_scaled(std::string_view v, std::span<const Unit> units) {
  auto f = base::split_fields(v);
  if (f.empty() || f.size() > 2) return std::nullopt;
  auto n = base::parse_u64(f[0]);
  if (!n) return std::nullopt;
  if (f.size() == 1) return *n;  // no unit: the base unit
  for (const auto& u : units) {
    if (f[1] != u.name) continue;
    if (u.scale != 0 && *n > UINT64_MAX / u.scale) return std::nullopt;
    return *n * u.scale;
  }
  return std::nullopt;
}

}  // namespace

Expected<uint64_t> parse_sysfs_u64(std::string_view text) {
  auto v = base::parse_u64(base::trim(text));
  if (!v) return Status::error("expected an unsigned integer, got " + quoted(text));
  return *v;
}

Expected<int64_t> parse_sysfs_i64(std::string_view text) {
  auto v = base::parse_i64(base::trim(text));
  if (!v) return Status::error("expected an integer, got " + quoted(text));
  return *v;
}

Expected<uint32_t> parse_pci_id(std::string_view text) {
  std::string_view t = base::trim(text);
  if (t.size() < 3 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X') || t.size() > 10)
    return Status::error("expected a PCI id like 0x1002, got " + quoted(text));
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), v, 16);
  if (ec != std::errc() || p != t.data() + t.size())
    return Status::error("expected a PCI id like 0x1002, got " + quoted(text));
  return v;
}

Expected<std::string> parse_sysfs_string(std::string_view text) {
  std::string_view t = base::trim(text);
  if (t.empty()) return Status::error("empty");
  for (char c : t)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      return Status::error("not printable ASCII: " + quoted(text));
  return std::string(t);
}

Expected<double> parse_link_speed_gts(std::string_view text) {
  auto f = base::split_fields(base::trim(text));
  if (f.size() < 2 || f[1] != "GT/s") return Status::error("expected \"<N> GT/s\", got " + quoted(text));
  auto v = base::parse_double(f[0]);
  if (!v || !std::isfinite(*v) || *v <= 0) return Status::error("expected \"<N> GT/s\", got " + quoted(text));
  return *v;
}

Expected<DpmTable> parse_dpm_levels(std::string_view text) {
  DpmTable out;
  base::LineIterator it(text);
  std::string_view line;
  while (it.next(line)) {
    std::string_view l = base::trim(line);
    if (l.empty()) continue;
    auto bad = [&](std::string_view why) {
      return Status::error("line " + std::to_string(it.line_no()) + ": " + std::string(why) + ": " + quoted(l));
    };
    size_t colon = l.find(':');
    if (colon == std::string_view::npos) return bad("expected \"<level>: <N>Mhz\"");
    std::string_view idx = base::trim(l.substr(0, colon));
    DpmLevel level;
    if (idx == "S") {
      level.index = -1;
    } else {
      auto n = base::parse_u64(idx);
      if (!n || *n > 1000) return bad("bad level index");
      level.index = static_cast<int>(*n);
    }
    auto f = base::split_fields(l.substr(colon + 1));
    if (f.empty() || f.size() > 2) return bad("expected \"<N>Mhz [*]\"");
    if (f.size() == 2) {
      if (f[1] != "*") return bad("expected '*' after the clock");
      level.current = true;
    }
    std::string_view clock = f[0];
    if (clock.size() > 1 && clock.back() == '*') {  // "1700Mhz*"
      clock.remove_suffix(1);
      if (level.current) return bad("two '*'");
      level.current = true;
    }
    size_t digits = 0;
    while (digits < clock.size() && is_digit(clock[digits])) ++digits;
    if (digits == 0 || !base::iequals(clock.substr(digits), "mhz")) return bad("expected a clock in Mhz");
    auto mhz = base::parse_u64(clock.substr(0, digits));
    if (!mhz) return bad("clock out of range");
    level.mhz = *mhz;
    if (level.current && !out.current) out.current = out.levels.size();
    out.levels.push_back(level);
  }
  if (out.levels.empty()) return Status::error("no DPM levels");
  return out;
}

std::optional<uint32_t> parse_card_name(std::string_view name) {
  if (!base::starts_with(name, "card") || name.size() == 4 || name.size() > 14) return std::nullopt;
  std::string_view n = name.substr(4);
  for (char c : n)
    if (!is_digit(c)) return std::nullopt;
  auto v = base::parse_u64(n);
  if (!v || *v > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

Expected<DrmFdinfo> parse_drm_fdinfo(std::string_view text) {
  static constexpr Unit kMemUnits[] = {
      {"B", 1}, {"KiB", 1024}, {"MiB", 1024ull * 1024}, {"GiB", 1024ull * 1024 * 1024}};
  static constexpr Unit kNs[] = {{"ns", 1}};
  DrmFdinfo out;
  std::optional<uint64_t> resident_vram, resident_gtt;
  base::LineIterator it(text);
  std::string_view line;
  while (it.next(line)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = base::trim(line.substr(0, colon));
    std::string_view value = base::trim(line.substr(colon + 1));
    if (!base::starts_with(key, "drm-")) continue;
    auto bad = [&] {
      return Status::error("line " + std::to_string(it.line_no()) + ": bad value for " + std::string(key) + ": " +
                           quoted(value));
    };
    auto memory = [&](std::optional<uint64_t>& dst) -> bool {
      dst = parse_scaled(value, kMemUnits);
      return dst.has_value();
    };
    if (key == "drm-driver") {
      out.driver = value;
    } else if (key == "drm-pdev") {
      out.pdev = value;
    } else if (key == "drm-client-id") {
      out.client_id = base::parse_u64(value);
      if (!out.client_id) return bad();
    } else if (key == "drm-memory-vram") {
      if (!memory(out.vram_bytes)) return bad();
    } else if (key == "drm-memory-gtt") {
      if (!memory(out.gtt_bytes)) return bad();
    } else if (key == "drm-resident-vram") {
      if (!memory(resident_vram)) return bad();
    } else if (key == "drm-resident-gtt") {
      if (!memory(resident_gtt)) return bad();
    } else if (base::starts_with(key, "drm-engine-")) {
      std::string_view engine = key.substr(11);
      for (size_t e = 0; e < kDrmEngineCount; ++e) {
        if (engine != kDrmEngineNames[e]) continue;
        out.engine_ns[e] = parse_scaled(value, kNs);
        if (!out.engine_ns[e]) return bad();
      }
    }
  }
  if (!out.vram_bytes) out.vram_bytes = resident_vram;
  if (!out.gtt_bytes) out.gtt_bytes = resident_gtt;
  return out;
}

// ---- Reader --------------------------------------------------------------

namespace {

enum Slot : size_t {
  kBusy,
  kMemBusy,
  kVramTotal,
  kVramUsed,
  kVisTotal,
  kVisUsed,
  kGttTotal,
  kGttUsed,
  kLinkSpeed,
  kLinkWidth,
  kSclk,
  kMclk,
  kPower,
  kPowerCap,
  kFanRpm,
  kPwm,
  kPwmMax,
  kSlotCount,
};

enum class Kind { kU64, kLinkSpeed, kDpm };

struct SlotFile {
  std::string_view name;
  Kind kind;
};

// Files under device/; the hwmon ones (kPower and after) are chosen in rescan.
constexpr SlotFile kDeviceFiles[] = {
    {"gpu_busy_percent", Kind::kU64},
    {"mem_busy_percent", Kind::kU64},
    {"mem_info_vram_total", Kind::kU64},
    {"mem_info_vram_used", Kind::kU64},
    {"mem_info_vis_vram_total", Kind::kU64},
    {"mem_info_vis_vram_used", Kind::kU64},
    {"mem_info_gtt_total", Kind::kU64},
    {"mem_info_gtt_used", Kind::kU64},
    {"current_link_speed", Kind::kLinkSpeed},
    {"current_link_width", Kind::kU64},
    {"pp_dpm_sclk", Kind::kDpm},
    {"pp_dpm_mclk", Kind::kDpm},
};
static_assert(std::size(kDeviceFiles) == kPower);

bool valid(Kind kind, std::string_view text) {
  switch (kind) {
    case Kind::kU64:
      return parse_sysfs_u64(text).has_value();
    case Kind::kLinkSpeed:
      return parse_link_speed_gts(text).has_value();
    case Kind::kDpm:
      return parse_dpm_levels(text).has_value();
  }
  return false;
}

// A CachedFile for path when it reads and parses now; else null.
std::unique_ptr<base::CachedFile> probe(const std::string& path, Kind kind) {
  if (base::stat_kind(path) != base::EntryKind::kFile) return nullptr;
  auto f = std::make_unique<base::CachedFile>(path);
  auto text = f->read();
  if (!text || !valid(kind, *text)) return nullptr;
  return f;
}

std::string basename(std::string_view p) {
  while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  size_t slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

std::optional<std::string> read_string(const std::string& path) {
  auto raw = base::read_file(path);
  if (!raw) return std::nullopt;
  auto s = parse_sysfs_string(*raw);
  if (!s) return std::nullopt;
  return std::move(*s);
}

std::optional<uint32_t> read_pci_id(const std::string& path) {
  auto raw = base::read_file(path);
  if (!raw) return std::nullopt;
  auto v = parse_pci_id(*raw);
  if (!v) return std::nullopt;
  return *v;
}

constexpr uint32_t kAmdVendorId = 0x1002;

// tempK_input files of an hwmon directory, by K.
std::vector<uint32_t> temp_indices(const std::string& hwmon) {
  std::vector<base::DirEntry> entries;
  std::vector<uint32_t> out;
  if (!base::list_dir(hwmon, entries)) return out;
  for (const auto& e : entries) {
    std::string_view n(e.name);
    if (!base::starts_with(n, "temp") || n.size() <= 10 || n.substr(n.size() - 6) != "_input") continue;
    auto k = base::parse_u64(n.substr(4, n.size() - 10));
    if (k && *k > 0 && *k < 1000) out.push_back(static_cast<uint32_t>(*k));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string default_temp_sensor(uint32_t k) {
  switch (k) {
    case 1:
      return "edge";
    case 2:
      return "junction";
    case 3:
      return "mem";
    default:
      return "temp" + std::to_string(k);
  }
}

}  // namespace

struct AmdGpuReader::Card {
  struct Temp {
    std::string sensor;
    base::CachedFile file;
  };
  DeviceIdentity id;
  std::array<std::unique_ptr<base::CachedFile>, kSlotCount> files;
  std::vector<Temp> temps;
};

AmdGpuReader::AmdGpuReader(procfs::Fs fs) : fs_(std::move(fs)), class_dir_(fs_.sys("class/drm")) {}
AmdGpuReader::~AmdGpuReader() = default;

void AmdGpuReader::rescan() {
  cards_.clear();
  std::vector<base::DirEntry> entries;
  if (!base::list_dir(class_dir_, entries)) return;
  std::vector<std::pair<uint32_t, std::string>> names;
  for (const auto& e : entries)
    if (auto n = parse_card_name(e.name)) names.emplace_back(*n, e.name);
  std::sort(names.begin(), names.end());

  for (const auto& [num, name] : names) {
    const std::string card_dir = class_dir_ + "/" + name;
    const std::string dev = card_dir + "/device";
    auto dev_link = base::read_link(dev);
    if (!dev_link || base::stat_kind(dev) != base::EntryKind::kDir) continue;
    bool amdgpu = false;
    if (auto drv = base::read_link(dev + "/driver")) {
      amdgpu = basename(*drv) == "amdgpu";
    } else {
      auto vendor = read_pci_id(dev + "/vendor");
      amdgpu =
          vendor && *vendor == kAmdVendorId && base::stat_kind(dev + "/gpu_busy_percent") == base::EntryKind::kFile;
    }
    if (!amdgpu) continue;

    auto card = std::make_unique<Card>();
    card->id.gpu = std::to_string(cards_.size());
    card->id.device = name;
    card->id.pci_bus_id = basename(*dev_link);
    card->id.uuid = read_string(dev + "/unique_id").value_or("");
    if (auto product = read_string(dev + "/product_name")) {
      card->id.model_name = std::move(*product);
    } else if (auto device_id = read_pci_id(dev + "/device")) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "AMD GPU 0x%04x", *device_id);
      card->id.model_name = buf;
    } else {
      card->id.model_name = "AMD GPU";
    }

    for (size_t i = 0; i < std::size(kDeviceFiles); ++i)
      card->files[i] = probe(dev + "/" + std::string(kDeviceFiles[i].name), kDeviceFiles[i].kind);

    // The first hwmon directory of the device.
    std::vector<base::DirEntry> hw;
    std::string hwmon;
    if (base::list_dir(dev + "/hwmon", hw))
      for (const auto& e : hw)
        if (base::starts_with(e.name, "hwmon")) {
          hwmon = dev + "/hwmon/" + e.name;
          break;
        }
    if (!hwmon.empty()) {
      card->files[kPower] = probe(hwmon + "/power1_average", Kind::kU64);
      if (!card->files[kPower]) card->files[kPower] = probe(hwmon + "/power1_input", Kind::kU64);
      card->files[kPowerCap] = probe(hwmon + "/power1_cap", Kind::kU64);
      card->files[kFanRpm] = probe(hwmon + "/fan1_input", Kind::kU64);
      card->files[kPwm] = probe(hwmon + "/pwm1", Kind::kU64);
      card->files[kPwmMax] = probe(hwmon + "/pwm1_max", Kind::kU64);
      for (uint32_t k : temp_indices(hwmon)) {
        const std::string base_name = hwmon + "/temp" + std::to_string(k);
        auto f = base::CachedFile(base_name + "_input");
        auto text = f.read();
        if (!text || !parse_sysfs_i64(*text)) continue;
        std::string sensor = read_string(base_name + "_label").value_or(default_temp_sensor(k));
        bool dup = std::any_of(card->temps.begin(), card->temps.end(),
                               [&](const Card::Temp& t) { return t.sensor == sensor; });
        if (dup) continue;  // one series per sensor name
        card->temps.push_back({std::move(sensor), std::move(f)});
      }
    }
    cards_.push_back(std::move(card));
  }
}

bool AmdGpuReader::read_card(Card& card, AmdGpuSample& s) {
  bool ok = true;
  // The file's text, or nullopt (a failed read asks for a re-walk).
  auto text = [&](Slot slot) -> std::optional<std::string_view> {
    auto& f = card.files[slot];
    if (!f) return std::nullopt;
    auto t = f->read();
    if (!t) {
      ok = false;
      return std::nullopt;
    }
    return *t;
  };
  auto number = [&](Slot slot) -> std::optional<double> {
    auto t = text(slot);
    if (!t) return std::nullopt;
    auto v = parse_sysfs_u64(*t);
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  auto dpm_hz = [&](Slot slot) -> std::optional<double> {
    auto t = text(slot);
    if (!t) return std::nullopt;
    auto table = parse_dpm_levels(*t);
    if (!table || !table->current) return std::nullopt;
    return static_cast<double>(table->levels[*table->current].mhz) * 1e6;
  };

  std::vector<AmdTemperature> temps = std::move(s.temperatures);  // keeps its storage
  s = AmdGpuSample();
  s.id = card.id;
  s.temperatures = std::move(temps);
  if (auto v = number(kBusy)) s.utilization_ratio = *v / 100;
  if (auto v = number(kMemBusy)) s.memory_busy_ratio = *v / 100;
  s.vram_total_bytes = number(kVramTotal);
  s.vram_used_bytes = number(kVramUsed);
  s.vis_vram_total_bytes = number(kVisTotal);
  s.vis_vram_used_bytes = number(kVisUsed);
  s.gtt_total_bytes = number(kGttTotal);
  s.gtt_used_bytes = number(kGttUsed);
  if (auto t = text(kLinkSpeed))
    if (auto v = parse_link_speed_gts(*t)) s.pcie_link_speed_gts = *v;
  s.pcie_link_width = number(kLinkWidth);
  s.sclk_hz = dpm_hz(kSclk);
  s.mclk_hz = dpm_hz(kMclk);
  if (auto v = number(kPower)) s.power_watts = *v / 1e6;
  if (auto v = number(kPowerCap)) s.power_limit_watts = *v / 1e6;
  s.fan_rpm = number(kFanRpm);
  auto pwm = number(kPwm);
  auto pwm_max = number(kPwmMax);
  if (pwm && pwm_max && *pwm_max > 0) s.fan_ratio = *pwm / *pwm_max;

  size_t n = 0;
  for (auto& t : card.temps) {
    auto raw = t.file.read();
    if (!raw) {
      ok = false;
      continue;
    }
    auto v = parse_sysfs_i64(*raw);
    if (!v) continue;
    if (n == s.temperatures.size()) s.temperatures.emplace_back();
    AmdTemperature& out = s.temperatures[n++];
    if (out.sensor != t.sensor) out.sensor = t.sensor;
    out.celsius = static_cast<double>(*v) / 1000;
  }
  s.temperatures.resize(n);
  return ok;
}

Status AmdGpuReader::read(int64_t now_ms, std::vector<AmdGpuSample>& out) {
  std::vector<base::DirEntry> entries;
  Status ls = base::list_dir(class_dir_, entries);
  if (!ls) {
    cards_.clear();
    out.clear();
    scanned_ = false;
    // No DRM class at all (no GPU driver loaded): nothing to report.
    if (base::stat_kind(class_dir_) == base::EntryKind::kMissing) return Status::ok();
    return ls;
  }
  // The card entries and their link targets: a changed target is a re-numbered device.
  sig_.clear();
  for (const auto& e : entries) {
    if (!parse_card_name(e.name)) continue;
    sig_ += e.name;
    sig_ += '\0';
    if (auto target = base::read_link(class_dir_ + "/" + e.name)) sig_ += *target;
    sig_ += '\n';
  }
  if (!scanned_ || stale_ || sig_ != plan_sig_ || now_ms - scanned_ms_ >= kRescanMs || now_ms < scanned_ms_) {
    rescan();
    plan_sig_ = sig_;
    scanned_ms_ = now_ms;
    scanned_ = true;
    stale_ = false;
  }
  out.resize(cards_.size());
  for (size_t i = 0; i < cards_.size(); ++i) {
    AmdGpuSample& s = out[i];
    if (!read_card(*cards_[i], s)) stale_ = true;
  }
  return Status::ok();
}

}  // namespace llmon::gpu::amd
