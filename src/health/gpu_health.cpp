#include "health/gpu_health.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <set>

#include "base/atomic_file.h"
#include "base/file_reader.h"
#include "health/pci_address.h"

namespace llmon::health {
namespace {

std::string key_of(const GpuRef& g) {
  if (!g.uuid.empty()) return g.uuid;
  if (auto pci = normalize_bus_id(g.pci_bus_id)) return "pci:" + *pci;
  return "gpu:" + g.gpu;
}

bool same_gpu(const GpuRef& g, std::string_view text) {
  return g.uuid == text || g.gpu == text || (!g.pci_bus_id.empty() && same_bus_id(g.pci_bus_id, text));
}

Action recovery_action(uint32_t v) {
  switch (v) {
    case 0:
      return Action::kNone;
    case 1:
      return Action::kResetGpu;
    case 2:
      return Action::kReboot;
    case 3:
      return Action::kDrainP2p;
    case 4:
      return Action::kDrainAndReset;
    default:
      return Action::kActionNeeded;
  }
}

uint64_t index_number(const std::string& gpu) {
  uint64_t n = 0;
  for (char c : gpu) {
    if (c < '0' || c > '9') return UINT64_MAX;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return gpu.empty() ? UINT64_MAX : n;
}

}  // namespace

HealthTracker::HealthTracker(HealthOptions opts, const base::Clock& clock) : opts_(std::move(opts)), clock_(clock) {}

Status HealthTracker::load() {
  if (opts_.state_dir.empty()) return Status::ok();
  const std::string path = state_file_path(opts_.state_dir);
  std::string text;
  if (Status st = base::read_file(path, text); !st) {
    if (errno == ENOENT) return Status::ok();
    return st;
  }
  auto state = decode_state(text);
  if (!state) {
    const std::string aside = path + ".corrupt-" + std::to_string(clock_.now_ms());
    std::rename(path.c_str(), aside.c_str());
    return Status::error("GPU health state " + path + ": " + state.error() + "; moved to " + aside +
                         ", starting without history");
  }
  std::lock_guard lock(mu_);
  for (auto& [key, rec] : *state) {
    GpuRecord& r = gpus_[key];
    r.ref = rec.ref;
    r.occurrences = std::move(rec.occurrences);
    r.boots = std::move(rec.boots);
    r.set_healthy_ms = rec.set_healthy_ms;
    if (rec.events_boot_id == opts_.boot_id) {  // AER lines hold until the next boot
      r.events = std::move(rec.events);
      r.events_boot_id = rec.events_boot_id;
    }
  }
  return Status::ok();
}

Status HealthTracker::last_save_status() const {
  std::lock_guard lock(mu_);
  return save_status_;
}

void HealthTracker::save() {
  if (opts_.state_dir.empty()) return;
  save_status_ = base::write_file_atomic(state_file_path(opts_.state_dir), encode_state(gpus_));
}

void HealthTracker::set_gpus(const std::vector<GpuRef>& gpus) {
  std::vector<PendingLine> early;
  {
    std::lock_guard lock(mu_);
    present_ = gpus;
    for (const GpuRef& g : gpus) {
      auto it = gpus_.find(key_of(g));
      if (it != gpus_.end()) it->second.ref = g;
    }
    if (!gpus_known_) early.swap(pending_);
    gpus_known_ = true;
  }
  // Kernel lines read before NVML enumerated (the kernel log's backlog at
  // start) are mapped now.
  for (const PendingLine& p : early) observe_kernel_line(p.text, p.time_ms, p.boot_id);
}

GpuRecord& HealthTracker::record(const GpuRef& gpu) {
  GpuRecord& r = gpus_[key_of(gpu)];
  if (!gpu.uuid.empty()) r.ref.uuid = gpu.uuid;
  if (!gpu.gpu.empty()) r.ref.gpu = gpu.gpu;
  if (!gpu.pci_bus_id.empty()) r.ref.pci_bus_id = gpu.pci_bus_id;
  return r;
}

GpuRecord* HealthTracker::find(std::string_view gpu) {
  for (const GpuRef& g : present_)
    if (same_gpu(g, gpu)) return &record(g);
  for (auto& [key, r] : gpus_)
    if (same_gpu(r.ref, gpu)) return &r;
  return nullptr;
}

std::optional<GpuRef> HealthTracker::gpu_by_pci(std::string_view pci) const {
  std::lock_guard lock(mu_);
  const GpuRef* g = gpu_at(pci);
  if (!g) return std::nullopt;
  return *g;
}

const GpuRef* HealthTracker::gpu_at(std::string_view pci) const {
  auto want = normalize_bus_id(pci);
  if (!want) return nullptr;
  for (const GpuRef& g : present_)
    if (normalize_bus_id(g.pci_bus_id) == want) return &g;
  return nullptr;
}

std::string HealthTracker::cut(std::string_view line) const {
  return std::string(line.substr(0, opts_.max_line_bytes));
}

XidObservation HealthTracker::observe_xid(const GpuRef& gpu, uint32_t xid, int64_t time_ms, XidSource source,
                                          std::string_view boot_id, std::string_view evidence) {
  std::lock_guard lock(mu_);
  return observe_xid_locked(gpu, xid, time_ms, source, boot_id, evidence, {});
}

XidObservation HealthTracker::observe_xid_locked(const GpuRef& gpu, uint32_t xid, int64_t time_ms, XidSource source,
                                                 std::string_view boot_id, std::string_view evidence,
                                                 std::string_view severity) {
  GpuRecord& r = record(gpu);
  XidObservation res;
  bool dirty = false;
  const int64_t w = opts_.merge_window_ms;
  auto match = std::find_if(r.occurrences.rbegin(), r.occurrences.rend(), [&](const Occurrence& o) {
    return o.xid == xid && o.boot_id == boot_id && time_ms >= o.first_ms - w && time_ms <= o.last_ms + w;
  });
  Occurrence* o;
  if (match == r.occurrences.rend()) {
    if (r.occurrences.size() >= opts_.max_occurrences_per_gpu)
      r.occurrences.erase(
          r.occurrences.begin(),
          r.occurrences.begin() + static_cast<long>(r.occurrences.size() - opts_.max_occurrences_per_gpu + 1));
    Occurrence fresh;
    fresh.xid = xid;
    fresh.boot_id = std::string(boot_id);
    fresh.first_ms = fresh.last_ms = time_ms;
    r.occurrences.push_back(std::move(fresh));
    o = &r.occurrences.back();
    res.new_occurrence = dirty = true;
  } else {
    o = &*match;
  }
  const bool nvml = source == XidSource::kNvml;
  uint64_t& mine = nvml ? o->nvml_count : o->kernel_count;
  const uint64_t other = nvml ? o->kernel_count : o->nvml_count;
  ++mine;
  res.counted = mine > other;
  std::string& line = nvml ? o->nvml_line : o->kernel_line;
  if (line.empty() && !evidence.empty()) {
    line = cut(evidence);
    dirty = true;
  }
  if (!severity.empty()) o->severity = std::string(severity);
  o->first_ms = std::min(o->first_ms, time_ms);
  o->last_ms = std::max(o->last_ms, time_ms);
  if (res.counted) ++r.xid_counts[xid];

  auto& boots = r.boots[xid];
  auto b = std::find_if(boots.begin(), boots.end(), [&](const BootSighting& s) { return s.boot_id == boot_id; });
  if (b == boots.end()) {
    if (boots.size() >= opts_.max_boots_per_xid) boots.erase(boots.begin());
    boots.push_back({std::string(boot_id), time_ms});
    dirty = true;
  } else {
    b->last_ms = std::max(b->last_ms, time_ms);
  }
  if (dirty) save();
  return res;
}

KernelLineResult HealthTracker::observe_kernel_line(std::string_view text, int64_t time_ms, std::string_view boot_id) {
  KernelLineResult res;
  res.line = parse_kernel_line(text);
  std::lock_guard lock(mu_);
  if (!gpus_known_ &&
      (std::holds_alternative<XidLine>(res.line) || std::holds_alternative<FallenOffBusLine>(res.line) ||
       std::holds_alternative<AerLine>(res.line))) {
    if (pending_.size() < opts_.max_pending_lines)
      pending_.push_back({std::string(text), time_ms, std::string(boot_id)});
    return res;
  }
  auto as_xid = [&](std::string_view pci, uint32_t xid, std::string_view severity) {
    res.xid = xid;
    const GpuRef* g = gpu_at(pci);
    if (!g) return;
    res.gpu = *g;
    res.observation = observe_xid_locked(*g, xid, time_ms, XidSource::kKernel, boot_id, text, severity);
  };
  if (const auto* x = std::get_if<XidLine>(&res.line)) {
    as_xid(x->pci, x->xid, x->severity);
  } else if (const auto* f = std::get_if<FallenOffBusLine>(&res.line)) {
    as_xid(f->pci, 79, {});
  } else if (const auto* a = std::get_if<AerLine>(&res.line)) {
    const GpuRef* g = gpu_at(a->device);
    if (!g) return res;
    res.gpu = *g;
    if (a->detail || boot_id != opts_.boot_id) return res;
    GpuRecord& r = record(*g);
    Evidence e;
    e.time_ms = time_ms;
    e.kind = "aer_line";
    e.kernel_line = cut(text);
    e.sources = "kernel";
    switch (a->severity) {
      case AerSeverity::kFatal:
        e.state = HealthState::kUnhealthy;
        e.action = Action::kReboot;
        break;
      case AerSeverity::kNonFatal:
        e.state = HealthState::kDegraded;
        e.action = Action::kInspectHardware;
        break;
      case AerSeverity::kCorrected:
        break;
    }
    e.detail = "PCIe AER " + std::string(aer_severity_name(a->severity)) + " error reported by " + a->reporter;
    if (r.events_boot_id != opts_.boot_id) r.events.clear();
    r.events_boot_id = opts_.boot_id;
    if (r.events.size() >= opts_.max_events_per_gpu) r.events.erase(r.events.begin());
    r.events.push_back(std::move(e));
    save();
  }
  return res;
}

void HealthTracker::set_condition(GpuRecord& r, const std::string& kind, bool active, std::string key,
                                  HealthState state, Action action, std::string detail, int64_t time_ms) {
  if (!active) {
    r.conditions.erase(kind);
    return;
  }
  Condition& c = r.conditions[kind];
  if (!c.active || c.key != key) c.since_ms = time_ms;
  c.active = true;
  c.key = std::move(key);
  c.state = state;
  c.action = action;
  c.detail = std::move(detail);
}

void HealthTracker::observe_recovery_action(const GpuRef& gpu, uint32_t value, int64_t time_ms) {
  std::lock_guard lock(mu_);
  const Action a = recovery_action(value);
  set_condition(record(gpu), "recovery_action", value != 0, std::to_string(value), HealthState::kUnhealthy, a,
                "NVML recovery action " + std::to_string(value) + " (" + std::string(action_name(a)) + ")", time_ms);
}

void HealthTracker::observe_ecc_uncorrectable(const GpuRef& gpu, uint64_t volatile_count, int64_t time_ms) {
  std::lock_guard lock(mu_);
  set_condition(record(gpu), "ecc_uncorrectable", volatile_count > 0, std::to_string(volatile_count),
                HealthState::kDegraded, Action::kResetGpu,
                std::to_string(volatile_count) + " uncorrectable ECC errors since the driver loaded", time_ms);
}

void HealthTracker::observe_row_remap(const GpuRef& gpu, bool pending, bool failed, int64_t time_ms) {
  std::lock_guard lock(mu_);
  GpuRecord& r = record(gpu);
  r.remap_known = true;
  set_condition(r, "row_remap_pending", pending, "1", HealthState::kDegraded, Action::kResetGpu,
                "row remapping pending: a reset activates it", time_ms);
  set_condition(r, "row_remap_failed", failed, "1", HealthState::kUnhealthy, Action::kInspectHardware,
                "row remapping failed: the memory has no spare rows left", time_ms);
}

void HealthTracker::observe_pcie_link(const GpuRef& gpu, const PcieLink& l, int64_t time_ms) {
  std::lock_guard lock(mu_);
  GpuRecord& r = record(gpu);
  const bool narrow = l.max_width > 0 && l.cur_width < l.max_width;
  const bool slow = l.busy && l.max_gen > 0 && l.cur_gen < l.max_gen;
  r.pcie_low_polls = narrow || slow ? r.pcie_low_polls + 1 : 0;
  const std::string text = "PCIe link gen " + std::to_string(l.cur_gen) + "/" + std::to_string(l.max_gen) + " width x" +
                           std::to_string(l.cur_width) + "/x" + std::to_string(l.max_width);
  set_condition(r, "pcie_link", r.pcie_low_polls >= opts_.pcie_debounce_polls, text, HealthState::kDegraded,
                Action::kInspectHardware, text + ": trained below its maximum", time_ms);
}

void HealthTracker::observe_aer(const GpuRef& gpu, const AerCounts& c, int64_t time_ms) {
  std::lock_guard lock(mu_);
  const std::string key =
      std::to_string(c.correctable) + "/" + std::to_string(c.nonfatal) + "/" + std::to_string(c.fatal);
  const std::string text = "PCIe AER since boot: " + std::to_string(c.correctable) + " corrected, " +
                           std::to_string(c.nonfatal) + " non-fatal, " + std::to_string(c.fatal) + " fatal";
  if (c.fatal > 0)
    set_condition(record(gpu), "aer", true, key, HealthState::kUnhealthy, Action::kReboot, text, time_ms);
  else if (c.nonfatal > 0 || c.correctable > opts_.aer_correctable_limit)
    set_condition(record(gpu), "aer", true, key, HealthState::kDegraded, Action::kInspectHardware, text, time_ms);
  else
    set_condition(record(gpu), "aer", false, key, HealthState::kHealthy, Action::kNone, text, time_ms);
}

void HealthTracker::observe_nvml_status(const GpuRef& gpu, NvmlStatus status, int64_t time_ms) {
  std::lock_guard lock(mu_);
  GpuRecord& r = record(gpu);
  if (status == NvmlStatus::kOk) {
    set_condition(r, "nvml_lost", false, "", HealthState::kHealthy, Action::kNone, "", time_ms);
    set_condition(r, "nvml_hung", false, "", HealthState::kHealthy, Action::kNone, "", time_ms);
  } else if (status == NvmlStatus::kLost) {
    set_condition(r, "nvml_lost", true, "1", HealthState::kUnhealthy, Action::kReboot,
                  "NVML answers GPU_IS_LOST: the GPU is gone from the bus", time_ms);
  } else {
    set_condition(r, "nvml_hung", true, "1", HealthState::kUnhealthy, Action::kResetGpu,
                  "an NVML call on this GPU did not return in time", time_ms);
  }
}

Status HealthTracker::set_healthy(std::string_view gpu) {
  std::lock_guard lock(mu_);
  GpuRecord* r = find(gpu);
  if (!r) return Status::no_data("no GPU \"" + std::string(gpu) + "\" (give its index, UUID or PCI address)");
  r->set_healthy_ms = clock_.now_ms();
  save();
  return save_status_;
}

HealthSnapshot HealthTracker::snapshot() const {
  std::lock_guard lock(mu_);
  HealthSnapshot snap;
  snap.time_ms = clock_.now_ms();
  snap.boot_id = opts_.boot_id;
  std::vector<const GpuRecord*> all;
  all.reserve(gpus_.size());
  for (const auto& [key, r] : gpus_) all.push_back(&r);
  std::set<std::string> listed;
  for (const GpuRef& g : present_) {
    auto it = gpus_.find(key_of(g));
    GpuRecord empty;
    empty.ref = g;
    const GpuRecord& r = it == gpus_.end() ? empty : it->second;
    snap.gpus.push_back(evaluate(r, all, opts_.eval, snap.time_ms, opts_.boot_id));
    listed.insert(key_of(g));
  }
  for (const auto& [key, r] : gpus_) {
    if (listed.count(key)) continue;
    GpuHealth h = evaluate(r, all, opts_.eval, snap.time_ms, opts_.boot_id);
    if (h.state != HealthState::kHealthy) snap.gpus.push_back(std::move(h));  // gone from NVML, not healthy
  }
  std::stable_sort(snap.gpus.begin(), snap.gpus.end(), [](const GpuHealth& a, const GpuHealth& b) {
    uint64_t x = index_number(a.gpu.gpu), y = index_number(b.gpu.gpu);
    return x != y ? x < y : a.gpu.uuid < b.gpu.uuid;
  });
  return snap;
}

}  // namespace llmon::health
