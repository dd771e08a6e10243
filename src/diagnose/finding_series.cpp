#include "diagnose/finding_series.h"

#include <algorithm>

#include "model/metric.h"
#include "model/sample.h"

namespace llmon::diagnose {

Status FindingSeries::write(const Diagnosis& d, storage::Appender& app, int64_t t_ms) {
  std::vector<model::Labels> now;
  for (const Finding& f : d.findings) {
    // A finding about several GPUs ("6,7") is one series per GPU, so that
    // `gpu` keeps the values GPU series have (joins, Grafana variables).
    std::vector<std::string> gpus;
    if (auto g = f.subject.find("gpu"); g != f.subject.end()) {
      size_t pos = 0;
      while (pos <= g->second.size()) {
        size_t comma = g->second.find(',', pos);
        if (comma == std::string::npos) comma = g->second.size();
        gpus.push_back(g->second.substr(pos, comma - pos));
        pos = comma + 1;
      }
    }
    if (gpus.empty()) gpus.emplace_back();
    for (const std::string& gpu : gpus) {
      std::vector<model::Label> pairs = target_;
      pairs.push_back({"__name__", kFindingMetric});
      pairs.push_back({"kind", f.kind});
      pairs.push_back({"severity", std::string(severity_name(f.severity))});
      for (const auto& [k, v] : f.subject) {
        bool taken = false;
        for (const auto& p : pairs) taken = taken || p.name == k;
        if (!taken && model::is_valid_label_name(k)) pairs.push_back({k, k == "gpu" ? gpu : v});
      }
      auto labels = model::Labels::make(std::move(pairs));
      if (!labels) continue;
      if (std::find(now.begin(), now.end(), *labels) != now.end()) continue;  // two findings, one series
      now.push_back(std::move(*labels));
    }
  }
  for (const auto& l : now) {
    if (auto r = app.append(0, l, t_ms, 1); !r) return Status::error(r.error());
  }
  for (const auto& l : active_) {
    if (std::find(now.begin(), now.end(), l) != now.end()) continue;
    if (auto r = app.append(0, l, t_ms, model::stale_nan()); !r) return Status::error(r.error());
  }
  if (Status s = app.commit(); !s) return s;
  active_ = std::move(now);
  return Status::ok();
}

}  // namespace llmon::diagnose
