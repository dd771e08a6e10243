#include "health/health_json.h"

#include <nlohmann/json.hpp>

namespace llmon::health {

std::string health_json(const HealthSnapshot& snap) {
  using nlohmann::json;
  json gpus = json::array();
  for (const GpuHealth& g : snap.gpus) {
    json evidence = json::array();
    for (const Evidence& e : g.evidence) {
      json j = {{"time_ms", e.time_ms},
                {"kind", e.kind},
                {"state", state_name(e.state)},
                {"action", action_name(e.action)},
                {"detail", e.detail}};
      if (e.xid != 0) {
        j["xid"] = e.xid;
        j["count"] = e.count;
      }
      if (!e.sources.empty()) j["sources"] = e.sources;
      if (!e.nvml_line.empty()) j["nvml_line"] = e.nvml_line;
      if (!e.kernel_line.empty()) j["kernel_line"] = e.kernel_line;
      evidence.push_back(std::move(j));
    }
    json xids = json::object();
    for (const auto& [xid, n] : g.xid_counts) xids[std::to_string(xid)] = n;
    gpus.push_back({{"gpu", g.gpu.gpu},
                    {"UUID", g.gpu.uuid},
                    {"pci_bus_id", g.gpu.pci_bus_id},
                    {"state", state_name(g.state)},
                    {"action", action_name(g.action)},
                    {"set_healthy_ms", g.set_healthy_ms},
                    {"xid_errors", std::move(xids)},
                    {"evidence", std::move(evidence)}});
  }
  json out = {{"time_ms", snap.time_ms}, {"boot_id", snap.boot_id}, {"gpus", std::move(gpus)}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace llmon::health
