#include "diagnose/anomaly_cite.h"

#include <algorithm>
#include <cstdio>

#include "anomaly/curated.h"
#include "anomaly/tracker.h"

namespace llmon::diagnose {

namespace {

// The curated metrics each kind may cite.
std::vector<std::string_view> related(std::string_view k) {
  if (k == kind::kStraggler || k == kind::kThermalThrottling || k == kind::kPowerThrottling ||
      k == kind::kCoolingDegradation || k == kind::kHardwareFault)
    return {"temp", "power", "gpu_util", "sm_active", "step_time"};
  if (k == kind::kGpuMemoryPressure || k == kind::kMemoryLeakGpu) return {"fb_used"};
  if (k == kind::kIdleGpu) return {"gpu_util", "sm_active", "power"};
  if (k == kind::kInputBoundCpu) return {"cpu_busy", "gpu_util", "step_time"};
  if (k == kind::kInputBoundIo) return {"iowait", "disk_bytes", "gpu_util", "step_time"};
  if (k == kind::kCommunicationBound) return {"net_rx", "net_tx", "gpu_util", "step_time"};
  if (k == kind::kDiskSaturation || k == kind::kCheckpointSlow) return {"disk_bytes", "iowait"};
  if (k == kind::kNetworkSaturation) return {"net_rx", "net_tx"};
  return {};
}

bool in_list(std::string_view list, std::string_view v) {
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string_view::npos) comma = list.size();
    if (list.substr(pos, comma - pos) == v) return true;
    pos = comma + 1;
  }
  return false;
}

// A series belongs to the finding's subject: its gpu among the finding's,
// its device the finding's device when both have one.
bool matches(const Finding& f, const anomaly::SeriesScore& s) {
  for (std::string_view key : {"gpu", "device"}) {
    std::string_view have = s.labels.get(key);
    if (have.empty()) continue;
    auto it = f.subject.find(std::string(key));
    if (it == f.subject.end()) {
      if (key == "gpu") return false;  // a GPU's series cites only for findings about GPUs
      continue;
    }
    if (!in_list(it->second, have)) return false;
  }
  return true;
}

std::string feature_expr(const anomaly::SeriesScore& s, const std::string& selector) {
  std::string sel = selector;
  for (std::string_view key : {"gpu", "device"}) {
    std::string_view v = s.labels.get(key);
    if (v.empty()) continue;
    if (!sel.empty()) sel += ",";
    sel += std::string(key) + "=\"" + std::string(v) + "\"";
  }
  for (const auto& m : anomaly::curated_metrics()) {
    if (m.name == s.metric) return anomaly::with_selector(m.expr, sel);
  }
  return s.metric;
}

}  // namespace

void cite_anomalies(Diagnosis& d, const anomaly::Scorer& scorer) {
  const int64_t since = d.options.t_ms - d.options.window_ms;
  auto anomalies = scorer.anomalies(since);
  if (anomalies.empty()) return;
  for (Finding& f : d.findings) {
    auto rel = related(f.kind);
    int cited = 0;
    for (const anomaly::SeriesScore* s : anomalies) {
      if (cited >= 4) break;
      if (std::find(rel.begin(), rel.end(), s->metric) == rel.end() || !matches(f, *s)) continue;
      char note[200];
      std::snprintf(note, sizeof note,
                    "anomaly: %s peaked at score %.2f (since %.0f s before the end) against its baseline "
                    "median %.4g, scale %.3g",
                    s->metric.c_str(), s->peak_score, static_cast<double>(d.options.t_ms - s->since_ms) / 1000.0,
                    s->centre, s->scale);
      f.evidence.push_back({feature_expr(*s, d.options.selector), s->value, note});
      ++cited;
    }
  }
}

void cite_anomalies(Diagnosis& d, promql::Engine& engine) {
  if (d.findings.empty()) return;
  anomaly::Tracker t(engine, d.options.selector);
  t.rebuild(d.options.t_ms - d.options.window_ms - kCiteHistoryMs, d.options.t_ms);
  cite_anomalies(d, t.scorer());
}

}  // namespace llmon::diagnose
