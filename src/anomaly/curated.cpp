#include "anomaly/curated.h"

namespace llmon::anomaly {

const std::vector<Metric>& curated_metrics() {
  static const std::vector<Metric> kMetrics = {
      {"gpu_util", "avg_over_time(DCGM_FI_DEV_GPU_UTIL{S,GPU_I_ID=\"\"}[1m])", 5},
      {"sm_active", "avg_over_time(DCGM_FI_PROF_SM_ACTIVE{S,GPU_I_ID=\"\"}[1m])", 0.05},
      {"power", "avg_over_time(DCGM_FI_DEV_POWER_USAGE{S,GPU_I_ID=\"\"}[1m])", 15},
      {"temp", "avg_over_time(DCGM_FI_DEV_GPU_TEMP{S,GPU_I_ID=\"\"}[1m])", 1.5},
      {"fb_used", "avg_over_time(DCGM_FI_DEV_FB_USED{S,GPU_I_ID=\"\"}[1m])", 512},
      {"cpu_busy", "1 - avg without (cpu, mode) (rate(node_cpu_seconds_total{S,mode=\"idle\"}[1m]))", 0.03},
      {"iowait", "avg without (cpu, mode) (rate(node_cpu_seconds_total{S,mode=\"iowait\"}[1m]))", 0.02},
      {"net_rx", "rate(node_network_receive_bytes_total{S,device!=\"lo\"}[1m])", 2e6},
      {"net_tx", "rate(node_network_transmit_bytes_total{S,device!=\"lo\"}[1m])", 2e6},
      {"disk_bytes", "rate(node_disk_read_bytes_total{S}[1m]) + rate(node_disk_written_bytes_total{S}[1m])", 5e6},
      {"step_time", "rate(train_step_duration_seconds_sum{S}[1m]) / rate(train_step_duration_seconds_count{S}[1m])",
       0.01},
  };
  return kMetrics;
}

std::string with_selector(std::string_view expr, std::string_view selector) {
  std::string out;
  out.reserve(expr.size() + 4 * selector.size());
  for (size_t i = 0; i < expr.size(); ++i) {
    if (expr[i] == 'S' && i > 0 && expr[i - 1] == '{') {
      bool more = i + 1 < expr.size() && expr[i + 1] == ',';
      out += selector;
      if (more && selector.empty()) ++i;  // "{S," with no selector: drop the comma
      continue;
    }
    out += expr[i];
  }
  return out;
}

}  // namespace llmon::anomaly
