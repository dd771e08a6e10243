// A hand-built HostSummary of an 8-GPU H100 host (training job, an inference
// server, one faulty GPU) and a GPU history, for the layout's golden screens.
#pragma once

#include <cmath>
#include <string>

#include "summary/host_summary.h"
#include "top/history.h"

namespace llmon::top::testing {

inline summary::HostSummary sample_host() {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  summary::HostSummary h;
  h.timestamp_ms = 1764763200000;
  h.interval_s = 1;
  h.hostname = "gpu-node-07";
  h.load1 = 12.5;
  h.load5 = 11.75;
  h.load15 = 9.25;
  summary::CpuUsage all;
  all.cpu = "all";
  all.busy_pct = 37.5;
  all.user_pct = 30;
  all.system_pct = 6;
  all.iowait_pct = 1.5;
  h.cpus.push_back(all);
  for (int i = 0; i < 32; ++i) {
    summary::CpuUsage c;
    c.cpu = std::to_string(i);
    c.busy_pct = (i * 37) % 101;
    h.cpus.push_back(c);
  }
  h.mem_total_bytes = 2048 * kGiB;
  h.mem_used_bytes = 700 * kGiB;
  h.mem_available_bytes = h.mem_total_bytes - h.mem_used_bytes;
  h.mem_used_pct = 100 * h.mem_used_bytes / h.mem_total_bytes;
  h.swap_total_bytes = 8 * kGiB;
  h.swap_used_bytes = 0.25 * kGiB;
  h.net = {{"lo", 5e6, 5e6, 0, 0, 0, 0}, {"eth0", 120e6, 35e6, 0, 0, 0, 0}, {"ib0", 2.4e9, 2.3e9, 0, 0, 0, 0}};
  h.disks = {{"nvme0n1", 850e6, 12e6, 0, 0, 64}, {"nvme1n1", 0, 4e6, 0, 0, 2}};
  summary::GpuBackendState nvml;
  nvml.backend = "nvml";
  nvml.up = true;
  h.gpus.backends.push_back(nvml);
  for (int i = 0; i < 8; ++i) {
    summary::GpuRow g;
    g.index = std::to_string(i);
    g.name = "NVIDIA H100 80GB HBM3";
    g.uuid = "GPU-0000000" + std::to_string(i);
    g.backend = "nvml";
    g.util_pct = i == 7 ? 0 : 90 + i;
    g.mem_total_bytes = 79.6 * kGiB;
    g.mem_used_bytes = i == 7 ? 0.5 * kGiB : (60 + i) * kGiB;
    g.mem_used_pct = 100 * *g.mem_used_bytes / *g.mem_total_bytes;
    g.temp_c = i == 3 ? 87 : 60 + i;
    g.power_w = i == 7 ? 70 : 640 + i * 5;
    g.power_limit_w = 700;
    g.sm_clock_mhz = i == 3 ? 1410 : 1980;
    g.pstate = 0;
    g.fan_pct = std::nullopt;
    g.pcie_gen = 5;
    g.pcie_width = 16;
    g.throttle_known = true;
    if (i == 3) g.throttle_reasons = {"sw_thermal_slowdown", "hw_thermal_slowdown"};
    if (i == 5) g.throttle_reasons = {"sw_power_cap"};
    if (i == 7) {
      g.throttle_reasons = {"gpu_idle"};
      g.last_xid = 79;
      g.ecc_dbe_volatile = 2;
      g.health_state = "unhealthy";
      g.health_action = "reset_gpu";
    }
    h.gpus.gpus.push_back(g);
  }
  auto proc = [&](std::string gpu, std::string pid, std::string user, std::string cmd, std::string container,
                  std::string pod, std::string ns, double mem_gib, double sm, double cpu, double rss_gib) {
    summary::GpuProcess p;
    p.gpu = std::move(gpu);
    p.pid = std::move(pid);
    p.user = std::move(user);
    p.command = std::move(cmd);
    p.container = std::move(container);
    p.pod = std::move(pod);
    p.namespace_ = std::move(ns);
    p.gpu_mem_bytes = mem_gib * kGiB;
    p.sm_pct = sm;
    p.cpu_pct = cpu;
    p.rss_bytes = rss_gib * kGiB;
    h.gpus.processes.push_back(p);
  };
  for (int i = 0; i < 6; ++i)
    proc(std::to_string(i), std::to_string(41000 + i), "alice",
         "python train.py --config llama3-70b.yaml --rank " + std::to_string(i),
         "3f2a9c1b7d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a", "", "", 58 + i, 88 + i, 101.5 + i,
         12 + 0.5 * i);
  proc("6", "52311", "vllm", "python -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3-8B", "vllm",
       "vllm-llama3-6d5f9", "inference", 66, 42, 35.2, 8.5);
  proc("6", "52388", "vllm", "python -m vllm.worker", "vllm", "vllm-llama3-6d5f9", "inference", 0.4, 1, 0.3, 1.2);
  proc("7", "9001", "bob", "./nccl-tests/build/all_reduce_perf -b 8 -e 8G", "", "", "", 0.5, 0, 0, 0.3);
  return h;
}

// 90 cycles of history: utilisation waves, memory ramps.
inline GpuHistory sample_history(const summary::HostSummary& h) {
  GpuHistory hist(300);
  for (int t = 0; t < 90; ++t) {
    summary::GpuSummary g = h.gpus;
    for (size_t i = 0; i < g.gpus.size(); ++i) {
      auto& r = g.gpus[i];
      double phase = t * 0.21 + static_cast<double>(i);
      r.util_pct = i == 7 ? 0.0 : std::round(50 + 45 * std::sin(phase));
      r.mem_used_pct = std::min(100.0, t * (0.8 + 0.05 * static_cast<double>(i)));
    }
    hist.record(g);
  }
  return hist;
}

}  // namespace llmon::top::testing
