// The applications part of `llmon snapshot`: each scraped target (from
// --scrape.config or --scrape.discover=gpu-processes) with its headline
// numbers (scrape/app_headline.h, filled by the app) and the GPUs its
// process uses (joined here on pid with the GPU processes of the same
// cycles). Pure: rows in, text or JSON out.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "summary/gpu_summary.h"

namespace llmon::summary {

struct AppRow {
  std::string job, instance, url;
  bool up = false;
  std::string error;  // why not up
  std::string pid, command, pod, namespace_;
  std::string engine, kind;  // vllm ... / serving, training (empty: not recognised)
  std::vector<std::string> models;
  std::map<std::string, double, std::less<>> values;  // app_headline.h's keys
  bool quantiles_since_start = false;
  uint64_t samples = 0;
  // Filled by attach_gpus: the GPU indexes the pid holds memory on, and
  // what it holds there.
  std::vector<std::string> gpus;
  std::map<std::string, double> gpu_mem_bytes;  // by index
};

// Sets each row's gpus from the GPU processes with the same pid.
void attach_gpus(std::vector<AppRow>& apps, const GpuSummary& g);

// Appends the APPLICATIONS section (nothing without rows).
void format_apps_text(const std::vector<AppRow>& apps, const GpuSummary& g, std::string& out);
// Sets j["applications"] (an array, empty without rows).
void add_apps_json(const std::vector<AppRow>& apps, nlohmann::json& j);

}  // namespace llmon::summary
