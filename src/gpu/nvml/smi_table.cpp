#include "gpu/nvml/smi_table.h"

#include <cctype>
#include <charconv>

namespace llmon::gpu::nvml {
namespace {

using T = model::MetricType;
constexpr T G = T::kGauge;
constexpr T C = T::kCounter;

const SmiDef kTable[] = {
    {V::kGpuUtil, "nvidia_smi_utilization_gpu_ratio", G, "utilization.gpu [%]"},
    {V::kMemCopyUtil, "nvidia_smi_utilization_memory_ratio", G, "utilization.memory [%]"},
    {V::kEncUtil, "nvidia_smi_utilization_encoder_ratio", G, "utilization.encoder [%]"},
    {V::kDecUtil, "nvidia_smi_utilization_decoder_ratio", G, "utilization.decoder [%]"},
    {V::kFbTotalBytes, "nvidia_smi_memory_total_bytes", G, "memory.total [MiB]"},
    {V::kFbFreeBytes, "nvidia_smi_memory_free_bytes", G, "memory.free [MiB]"},
    {V::kFbUsedBytes, "nvidia_smi_memory_used_bytes", G, "memory.used [MiB]"},
    {V::kFbReservedBytes, "nvidia_smi_memory_reserved_bytes", G, "memory.reserved [MiB]"},
    {V::kGpuTempC, "nvidia_smi_temperature_gpu", G, "temperature.gpu"},
    {V::kMemTempC, "nvidia_smi_temperature_memory", G, "temperature.memory"},
    {V::kPowerW, "nvidia_smi_power_draw_watts", G, "power.draw [W]"},
    {V::kPowerLimitMgmtW, "nvidia_smi_power_limit_watts", G, "power.limit [W]"},
    {V::kPowerLimitEnforcedW, "nvidia_smi_enforced_power_limit_watts", G, "enforced.power.limit [W]"},
    {V::kPowerLimitDefaultW, "nvidia_smi_power_default_limit_watts", G, "power.default_limit [W]"},
    {V::kSmClockHz, "nvidia_smi_clocks_current_sm_clock_hz", G, "clocks.current.sm [MHz]"},
    {V::kMemClockHz, "nvidia_smi_clocks_current_memory_clock_hz", G, "clocks.current.memory [MHz]"},
    {V::kSmClockMaxHz, "nvidia_smi_clocks_max_sm_clock_hz", G, "clocks.max.sm [MHz]"},
    {V::kGraphicsClockHz, "nvidia_smi_clocks_current_graphics_clock_hz", G, "clocks.current.graphics [MHz]"},
    {V::kGraphicsClockMaxHz, "nvidia_smi_clocks_max_graphics_clock_hz", G, "clocks.max.graphics [MHz]"},
    {V::kVideoClockHz, "nvidia_smi_clocks_current_video_clock_hz", G, "clocks.current.video [MHz]"},
    {V::kMemClockMaxHz, "nvidia_smi_clocks_max_memory_clock_hz", G, "clocks.max.memory [MHz]"},
    {V::kFanSpeed, "nvidia_smi_fan_speed_ratio", G, "fan.speed [%]"},
    {V::kPstate, "nvidia_smi_pstate", G, "pstate"},
    {V::kEccSbeVol, "nvidia_smi_ecc_errors_corrected_volatile_total", G, "ecc.errors.corrected.volatile.total"},
    {V::kEccDbeVol, "nvidia_smi_ecc_errors_uncorrected_volatile_total", G, "ecc.errors.uncorrected.volatile.total"},
    {V::kEccSbeAgg, "nvidia_smi_ecc_errors_corrected_aggregate_total", G, "ecc.errors.corrected.aggregate.total"},
    {V::kEccDbeAgg, "nvidia_smi_ecc_errors_uncorrected_aggregate_total", G, "ecc.errors.uncorrected.aggregate.total"},
    {V::kRemapCorrectable, "nvidia_smi_remapped_rows_correctable", G, "remapped_rows.correctable"},
    {V::kRemapUncorrectable, "nvidia_smi_remapped_rows_uncorrectable", G, "remapped_rows.uncorrectable"},
    {V::kRemapPending, "nvidia_smi_remapped_rows_pending", G, "remapped_rows.pending"},
    {V::kRemapFailure, "nvidia_smi_remapped_rows_failure", G, "remapped_rows.failure"},
    {V::kPcieLinkGen, "nvidia_smi_pcie_link_gen_current", G, "pcie.link.gen.current"},
    {V::kPcieLinkGenMax, "nvidia_smi_pcie_link_gen_max", G, "pcie.link.gen.max"},
    {V::kPcieLinkWidth, "nvidia_smi_pcie_link_width_current", G, "pcie.link.width.current"},
    {V::kPcieLinkWidthMax, "nvidia_smi_pcie_link_width_max", G, "pcie.link.width.max"},
    {V::kMigMode, "nvidia_smi_mig_mode_current", G, "mig.mode.current"},
    {V::kEventSwThermalS, "nvidia_smi_clocks_event_reasons_counters_sw_thermal_slowdown_seconds", G,
     "clocks_event_reasons_counters.sw_thermal_slowdown [us]"},
    {V::kEventHwThermalS, "nvidia_smi_clocks_event_reasons_counters_hw_thermal_slowdown_seconds", G,
     "clocks_event_reasons_counters.hw_thermal_slowdown [us]"},
    {V::kEventHwPowerBrakeS, "nvidia_smi_clocks_event_reasons_counters_hw_power_brake_slowdown_seconds", G,
     "clocks_event_reasons_counters.hw_power_brake_slowdown [us]"},
    // The exporter's NVML backend.
    {V::kEnergyJ, "nvidia_smi_energy_joules_total", C,
     "Total energy consumed by the GPU in joules since the driver was last loaded."},
    {V::kPcieTxBytesPerSec, "nvidia_smi_pcie_throughput_tx_bytes_per_second", G,
     "PCIe traffic transmitted by the GPU in bytes per second."},
    {V::kPcieRxBytesPerSec, "nvidia_smi_pcie_throughput_rx_bytes_per_second", G,
     "PCIe traffic received by the GPU in bytes per second."},
};

}  // namespace

std::span<const SmiDef> smi_table() {
  return kTable;
}

std::string smi_uuid(std::string_view nvml_uuid) {
  if (nvml_uuid.substr(0, 4) == "GPU-") nvml_uuid.remove_prefix(4);
  std::string out(nvml_uuid);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view smi_reason_stem(std::string_view driver_version) {
  int major = 0;
  auto [p, ec] = std::from_chars(driver_version.data(), driver_version.data() + driver_version.size(), major);
  (void)p;
  if (ec == std::errc() && major > 0 && major < 535) return "nvidia_smi_clocks_throttle_reasons_";
  return "nvidia_smi_clocks_event_reasons_";
}

}  // namespace llmon::gpu::nvml
