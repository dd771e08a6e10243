#include "summary/app_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace llmon::summary {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

void appendf(std::string& out, const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  out += buf;
}

std::string num(double v, const char* f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string seconds(double s) {
  if (std::isnan(s)) return "NaN";
  return s < 1 ? num(s * 1000, "%.3g ms") : num(s, "%.3g s");
}

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

// The headline cells in reading order.
std::string headline(const AppRow& a) {
  std::string out;
  auto get = [&](const char* k) -> const double* {
    auto it = a.values.find(k);
    return it == a.values.end() ? nullptr : &it->second;
  };
  auto cell = [&](const std::string& s) { out += (out.empty() ? "" : "  ") + s; };
  auto pair = [&](const char* label, const char* k1, const char* n1, const char* k2, const char* n2) {
    const double* a1 = get(k1);
    const double* a2 = get(k2);
    if (!a1 && !a2) return;
    std::string s = label;
    if (a1) s += std::string(" ") + n1 + " " + seconds(*a1);
    if (a2) s += std::string(" ") + n2 + " " + seconds(*a2);
    cell(s);
  };
  if (const double* v = get("running")) cell("running " + num(*v, "%.0f"));
  if (const double* v = get("waiting")) cell("waiting " + num(*v, "%.0f"));
  if (const double* v = get("kv_cache")) cell("KV " + num(*v * 100, "%.0f%%"));
  pair("TTFT", "ttft_p50", "p50", "ttft_p99", "p99");
  if (const double* v = get("tpot_p50")) cell("TPOT p50 " + seconds(*v));
  if (const double* v = get("gen_tps")) cell("gen " + num(*v, "%.4g") + " tok/s");
  if (const double* v = get("prompt_tps")) cell("prompt " + num(*v, "%.4g") + " tok/s");
  if (const double* v = get("step")) cell("step " + num(*v, "%.0f"));
  if (get("step_p50") || get("step_p90") || get("step_p99")) {
    std::string s = "step time";
    for (const char* k : {"step_p50", "step_p90", "step_p99"})
      if (const double* v = get(k)) s += std::string(" ") + (k + 5) + " " + seconds(*v);
    cell(s);
  }
  if (const double* v = get("loss")) cell("loss " + num(*v, "%.4g"));
  if (const double* v = get("train_tps")) cell(num(*v, "%.4g") + " tok/s");
  if (const double* v = get("train_sps")) cell(num(*v, "%.4g") + " samples/s");
  if (a.quantiles_since_start && (get("ttft_p50") || get("tpot_p50") || get("step_p50")))
    cell("(quantiles since start)");
  return out;
}

}  // namespace

void attach_gpus(std::vector<AppRow>& apps, const GpuSummary& g) {
  for (AppRow& a : apps) {
    a.gpus.clear();
    a.gpu_mem_bytes.clear();
    if (a.pid.empty()) continue;
    for (const GpuProcess& p : g.processes) {
      if (p.pid != a.pid || p.gpu.empty()) continue;
      if (std::find(a.gpus.begin(), a.gpus.end(), p.gpu) == a.gpus.end()) a.gpus.push_back(p.gpu);
      if (p.gpu_mem_bytes) a.gpu_mem_bytes[p.gpu] += *p.gpu_mem_bytes;
    }
  }
}

void format_apps_text(const std::vector<AppRow>& apps, const GpuSummary& g, std::string& out) {
  if (apps.empty()) return;
  appendf(out, "\nAPPS  %-16s %-22s %-8s %8s %-6s %s\n", "job", "instance", "engine", "pid", "health", "headline");
  for (const AppRow& a : apps) {
    std::string head = a.up ? headline(a) : a.error;
    if (a.up && head.empty()) head = std::to_string(a.samples) + " samples (no engine recognised)";
    appendf(out, "      %-16s %-22s %-8s %8s %-6s %s\n", or_dash(a.job).c_str(), or_dash(a.instance).c_str(),
            or_dash(a.engine).c_str(), or_dash(a.pid).c_str(), a.up ? "up" : "down", head.c_str());
    for (const std::string& idx : a.gpus) {
      const GpuRow* row = nullptr;
      for (const GpuRow& r : g.gpus)
        if (r.index == idx) row = &r;
      std::string line = "        on GPU " + idx;
      if (row && row->util_pct) line += num(*row->util_pct, "  util %.0f%%");
      if (row && row->mem_used_bytes && row->mem_total_bytes)
        line += num(*row->mem_used_bytes / kGiB, "  mem %.1f") + num(*row->mem_total_bytes / kGiB, "/%.1f GiB");
      if (auto it = a.gpu_mem_bytes.find(idx); it != a.gpu_mem_bytes.end())
        line += num(it->second / kGiB, "  (this process %.1f GiB)");
      out += line + "\n";
    }
  }
}

void add_apps_json(const std::vector<AppRow>& apps, nlohmann::json& j) {
  using nlohmann::json;
  json arr = json::array();
  for (const AppRow& a : apps) {
    json values = json::object();
    for (const auto& [k, v] : a.values) values[k] = std::isfinite(v) ? json(v) : json(nullptr);
    json mem = json::object();
    for (const auto& [k, v] : a.gpu_mem_bytes) mem[k] = v;
    arr.push_back({{"job", a.job},
                   {"instance", a.instance},
                   {"url", a.url},
                   {"health", a.up ? "up" : "down"},
                   {"error", a.error},
                   {"pid", a.pid},
                   {"command", a.command},
                   {"pod", a.pod},
                   {"namespace", a.namespace_},
                   {"engine", a.engine},
                   {"kind", a.kind},
                   {"models", a.models},
                   {"values", values},
                   {"quantiles_since_start", a.quantiles_since_start},
                   {"samples", a.samples},
                   {"gpus", a.gpus},
                   {"gpu_memory_bytes", mem}});
  }
  j["applications"] = arr;
}

}  // namespace llmon::summary
