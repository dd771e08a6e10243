#include "health/health_eval.h"

#include <algorithm>
#include <set>

namespace llmon::health {
namespace {

std::string sources_of(const Occurrence& o) {
  if (o.nvml_count && o.kernel_count) return "nvml,kernel";
  return o.nvml_count ? "nvml" : "kernel";
}

Evidence xid_evidence(const Occurrence& o, const XidInfo& info) {
  Evidence e;
  e.time_ms = o.first_ms;
  e.kind = "xid";
  e.xid = o.xid;
  e.count = o.count();
  e.sources = sources_of(o);
  e.nvml_line = o.nvml_line;
  e.kernel_line = o.kernel_line;
  e.action = info.action;
  e.detail = "Xid " + std::to_string(o.xid) + " (" + std::string(info.name) + "): " + std::string(info.meaning);
  return e;
}

// Distinct GPUs (rec included) with an occurrence of `xid` within `window` of `t`.
size_t gpus_with_xid_near(std::span<const GpuRecord* const> all, uint32_t xid, int64_t t, int64_t window) {
  size_t n = 0;
  for (const GpuRecord* r : all)
    for (const Occurrence& o : r->occurrences)
      if (o.xid == xid && o.first_ms <= t + window && o.last_ms >= t - window) {
        ++n;
        break;
      }
  return n;
}

bool correlated(std::span<const GpuRecord* const> all, const Occurrence& o, const XidInfo& info,
                const EvalOptions& opts) {
  return info.action == Action::kRestartApp &&
         gpus_with_xid_near(all, o.xid, o.first_ms, opts.correlation_window_ms) >= opts.correlation_min_gpus;
}

void add_escalations(const GpuRecord& rec, const EvalOptions& opts, std::vector<Evidence>& out) {
  for (const auto& [xid, boots] : rec.boots) {
    const XidInfo info = lookup_xid(xid);
    if (!is_reboot_class(info) || boots.empty()) continue;
    if (static_cast<int>(boots.size()) <= opts.reboots_to_escalate) continue;
    if (boots.back().last_ms <= rec.set_healthy_ms) continue;
    Evidence e;
    e.time_ms = boots.back().last_ms;
    e.kind = "xid_escalation";
    e.xid = xid;
    e.count = boots.size();
    e.state = HealthState::kUnhealthy;
    e.action = Action::kInspectHardware;
    e.detail = "Xid " + std::to_string(xid) + " (" + std::string(info.name) + ") seen in " +
               std::to_string(boots.size()) + " boots: recurs after " + std::to_string(boots.size() - 1) +
               " reboots, inspect the hardware";
    out.push_back(std::move(e));
  }
}

void add_repeats(const GpuRecord& rec, std::span<const GpuRecord* const> all, const EvalOptions& opts, int64_t now_ms,
                 std::vector<Evidence>& out) {
  std::map<uint32_t, std::pair<int, int64_t>> repeats;  // xid -> (occurrences, last)
  for (const Occurrence& o : rec.occurrences) {
    const XidInfo info = lookup_xid(o.xid);
    if (!info.repeat_means_hardware || o.last_ms < now_ms - opts.repeat_window_ms) continue;
    if (o.last_ms <= rec.set_healthy_ms || correlated(all, o, info, opts)) continue;
    auto& r = repeats[o.xid];
    ++r.first;
    r.second = std::max(r.second, o.last_ms);
  }
  for (const auto& [xid, r] : repeats) {
    if (r.first < opts.repeat_threshold) continue;
    const XidInfo info = lookup_xid(xid);
    Evidence e;
    e.time_ms = r.second;
    e.kind = "xid_repeat";
    e.xid = xid;
    e.count = static_cast<uint64_t>(r.first);
    e.state = HealthState::kUnhealthy;
    e.action = Action::kInspectHardware;
    e.detail = "Xid " + std::to_string(xid) + " (" + std::string(info.name) + ") " + std::to_string(r.first) +
               " times on this GPU alone: points at the hardware";
    out.push_back(std::move(e));
  }
}

}  // namespace

HealthState state_for_action(Action a) {
  return a == Action::kNone || a == Action::kRestartApp ? HealthState::kDegraded : HealthState::kUnhealthy;
}

GpuHealth evaluate(const GpuRecord& rec, std::span<const GpuRecord* const> all, const EvalOptions& opts, int64_t now_ms,
                   std::string_view boot_id) {
  GpuHealth h;
  h.gpu = rec.ref;
  h.set_healthy_ms = rec.set_healthy_ms;
  for (const auto& [xid, n] : rec.xid_counts) h.xid_counts.emplace_back(xid, n);
  std::vector<Evidence>& ev = h.evidence;

  for (const Occurrence& o : rec.occurrences) {
    if (o.boot_id != boot_id || o.last_ms <= rec.set_healthy_ms) continue;
    const XidInfo info = lookup_xid(o.xid);
    Evidence e = xid_evidence(o, info);
    if (info.defer_to_row_remap && rec.remap_known) {
      e.action = Action::kNone;
      e.detail += " (the row-remap flags decide)";
    } else if (o.xid >= 144 && o.xid <= 150 && !o.severity.empty() && o.severity != "Fatal") {
      e.action = Action::kNone;
      e.detail += " (" + o.severity + ")";
    } else if (correlated(all, o, info, opts)) {
      e.action = Action::kRestartApp;
      e.detail += "; seen on " +
                  std::to_string(gpus_with_xid_near(all, o.xid, o.first_ms, opts.correlation_window_ms)) +
                  " GPUs at once: points at the workload";
    }
    const bool transient = e.action == Action::kNone || e.action == Action::kRestartApp;
    if (transient && o.last_ms < now_ms - opts.transient_window_ms) continue;
    e.state = state_for_action(e.action);
    ev.push_back(std::move(e));
  }
  add_escalations(rec, opts, ev);
  add_repeats(rec, all, opts, now_ms, ev);
  for (const auto& [kind, c] : rec.conditions) {
    if (!c.active || c.since_ms <= rec.set_healthy_ms) continue;
    Evidence e;
    e.time_ms = c.since_ms;
    e.kind = kind;
    e.state = c.state;
    e.action = c.action;
    e.detail = c.detail;
    ev.push_back(std::move(e));
  }
  for (const Evidence& e : rec.events)
    if (e.time_ms > rec.set_healthy_ms) ev.push_back(e);

  std::stable_sort(ev.begin(), ev.end(), [](const Evidence& a, const Evidence& b) {
    if (a.state != b.state) return a.state > b.state;
    if (a.action != b.action) return a.action > b.action;
    return a.time_ms > b.time_ms;
  });
  for (const Evidence& e : ev) {
    h.state = std::max(h.state, e.state);
    h.action = std::max(h.action, e.action);
  }
  return h;
}

}  // namespace llmon::health
