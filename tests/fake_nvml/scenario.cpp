// Strict scenario parser: every object's keys are checked (keys starting with '_' are comments), every error names
// its JSON pointer. Format: README.md in this directory.
#include "scenario.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fake_nvml {
namespace {

using nlohmann::json;

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& ptr, const std::string& what) {
  throw ParseError((ptr.empty() ? std::string("/") : ptr) + ": " + what);
}

std::string escape_pointer_token(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

// A JSON object being read: remembers which keys were consumed so that unknown (misspelt) keys are errors.
class Obj {
 public:
  Obj(const json& j, std::string ptr) : j_(j), ptr_(std::move(ptr)) {
    if (!j_.is_object()) fail(ptr_, "expected an object");
  }
  const json* get(const std::string& key) {
    seen_.insert(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  const json& need(const std::string& key) {
    const json* v = get(key);
    if (!v) fail(ptr_, "missing required key \"" + key + "\"");
    return *v;
  }
  std::string at(const std::string& key) const { return ptr_ + "/" + escape_pointer_token(key); }
  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (!it.key().empty() && it.key()[0] == '_') continue;
      if (!seen_.count(it.key())) fail(at(it.key()), "unknown key");
    }
  }
  const std::string& ptr() const { return ptr_; }

 private:
  const json& j_;
  std::string ptr_;
  std::set<std::string> seen_;
};

uint64_t as_u64(const json& j, const std::string& ptr) {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer()) return static_cast<uint64_t>(j.get<int64_t>());
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      size_t used = 0;
      try {
        uint64_t v = std::stoull(s.substr(2), &used, 16);
        if (used == s.size() - 2) return v;
      } catch (const std::exception&) {
      }
    }
    fail(ptr, "expected an integer or a \"0x...\" hex string, got \"" + s + "\"");
  }
  fail(ptr, std::string("expected an integer, got ") + j.type_name());
}

unsigned as_uint(const json& j, const std::string& ptr) {
  uint64_t v = as_u64(j, ptr);
  if (v > UINT_MAX) fail(ptr, "value does not fit in 32 bits");
  return static_cast<unsigned>(v);
}

std::string as_string(const json& j, const std::string& ptr) {
  if (!j.is_string()) fail(ptr, std::string("expected a string, got ") + j.type_name());
  return j.get<std::string>();
}

std::optional<uint64_t> as_opt_u64(const json& j, const std::string& ptr) {
  if (j.is_null()) return std::nullopt;
  return as_u64(j, ptr);
}

Series parse_series(const json& j, const std::string& ptr) {
  if (j.is_array()) {
    if (j.empty()) fail(ptr, "empty array");
    std::vector<std::optional<uint64_t>> v;
    for (size_t i = 0; i < j.size(); ++i) v.push_back(as_opt_u64(j[i], ptr + "/" + std::to_string(i)));
    return Series::array(std::move(v));
  }
  if (j.is_object()) {
    Obj o(j, ptr);
    uint64_t start = as_u64(o.need("start"), o.at("start"));
    uint64_t step = as_u64(o.need("step"), o.at("step"));
    o.finish();
    return Series::counter(start, step);
  }
  return Series::constant(as_opt_u64(j, ptr));
}

std::optional<double> as_opt_real(const json& j, const std::string& ptr) {
  if (j.is_null()) return std::nullopt;
  if (!j.is_number()) fail(ptr, std::string("expected a number, got ") + j.type_name());
  return j.get<double>();
}

RealSeries parse_real_series(const json& j, const std::string& ptr) {
  std::vector<std::optional<double>> v;
  if (j.is_array()) {
    if (j.empty()) fail(ptr, "empty array");
    for (size_t i = 0; i < j.size(); ++i) v.push_back(as_opt_real(j[i], ptr + "/" + std::to_string(i)));
  } else {
    v.push_back(as_opt_real(j, ptr));
  }
  return RealSeries(std::move(v));
}

// {"values": {...}} of a MIG instance, or {"supported": bool, "values": {...}} of a GPU.
GpmValues parse_gpm(const json& j, const std::string& ptr, bool* supported) {
  Obj o(j, ptr);
  GpmValues out;
  if (supported) {
    *supported = true;
    if (const json* v = o.get("supported")) {
      if (!v->is_boolean()) fail(o.at("supported"), std::string("expected true or false, got ") + v->type_name());
      *supported = v->get<bool>();
    }
  }
  if (const json* v = o.get("values")) {
    Obj vo(*v, o.at("values"));
    for (int k = 0; k < kGpmKeyCount; ++k) {
      const std::string key(gpm_key_name(static_cast<GpmKey>(k)));
      if (const json* e = vo.get(key)) out[k] = parse_real_series(*e, vo.at(key));
    }
    vo.finish();
  }
  o.finish();
  return out;
}

std::optional<Series> opt_series(Obj& o, const std::string& key) {
  const json* v = o.get(key);
  if (!v) return std::nullopt;
  return parse_series(*v, o.at(key));
}

TickRange parse_range(Obj& o, const char* from_key, const char* to_key) {
  TickRange r;
  if (const json* v = o.get(from_key)) r.from = as_u64(*v, o.at(from_key));
  if (const json* v = o.get(to_key)) {
    r.to = as_u64(*v, o.at(to_key));
    if (*r.to < r.from) fail(o.at(to_key), std::string(to_key) + " is before " + from_key);
  }
  return r;
}

template <typename T, typename F>
std::vector<T> parse_list(Obj& parent, const std::string& key, F&& each) {
  std::vector<T> out;
  const json* v = parent.get(key);
  if (!v) return out;
  const std::string ptr = parent.at(key);
  if (!v->is_array()) fail(ptr, std::string("expected an array, got ") + v->type_name());
  for (size_t i = 0; i < v->size(); ++i) {
    Obj o((*v)[i], ptr + "/" + std::to_string(i));
    out.push_back(each(o));
    o.finish();
  }
  return out;
}

nvmlReturn_t parse_code(const json& j, const std::string& ptr) {
  if (j.is_string()) {
    auto c = return_code_from_name(j.get<std::string>());
    if (!c) fail(ptr, "unknown nvmlReturn_t name \"" + j.get<std::string>() + "\"");
    return *c;
  }
  return static_cast<nvmlReturn_t>(as_uint(j, ptr));
}

FunctionMatch parse_function(Obj& o) {
  std::string f = as_string(o.need("function"), o.at("function"));
  if (f.rfind("nvml", 0) != 0) fail(o.at("function"), "function names start with \"nvml\"");
  return FunctionMatch{f};
}

std::vector<ErrorInjection> parse_errors(Obj& parent) {
  return parse_list<ErrorInjection>(parent, "errors", [](Obj& o) {
    ErrorInjection e;
    e.function = parse_function(o);
    e.code = parse_code(o.need("code"), o.at("code"));
    e.ticks = parse_range(o, "from_tick", "to_tick");
    if (const json* f = o.get("field")) e.field = as_uint(*f, o.at("field"));
    return e;
  });
}

std::vector<Hang> parse_hangs(Obj& parent) {
  return parse_list<Hang>(parent, "hangs", [](Obj& o) {
    Hang h;
    h.function = parse_function(o);
    h.ticks = parse_range(o, "tick", "to_tick");
    if (!o.get("tick")) fail(o.ptr(), "missing required key \"tick\"");
    if (!h.ticks.to) h.ticks.to = h.ticks.from;  // one tick unless "to_tick" says otherwise
    h.ms = as_uint(o.need("ms"), o.at("ms"));
    return h;
  });
}

unsigned long long event_type_from_name(const std::string& name, const std::string& ptr) {
  static const std::pair<const char*, unsigned long long> kTypes[] = {
      {"sbe", nvmlEventTypeSingleBitEccError},
      {"dbe", nvmlEventTypeDoubleBitEccError},
      {"pstate", nvmlEventTypePState},
      {"xid", nvmlEventTypeXidCriticalError},
      {"clock", nvmlEventTypeClock},
      {"power_source", nvmlEventTypePowerSourceChange},
      {"mig_config", nvmlEventMigConfigChange},
      {"gpu_unavailable", nvmlEventTypeGpuUnavailableError},
  };
  for (const auto& [n, v] : kTypes)
    if (name == n) return v;
  fail(ptr, "unknown event type \"" + name + "\"");
}

Process parse_process(Obj& o) {
  Process p;
  p.pid = as_uint(o.need("pid"), o.at("pid"));
  if (const json* t = o.get("type")) {
    p.types = as_string(*t, o.at("type"));
    if (p.types.empty() || p.types.find_first_not_of("CGM") != std::string::npos)
      fail(o.at("type"), "type is one or more of \"C\", \"G\", \"M\"");
  }
  if (const json* m = o.get("used_memory"))
    p.used_memory = parse_series(*m, o.at("used_memory"));
  else
    fail(o.ptr(), "missing required key \"used_memory\" (use null for NVML_VALUE_NOT_AVAILABLE)");
  if (const json* v = o.get("gi")) p.gi = as_uint(*v, o.at("gi"));
  if (const json* v = o.get("ci")) p.ci = as_uint(*v, o.at("ci"));
  p.ticks = parse_range(o, "from_tick", "to_tick");
  p.sm = opt_series(o, "sm_util");
  p.mem = opt_series(o, "mem_util");
  p.enc = opt_series(o, "enc_util");
  p.dec = opt_series(o, "dec_util");
  return p;
}

Mig parse_mig(const json& j, const std::string& ptr) {
  Obj o(j, ptr);
  Mig m;
  m.mode = as_uint(o.need("mode"), o.at("mode"));
  m.pending_mode = m.mode;
  if (const json* v = o.get("pending_mode")) m.pending_mode = as_uint(*v, o.at("pending_mode"));
  m.max_devices = m.mode ? 7 : 0;
  if (const json* v = o.get("max_devices")) m.max_devices = as_uint(*v, o.at("max_devices"));
  unsigned next_slot = 0;
  m.instances = parse_list<MigInstance>(o, "instances", [&](Obj& io) {
    MigInstance in;
    in.slot = next_slot;
    if (const json* v = io.get("slot")) in.slot = as_uint(*v, io.at("slot"));
    next_slot = in.slot + 1;
    in.uuid = as_string(io.need("uuid"), io.at("uuid"));
    in.name = as_string(io.need("name"), io.at("name"));
    in.gi = as_uint(io.need("gi"), io.at("gi"));
    in.ci = as_uint(io.need("ci"), io.at("ci"));
    in.memory_total = opt_series(io, "memory_total_bytes");
    in.memory_used = opt_series(io, "memory_used_bytes");
    in.memory_reserved = opt_series(io, "memory_reserved_bytes");
    if (const json* v = io.get("gpm")) in.gpm = parse_gpm(*v, io.at("gpm"), nullptr);
    return in;
  });
  std::set<unsigned> slots;
  for (size_t i = 0; i < m.instances.size(); ++i) {
    if (m.instances[i].slot >= m.max_devices)
      fail(o.at("instances") + "/" + std::to_string(i), "slot is not below max_devices");
    if (!slots.insert(m.instances[i].slot).second)
      fail(o.at("instances") + "/" + std::to_string(i), "two instances in one slot");
  }
  o.finish();
  return m;
}

void parse_bus_id(const std::string& s, const std::string& ptr, Device& d) {
  unsigned dom = 0, bus = 0, dev = 0, fn = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4)
    fail(ptr, "bus_id is not \"DDDDDDDD:BB:DD.F\": \"" + s + "\"");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
  d.bus_id = buf;
  d.domain = dom;
  d.bus = bus;
  d.device = dev;
}

Device parse_device(Obj& o) {
  Device d;
  d.uuid = as_string(o.need("uuid"), o.at("uuid"));
  d.name = as_string(o.need("name"), o.at("name"));
  {
    Obj p(o.need("pci"), o.at("pci"));
    parse_bus_id(as_string(p.need("bus_id"), p.at("bus_id")), p.at("bus_id"), d);
    if (const json* v = p.get("domain")) d.domain = as_uint(*v, p.at("domain"));
    if (const json* v = p.get("bus")) d.bus = as_uint(*v, p.at("bus"));
    if (const json* v = p.get("device")) d.device = as_uint(*v, p.at("device"));
    d.pci_device_id = as_uint(p.need("pci_device_id"), p.at("pci_device_id"));
    if (const json* v = p.get("pci_subsystem_id")) d.pci_subsystem_id = as_uint(*v, p.at("pci_subsystem_id"));
    p.finish();
  }
  if (const json* v = o.get("minor_number")) d.minor_number = as_uint(*v, o.at("minor_number"));
  if (const json* v = o.get("values")) {
    Obj vo(*v, o.at("values"));
    for (int k = 0; k < kKeyCount; ++k) d.values[k] = opt_series(vo, std::string(value_key_name(static_cast<Key>(k))));
    vo.finish();
  }
  if (const json* v = o.get("gpm")) d.gpm = parse_gpm(*v, o.at("gpm"), &d.gpm_supported);
  if (const json* v = o.get("pcie_counter_type")) {
    std::string t = as_string(*v, o.at("pcie_counter_type"));
    if (t == "uint")
      d.pcie_counter_uint = true;
    else if (t != "ulonglong")
      fail(o.at("pcie_counter_type"), "expected \"uint\" or \"ulonglong\"");
  }
  d.supported_events = nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError | nvmlEventTypePState |
                       nvmlEventTypeXidCriticalError | nvmlEventTypeClock;
  if (const json* v = o.get("supported_events")) d.supported_events = as_u64(*v, o.at("supported_events"));
  d.lost = parse_list<TickRange>(o, "lost", [](Obj& lo) {
    if (!lo.get("from_tick")) fail(lo.ptr(), "missing required key \"from_tick\"");
    return parse_range(lo, "from_tick", "to_tick");
  });
  d.errors = parse_errors(o);
  d.hangs = parse_hangs(o);
  d.processes = parse_list<Process>(o, "processes", parse_process);
  if (const json* v = o.get("mig")) {
    d.mig = parse_mig(*v, o.at("mig"));
    d.mig_capable = true;
  }
  d.events = parse_list<Event>(o, "events", [](Obj& eo) {
    Event e;
    e.tick = as_u64(eo.need("tick"), eo.at("tick"));
    e.type = event_type_from_name(as_string(eo.need("type"), eo.at("type")), eo.at("type"));
    if (const json* x = eo.get("xid"))
      e.data = as_u64(*x, eo.at("xid"));
    else if (e.type == nvmlEventTypeXidCriticalError)
      fail(eo.ptr(), "an xid event needs \"xid\"");
    if (const json* v = eo.get("gi")) e.gi = as_uint(*v, eo.at("gi"));
    if (const json* v = eo.get("ci")) e.ci = as_uint(*v, eo.at("ci"));
    return e;
  });
  return d;
}

Scenario parse_root(const json& j) {
  Obj o(j, "");
  Scenario s;
  if (const json* v = o.get("driver_version")) s.driver_version = as_string(*v, o.at("driver_version"));
  if (const json* v = o.get("nvml_version")) s.nvml_version = as_string(*v, o.at("nvml_version"));
  if (const json* v = o.get("cuda_driver_version"))
    s.cuda_driver_version = static_cast<int>(as_uint(*v, o.at("cuda_driver_version")));
  if (const json* v = o.get("init_error")) s.init_error = parse_code(*v, o.at("init_error"));
  if (const json* v = o.get("process_stride")) {
    s.process_stride = as_uint(*v, o.at("process_stride"));
    if (s.process_stride != 24 && s.process_stride != 32) fail(o.at("process_stride"), "expected 24 or 32");
  }
  if (const json* v = o.get("field_timestamps")) {
    std::string t = as_string(*v, o.at("field_timestamps"));
    if (t == "wallclock")
      s.wallclock_timestamps = true;
    else if (t != "tick")
      fail(o.at("field_timestamps"), "expected \"tick\" or \"wallclock\"");
  }
  s.errors = parse_errors(o);
  s.hangs = parse_hangs(o);
  s.devices = parse_list<Device>(o, "devices", parse_device);
  o.finish();
  return s;
}

// clang-format off
constexpr std::string_view kKeyNames[] = {
    "gpu_util", "mem_util", "enc_util", "dec_util",
    "memory_total_bytes", "memory_reserved_bytes", "memory_used_bytes",
    "temperature_gpu", "temperature_memory",
    "temperature_shutdown", "temperature_slowdown", "temperature_mem_max", "temperature_gpu_max",
    "power_usage_mw", "power_average_mw", "power_instant_mw", "power_limit_enforced_mw", "power_limit_mgmt_mw",
    "power_limit_default_mw", "energy_mj",
    "clock_graphics_mhz", "clock_sm_mhz", "clock_mem_mhz", "clock_video_mhz",
    "clock_graphics_max_mhz", "clock_sm_max_mhz", "clock_mem_max_mhz", "clock_video_max_mhz",
    "clocks_event_reasons", "pstate", "fan_speed",
    "pcie_replay", "pcie_link_gen", "pcie_link_width", "pcie_link_gen_max", "pcie_link_width_max",
    "pcie_tx_kbps", "pcie_rx_kbps", "pcie_tx_bytes", "pcie_rx_bytes",
    "ecc_sbe_volatile", "ecc_dbe_volatile", "ecc_sbe_aggregate", "ecc_dbe_aggregate",
    "retired_sbe", "retired_dbe", "retired_pending",
    "remapped_cor", "remapped_unc", "remapped_pending", "remapped_failure",
    "nvlink_link_count", "nvlink_down_mask", "nvlink_tx_kib", "nvlink_rx_kib",
    "nvlink_crc_flit", "nvlink_crc_data", "nvlink_replay", "nvlink_recovery", "nvlink_ecc_data",
    "violation_power_ns", "violation_sync_boost_ns", "violation_sw_thermal_ns", "violation_hw_thermal_ns",
    "violation_hw_power_brake_ns",
    "gpu_recovery_action",
};
// clang-format on
static_assert(std::size(kKeyNames) == kKeyCount, "one JSON name per Key");

// clang-format off
constexpr std::string_view kGpmKeyNames[] = {
    "graphics_util", "sm_util", "sm_occupancy", "tensor_util", "dram_bw_util", "fp64_util", "fp32_util", "fp16_util",
    "pcie_tx_mib_per_sec", "pcie_rx_mib_per_sec", "nvlink_tx_mib_per_sec", "nvlink_rx_mib_per_sec",
};
// clang-format on
static_assert(std::size(kGpmKeyNames) == kGpmKeyCount, "one JSON name per GpmKey");

struct CodeName {
  nvmlReturn_t code;
  const char* name;
  const char* text;
};
constexpr CodeName kCodes[] = {
    {NVML_SUCCESS, "SUCCESS", "Success"},
    {NVML_ERROR_UNINITIALIZED, "UNINITIALIZED", "Uninitialized"},
    {NVML_ERROR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "Invalid Argument"},
    {NVML_ERROR_NOT_SUPPORTED, "NOT_SUPPORTED", "Not Supported"},
    {NVML_ERROR_NO_PERMISSION, "NO_PERMISSION", "Insufficient Permissions"},
    {NVML_ERROR_ALREADY_INITIALIZED, "ALREADY_INITIALIZED", "Already Initialized"},
    {NVML_ERROR_NOT_FOUND, "NOT_FOUND", "Not Found"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "INSUFFICIENT_SIZE", "Insufficient Size"},
    {NVML_ERROR_INSUFFICIENT_POWER, "INSUFFICIENT_POWER", "Insufficient External Power"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "DRIVER_NOT_LOADED", "Driver Not Loaded"},
    {NVML_ERROR_TIMEOUT, "TIMEOUT", "Timeout"},
    {NVML_ERROR_IRQ_ISSUE, "IRQ_ISSUE", "Interrupt Request Issue"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "LIBRARY_NOT_FOUND", "NVML Shared Library Not Found"},
    {NVML_ERROR_FUNCTION_NOT_FOUND, "FUNCTION_NOT_FOUND", "Function Not Found"},
    {NVML_ERROR_CORRUPTED_INFOROM, "CORRUPTED_INFOROM", "Corrupted infoROM"},
    {NVML_ERROR_GPU_IS_LOST, "GPU_IS_LOST", "GPU is lost"},
    {NVML_ERROR_RESET_REQUIRED, "RESET_REQUIRED", "GPU requires reset"},
    {NVML_ERROR_OPERATING_SYSTEM, "OPERATING_SYSTEM", "GPU access blocked by the operating system"},
    {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "LIB_RM_VERSION_MISMATCH", "Driver/library version mismatch"},
    {NVML_ERROR_IN_USE, "IN_USE", "In use by another client"},
    {NVML_ERROR_MEMORY, "MEMORY", "Insufficient Memory"},
    {NVML_ERROR_NO_DATA, "NO_DATA", "No data"},
    {NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, "VGPU_ECC_NOT_SUPPORTED", "vGPU ECC not supported"},
    {NVML_ERROR_INSUFFICIENT_RESOURCES, "INSUFFICIENT_RESOURCES", "Insufficient resources"},
    {NVML_ERROR_FREQ_NOT_SUPPORTED, "FREQ_NOT_SUPPORTED", "Frequency not supported"},
    {NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "ARGUMENT_VERSION_MISMATCH", "Argument version mismatch"},
    {NVML_ERROR_DEPRECATED, "DEPRECATED", "Deprecated"},
    {NVML_ERROR_NOT_READY, "NOT_READY", "Not Ready"},
    {NVML_ERROR_GPU_NOT_FOUND, "GPU_NOT_FOUND", "GPU not found"},
    {NVML_ERROR_INVALID_STATE, "INVALID_STATE", "Invalid state"},
    {NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, "RESET_TYPE_NOT_SUPPORTED", "Reset type not supported"},
    {NVML_ERROR_UNKNOWN, "UNKNOWN", "Unknown Error"},
};

}  // namespace

std::optional<uint64_t> Series::at(Tick t) const {
  if (counter_) return *values_[0] + step_ * t;
  return values_[t < values_.size() ? t : values_.size() - 1];
}

std::string_view value_key_name(Key k) {
  return kKeyNames[static_cast<int>(k)];
}

std::string_view gpm_key_name(GpmKey k) {
  return kGpmKeyNames[static_cast<int>(k)];
}

bool FunctionMatch::matches(std::string_view fn) const {
  if (!pattern.empty() && pattern.back() == '*')
    return fn.substr(0, pattern.size() - 1) == std::string_view(pattern).substr(0, pattern.size() - 1);
  return fn == pattern;
}

bool Device::lost_at(Tick t) const {
  for (const auto& r : lost)
    if (r.contains(t)) return true;
  return false;
}

std::optional<nvmlReturn_t> return_code_from_name(std::string_view name) {
  if (name.rfind("NVML_ERROR_", 0) == 0)
    name.remove_prefix(11);
  else if (name.rfind("NVML_", 0) == 0)
    name.remove_prefix(5);
  for (const auto& c : kCodes)
    if (name == c.name) return c.code;
  return std::nullopt;
}

const char* error_string(nvmlReturn_t r) {
  for (const auto& c : kCodes)
    if (c.code == r) return c.text;
  return "Unknown Error";
}

std::variant<Scenario, std::string> parse_scenario(std::string_view json_text) {
  json j;
  try {
    j = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    return std::string("invalid JSON: ") + e.what();
  }
  try {
    return parse_root(j);
  } catch (const ParseError& e) {
    return std::string(e.what());
  }
}

std::variant<Scenario, std::string> load_scenario_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return path + ": cannot open scenario file";
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return path + ": cannot read scenario file";
  auto r = parse_scenario(ss.str());
  if (auto* err = std::get_if<std::string>(&r)) return path + ": " + *err;
  return r;
}

}  // namespace fake_nvml
