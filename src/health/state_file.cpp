#include "health/state_file.h"

#include <nlohmann/json.hpp>

namespace llmon::health {
namespace {

using nlohmann::json;

const json* field(const json& j, const char* name, json::value_t type) {
  auto it = j.find(name);
  if (it == j.end()) return nullptr;
  if (it->type() != type && !(type == json::value_t::number_integer && it->is_number_unsigned())) return nullptr;
  return &*it;
}

bool get_string(const json& j, const char* name, std::string& out) {
  const json* f = field(j, name, json::value_t::string);
  if (!f) return false;
  out = f->get<std::string>();
  return true;
}

template <typename T>
bool get_int(const json& j, const char* name, T& out) {
  const json* f = field(j, name, json::value_t::number_integer);
  if (!f) return false;
  out = f->get<T>();
  return true;
}

Status decode_gpu(const json& g, GpuRecord& r) {
  if (!g.is_object()) return Status::error("not an object");
  if (!get_string(g, "uuid", r.ref.uuid) || r.ref.uuid.empty()) return Status::error("no string \"uuid\"");
  get_string(g, "gpu", r.ref.gpu);
  get_string(g, "pci_bus_id", r.ref.pci_bus_id);
  get_int(g, "set_healthy_ms", r.set_healthy_ms);
  if (const json* boots = field(g, "boots", json::value_t::array)) {
    for (const json& b : *boots) {
      uint32_t xid = 0;
      const json* seen = b.is_object() ? field(b, "seen", json::value_t::array) : nullptr;
      if (!seen || !get_int(b, "xid", xid)) return Status::error("boots: needs \"xid\" and \"seen\"");
      auto& list = r.boots[xid];
      for (const json& s : *seen) {
        BootSighting bs;
        if (!s.is_object() || !get_string(s, "boot_id", bs.boot_id) || !get_int(s, "last_ms", bs.last_ms))
          return Status::error("boots: xid " + std::to_string(xid) + ": needs \"boot_id\" and \"last_ms\"");
        list.push_back(std::move(bs));
      }
    }
  }
  if (const json* occ = field(g, "occurrences", json::value_t::array)) {
    for (const json& o : *occ) {
      Occurrence x;
      if (!o.is_object() || !get_int(o, "xid", x.xid) || !get_string(o, "boot_id", x.boot_id) ||
          !get_int(o, "first_ms", x.first_ms) || !get_int(o, "last_ms", x.last_ms))
        return Status::error("occurrences: needs \"xid\", \"boot_id\", \"first_ms\" and \"last_ms\"");
      get_int(o, "nvml_count", x.nvml_count);
      get_int(o, "kernel_count", x.kernel_count);
      get_string(o, "nvml_line", x.nvml_line);
      get_string(o, "kernel_line", x.kernel_line);
      get_string(o, "severity", x.severity);
      r.occurrences.push_back(std::move(x));
    }
  }
  get_string(g, "events_boot_id", r.events_boot_id);
  if (const json* events = field(g, "events", json::value_t::array)) {
    for (const json& e : *events) {
      Evidence x;
      std::string state, action;
      if (!e.is_object() || !get_int(e, "time_ms", x.time_ms) || !get_string(e, "kind", x.kind) ||
          !get_string(e, "state", state) || !get_string(e, "action", action))
        return Status::error("events: needs \"time_ms\", \"kind\", \"state\" and \"action\"");
      bool known_state = false;
      for (HealthState st : kAllStates)
        if (state_name(st) == state) x.state = st, known_state = true;
      auto a = parse_action(action);
      if (!known_state || !a)
        return Status::error("events: unknown state \"" + state + "\" or action \"" + action + "\"");
      x.action = *a;
      get_string(e, "detail", x.detail);
      get_string(e, "kernel_line", x.kernel_line);
      get_string(e, "sources", x.sources);
      r.events.push_back(std::move(x));
    }
  }
  return Status::ok();
}

}  // namespace

std::string state_file_path(const std::string& dir) {
  return dir + "/gpu-health.json";
}

std::string encode_state(const GpuRecords& gpus) {
  json list = json::array();
  for (const auto& [uuid, r] : gpus) {
    json boots = json::array();
    for (const auto& [xid, seen] : r.boots) {
      json s = json::array();
      for (const BootSighting& b : seen) s.push_back({{"boot_id", b.boot_id}, {"last_ms", b.last_ms}});
      boots.push_back({{"xid", xid}, {"seen", std::move(s)}});
    }
    json occ = json::array();
    for (const Occurrence& o : r.occurrences)
      occ.push_back({{"xid", o.xid},
                     {"boot_id", o.boot_id},
                     {"first_ms", o.first_ms},
                     {"last_ms", o.last_ms},
                     {"nvml_count", o.nvml_count},
                     {"kernel_count", o.kernel_count},
                     {"nvml_line", o.nvml_line},
                     {"kernel_line", o.kernel_line},
                     {"severity", o.severity}});
    json events = json::array();
    for (const Evidence& e : r.events)
      events.push_back({{"time_ms", e.time_ms},
                        {"kind", e.kind},
                        {"state", state_name(e.state)},
                        {"action", action_name(e.action)},
                        {"detail", e.detail},
                        {"kernel_line", e.kernel_line},
                        {"sources", e.sources}});
    list.push_back({{"uuid", uuid},
                    {"gpu", r.ref.gpu},
                    {"pci_bus_id", r.ref.pci_bus_id},
                    {"set_healthy_ms", r.set_healthy_ms},
                    {"boots", std::move(boots)},
                    {"occurrences", std::move(occ)},
                    {"events_boot_id", r.events_boot_id},
                    {"events", std::move(events)}});
  }
  // Lines are kernel text: replace invalid UTF-8 rather than throw.
  return json{{"version", 1}, {"gpus", std::move(list)}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

Expected<GpuRecords> decode_state(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::error("not a JSON object");
  int version = 0;
  if (!get_int(j, "version", version) || version != 1) return Status::error("unknown version");
  const json* gpus = field(j, "gpus", json::value_t::array);
  if (!gpus) return Status::error("no \"gpus\" array");
  GpuRecords out;
  size_t i = 0;
  for (const json& g : *gpus) {
    ++i;
    GpuRecord r;
    if (Status st = decode_gpu(g, r); !st) return st.with_context("gpu " + std::to_string(i));
    std::string uuid = r.ref.uuid;
    out[uuid] = std::move(r);
  }
  return out;
}

}  // namespace llmon::health
