// AMD GPUs through the amdgpu driver's sysfs files, without libdrm: pure
// parsers for the file formats, and AmdGpuReader, which finds the amdgpu cards
// under <sysfs>/class/drm and reads one sample of each per call. It is not the
// per-process side (that is fdinfo.h) and knows no metric names.
//
// Files (Documentation/gpu/amdgpu/thermal.rst and driver-misc.rst in the
// kernel; prometheus/procfs sysfs/class_drm_amdgpu.go reads the same):
//   class/drm/cardN/device/ gpu_busy_percent, mem_busy_percent ("37\n"),
//     mem_info_{vram,vis_vram,gtt}_{total,used} (bytes), unique_id, product_name,
//     vendor/device ("0x1002\n"), current_link_speed ("16.0 GT/s PCIe"),
//     current_link_width ("16"), pp_dpm_sclk/pp_dpm_mclk ("0: 500Mhz\n1: 1700Mhz *\n")
//   class/drm/cardN/device/hwmon/hwmonM/ tempK_input (m°C) and tempK_label
//     (edge, junction, mem), power1_average or power1_input and power1_cap (µW),
//     fan1_input (RPM), pwm1 and pwm1_max.
// A missing or unreadable file disables just that value. Value files stay open
// (base::CachedFile); the card list is re-walked when <sysfs>/class/drm changes,
// after a failed read, and every kRescanMs. One thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gpu/labels.h"
#include "procfs/fs.h"

namespace llmon::gpu::amd {

// ---- Pure parsers -------------------------------------------------------

// A one-number sysfs file: "37\n" (surrounding whitespace allowed).
Expected<uint64_t> parse_sysfs_u64(std::string_view text);
Expected<int64_t> parse_sysfs_i64(std::string_view text);
// A PCI id file: "0x740f\n" -> 0x740f.
Expected<uint32_t> parse_pci_id(std::string_view text);
// A one-line string file (product_name, unique_id): trimmed; empty or not
// printable ASCII -> error.
Expected<std::string> parse_sysfs_string(std::string_view text);
// current_link_speed: "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s PCIe" -> GT/s.
// "Unknown" and anything else -> error.
Expected<double> parse_link_speed_gts(std::string_view text);

struct DpmLevel {
  int index = 0;  // -1 for the deep-sleep level "S:"
  uint64_t mhz = 0;
  bool current = false;
};
struct DpmTable {
  std::vector<DpmLevel> levels;
  // The level marked '*' (the first one if several are), or none.
  std::optional<size_t> current;
};
// pp_dpm_sclk / pp_dpm_mclk / pp_dpm_*: one "<index|S>: <N>Mhz [*]" per line.
Expected<DpmTable> parse_dpm_levels(std::string_view text);

// "cardN" (a DRM primary node) -> N; connectors ("card0-DP-1"), render nodes
// ("renderD128") and anything else -> nullopt.
std::optional<uint32_t> parse_card_name(std::string_view name);

// The DRM fdinfo keys (Documentation/gpu/drm-usage-stats.rst) that matter
// here; other lines ("pos:", "flags:", "amd-*", "drm-engine-dma") are ignored.
enum class DrmEngine { kGfx, kCompute, kEnc, kDec };
inline constexpr size_t kDrmEngineCount = 4;
inline constexpr std::array<std::string_view, kDrmEngineCount> kDrmEngineNames = {"gfx", "compute", "enc", "dec"};

struct DrmFdinfo {
  std::string_view driver;  // "amdgpu"; views into the parsed text
  std::string_view pdev;    // "0000:03:00.0"
  std::optional<uint64_t> client_id;
  // drm-memory-<region> (amdgpu's key), else drm-resident-<region>; bytes.
  std::optional<uint64_t> vram_bytes;
  std::optional<uint64_t> gtt_bytes;
  std::array<std::optional<uint64_t>, kDrmEngineCount> engine_ns;
};
// "key:\tvalue" lines; the key may be followed by blanks before the tab
// ("drm-memory-gtt: \t2048 KiB"). Memory values: "<N>[ KiB| MiB| GiB]" (no
// unit: bytes); engine values "<N> ns". A bad value of a key used here is an
// error naming the line; unknown or malformed other lines are skipped.
Expected<DrmFdinfo> parse_drm_fdinfo(std::string_view text);

// ---- Reader ------------------------------------------------------------

struct AmdTemperature {
  std::string sensor;  // tempK_label ("edge", "junction", "mem"), else by K: edge, junction, mem, "tempK"
  double celsius = 0;
};

// One card's values in one call. Absent values are nullopt.
struct AmdGpuSample {
  DeviceIdentity id;  // gpu = index among amdgpu cards, device = "card0", pci_bus_id = "0000:03:00.0"
  std::optional<double> utilization_ratio;  // gpu_busy_percent / 100
  std::optional<double> memory_busy_ratio;  // mem_busy_percent / 100
  std::optional<double> vram_total_bytes, vram_used_bytes;
  std::optional<double> vis_vram_total_bytes, vis_vram_used_bytes;
  std::optional<double> gtt_total_bytes, gtt_used_bytes;
  std::vector<AmdTemperature> temperatures;  // in tempK order
  std::optional<double> power_watts;         // power1_average, else power1_input
  std::optional<double> power_limit_watts;   // power1_cap
  std::optional<double> fan_rpm;             // fan1_input
  std::optional<double> fan_ratio;           // pwm1 / pwm1_max
  std::optional<double> sclk_hz, mclk_hz;    // the current DPM level
  std::optional<double> pcie_link_speed_gts;
  std::optional<double> pcie_link_width;
};

class AmdGpuReader {
 public:
  static constexpr int64_t kRescanMs = 60'000;

  explicit AmdGpuReader(procfs::Fs fs);
  ~AmdGpuReader();
  AmdGpuReader(const AmdGpuReader&) = delete;
  AmdGpuReader& operator=(const AmdGpuReader&) = delete;

  // One sample per amdgpu card, in card-number order, into `out` (resized;
  // its storage is reused). `now_ms` drives the periodic re-walk. No
  // <sysfs>/class/drm: no cards, ok. An error only when it cannot be listed.
  Status read(int64_t now_ms, std::vector<AmdGpuSample>& out);

 private:
  struct Card;
  void rescan();
  bool read_card(Card& card, AmdGpuSample& s);

  procfs::Fs fs_;
  std::string class_dir_;
  std::string sig_, plan_sig_;
  std::vector<std::unique_ptr<Card>> cards_;
  int64_t scanned_ms_ = 0;
  bool scanned_ = false;
  bool stale_ = false;  // a read failed: re-walk next call
};

}  // namespace llmon::gpu::amd
