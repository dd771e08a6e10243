// gpu collector: NVIDIA GPUs through NVML (gpu/nvml/), exposed under
// dcgm-exporter's names and labels (gpu/labels.h, gpu/nvml/metric_table.h),
// plus what DCGM does not give: per-process GPU memory and utilisation with
// the process's user, container, pod and namespace (gpu/process_info.h), its
// host CPU and RSS, Xid errors as a true counter, and the backend's own
// health (llmon_gpu_backend_up{backend="nvml",reason}).
//
// With the agent's health tracker (CollectorContext::health) every cycle is
// also observed for GPU health (gpu_health_feed.h) and the verdict exposed:
// llmon_gpu_health_state{state}, llmon_gpu_health_action{action},
// llmon_gpu_health_evidence{kind}; llmon_gpu_xid_errors_total then counts
// each Xid error once whether NVML, the kernel log or both reported it.
//
// Options: nvml.library, collector.gpu.hostname-label (Hostname | hostname |
// none), collector.gpu.hostname (default: the node name from uname),
// collector.gpu.timeout, collector.gpu.processes, collector.gpu.events,
// collector.gpu.gpm, collector.gpu.names (dcgm and/or nvidia_smi: gpu_smi.h),
// collector.gpu.pod-resources-socket.
//
// Kubernetes (docs/kubernetes.md): each cycle asks the kubelet's
// pod-resources API which pod and container holds each GPU (and MIG
// instance); a GPU it does not list takes the pod of its processes when they
// all run in one container (cgroups, gpu/process_info.h). When any GPU is
// attributed, every per-GPU series carries container, namespace and pod
// after the device labels (dcgm-exporter's names and order; empty, so
// absent, on the other GPUs),
// so a pod that holds an idle GPU is still named on that GPU's series.
// A host without NVIDIA GPUs pays one dlopen attempt every 30 s and exposes
// only llmon_gpu_backend_up 0 with the reason.
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/builtin.h"
#include "collector/gpu_health_feed.h"
#include "collector/gpu_smi.h"
#include "collector/options.h"
#include "collector/uname.h"
#include "gpu/labels.h"
#include "gpu/nvml/metric_table.h"
#include "gpu/nvml/nvml_backend.h"
#include "gpu/process_info.h"
#include "kube/pod_resources.h"

namespace llmon::collector {
namespace {

using gpu::nvml::DeviceSample;
using gpu::nvml::V;
using model::MetricType;

constexpr std::string_view kBackend = "nvml";
constexpr std::string_view kUpHelp =
    "Whether the GPU back end is working (1) or not (0, with the reason; no GPU metrics then).";

// A per-process row: which labels (device or MIG instance) and the values.
struct ProcRow {
  const gpu::DeviceIdentity* id;
  const gpu::nvml::ProcessSample* p;
  const gpu::ProcessInfo* info;  // the resolver's entry (live) or a copy in gone_ (exited)
  const std::string* mig_uuid;   // the MIG instance's UUID, or null (a whole GPU)
};

class GpuNvidiaCollector final : public Collector {
 public:
  explicit GpuNvidiaCollector(const CollectorContext& ctx)
      : log_(ctx.log ? ctx.log : &fallback_log_),
        backend_(backend_options(ctx), *log_),
        procs_(ctx.fs),
        processes_(ctx.option(flag::kCollectorGpuProcesses)),
        pods_(ctx.option(flag::kCollectorGpuPodResourcesSocket), log_) {
    if (ctx.health) health_.emplace(ctx.health, ctx.fs.sys_root);
    auto mode = gpu::parse_hostname_label(ctx.option(flag::kCollectorGpuHostnameLabel));
    if (mode)
      mode_ = *mode;
    else
      config_error_ = mode.status().with_context(std::string(flag::kCollectorGpuHostnameLabel.name));
    if (auto sets = parse_gpu_names(ctx.option(flag::kCollectorGpuNames)))
      name_sets_ = *sets;
    else if (config_error_.is_ok())
      config_error_ = sets.status().with_context(std::string(flag::kCollectorGpuNames.name));
    hostname_ = ctx.option(flag::kCollectorGpuHostname);
    if (hostname_.empty()) {
      UnameInfo u;
      if (system_uname(u)) hostname_ = u.nodename;
    }
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!config_error_.is_ok()) return config_error_;
    auto r = backend_.collect(out.timestamp_ms());
    if (r.timed_out) ++timeouts_;
    out.family("llmon_gpu_sample_timeouts_total",
               "NVML collection cycles that did not answer within --collector.gpu.timeout.", MetricType::kCounter)
        .add(static_cast<double>(timeouts_));
    out.family("llmon_gpu_nvml_calls_total", "NVML library calls made by llmon, all threads.", MetricType::kCounter)
        .add(static_cast<double>(backend_.calls()));
    if (auto times = backend_.call_seconds(); !times.empty()) {
      auto f = out.family("llmon_gpu_nvml_call_seconds_total",
                          "Wall time spent inside each NVML function, all threads (nvmlEventSetWait waits for "
                          "events by design).",
                          MetricType::kCounter, {"function"});
      for (const auto& t : times) f.add({t.function}, t.seconds);
    }
    if (r.initialising) {
      out.family("llmon_gpu_backend_up", kUpHelp, MetricType::kGauge, {"backend", "reason"})
          .add({kBackend, "initialising"}, 0);
      return Status::ok();
    }
    if (!r.sample) {
      if (health_) {
        health_->observe_hung(out.timestamp_ms());
        write_health(out, nullptr);
      }
      if (name_sets_.nvidia_smi) smi_.write(out, nullptr, r.seconds, out.timestamp_ms(), false, {});
      return Status::error(r.stuck ? "NVML is still inside a call that timed out in an earlier cycle"
                                   : "NVML sampling timed out");
    }
    const auto& s = *r.sample;
    out.family("llmon_gpu_sample_duration_seconds", "Time the last NVML collection cycle took.", MetricType::kGauge)
        .add(r.seconds);
    out.family("llmon_gpu_backend_up", kUpHelp, MetricType::kGauge, {"backend", "reason"})
        .add({kBackend, s.up ? std::string_view() : std::string_view(s.reason)}, s.up ? 1 : 0);
    if (!s.errors_total.empty()) {
      auto f = out.family("llmon_gpu_nvml_errors_total", "NVML calls that failed, by function and error.",
                          MetricType::kCounter, {"function", "error"});
      for (const auto& [k, n] : s.errors_total) f.add({k.first, k.second}, static_cast<double>(n));
    }
    if (!s.up) {
      if (name_sets_.nvidia_smi) smi_.write(out, &s, r.seconds, out.timestamp_ms(), false, {});
      return Status::ok();
    }
    out.family("llmon_gpu_backend_info", "GPU back end and driver versions.", MetricType::kGauge,
               {"backend", "driver_version", "nvml_version", "cuda_driver_version"})
        .add({kBackend, s.driver_version, s.nvml_version, s.cuda_driver_version}, 1);
    out.family("llmon_gpu_devices", "GPUs the back end enumerates.", MetricType::kGauge, {"backend"})
        .add({kBackend}, static_cast<double>(s.devices.size()));
    if (scheme_.driver_version() != s.driver_version || !scheme_ready_) {
      scheme_ = gpu::LabelScheme(mode_, hostname_, s.driver_version);
      scheme_ready_ = true;
      names_[0] = Names(scheme_, false);
      names_[1] = Names(scheme_, true);
    }
    if (health_) health_->observe(s, out.timestamp_ms());
    if (processes_) resolve_processes(s);
    attribute(out, s);
    write_devices(out, s);
    if (health_) write_health(out, &s);
    if (name_sets_.nvidia_smi) {
      apps_.clear();
      if (processes_)
        for (const auto& row : rows_)
          apps_.push_back({row.id->uuid, row.info->pid_text, row.info->command, row.p->type, row.p->used_memory_bytes});
      smi_.write(out, &s, r.seconds, out.timestamp_ms(), processes_, apps_);
    }
    return Status::ok();
  }

 private:
  static gpu::nvml::BackendOptions backend_options(const CollectorContext& ctx) {
    gpu::nvml::BackendOptions o;
    // An empty library or a timeout of 0 keeps BackendOptions' own (the soname, 2 s).
    if (const std::string& library = ctx.option(flag::kNvmlLibrary); !library.empty()) o.library = library;
    if (int64_t timeout_ms = ctx.option(flag::kCollectorGpuTimeout); timeout_ms > 0) o.timeout_ms = timeout_ms;
    o.events = ctx.option(flag::kCollectorGpuEvents);
    o.sampler.processes = ctx.option(flag::kCollectorGpuProcesses);
    o.sampler.gpm = ctx.option(flag::kCollectorGpuGpm);
    return o;
  }

  // The labels of a per-GPU series: the identity, then (in a cycle with
  // attributions) container, namespace and pod of the GPU or MIG instance
  // `key` (default: the GPU's UUID), then `extra`.
  void labels_for(const gpu::DeviceIdentity& id, std::vector<std::string>& out,
                  std::initializer_list<std::string_view> extra = {}, const std::string* key = nullptr) {
    if (!attributed_) {
      scheme_.values(id, out, extra);
      return;
    }
    extra_.clear();
    auto it = holders_.find(key ? *key : id.uuid);
    if (it == holders_.end()) {
      extra_.insert(extra_.end(), 3, std::string_view());
    } else {
      extra_.push_back(it->second.container);
      extra_.push_back(it->second.namespace_);
      extra_.push_back(it->second.pod);
    }
    extra_.insert(extra_.end(), extra.begin(), extra.end());
    scheme_.values(id, out, extra_);
  }

  // Who holds each GPU this cycle: the kubelet's allocations, then, for the
  // GPUs and MIG instances it does not list, the one container all their
  // processes run in. Also llmon_kubelet_pod_resources_up while the socket
  // exists.
  void attribute(model::SnapshotBuilder& out, const gpu::nvml::Sample& s) {
    holders_.clear();
    const auto state = pods_.refresh();
    if (state != kube::PodResourcesSource::State::kMissing) {
      out.family("llmon_kubelet_pod_resources_up",
                 "Whether the kubelet's pod-resources socket answered the last List call (1) or not (0; logged "
                 "once with the reason). Absent while the socket does not exist.",
                 MetricType::kGauge, {"path"})
          .add({pods_.path()}, state == kube::PodResourcesSource::State::kOk ? 1 : 0);
    }
    for (const auto& d : s.devices) {
      if (auto it = pods_.holders().find(d.id.uuid); it != pods_.holders().end())
        holders_.emplace(d.id.uuid, it->second);
      for (const auto& m : d.mig)
        if (auto it = pods_.holders().find(m.mig_uuid); !m.mig_uuid.empty() && it != pods_.holders().end())
          holders_.emplace(m.mig_uuid, it->second);
    }
    // cgroups: processes grouped by the GPU (or MIG instance) they run on.
    std::map<std::string_view, std::optional<kube::PodRef>> by_gpu;
    for (const auto& r : rows_) {
      const std::string& key = r.mig_uuid ? *r.mig_uuid : r.id->uuid;
      if (key.empty() || holders_.count(key)) continue;
      kube::PodRef ref{r.info->pod, r.info->namespace_, r.info->container};
      auto [it, added] = by_gpu.try_emplace(key, ref);
      if (!added && it->second && !(*it->second == ref)) it->second.reset();  // containers disagree
    }
    for (auto& [key, ref] : by_gpu)
      if (ref && !ref->pod.empty()) holders_.emplace(std::string(key), std::move(*ref));
    attributed_ = !holders_.empty();
  }

  void write_devices(model::SnapshotBuilder& out, const gpu::nvml::Sample& s) {
    const auto& dev_names = nm().dev;
    const auto& mig_names = nm().mig;
    dev_labels_.resize(s.devices.size());
    for (size_t i = 0; i < s.devices.size(); ++i) labels_for(s.devices[i].id, dev_labels_[i]);

    {
      auto up = out.family("llmon_gpu_up", "Whether the GPU answers (1) or is lost (0, GPU_IS_LOST).",
                           MetricType::kGauge, dev_names);
      for (size_t i = 0; i < s.devices.size(); ++i) up.add(dev_labels_[i], s.devices[i].lost ? 0 : 1);
    }
    const auto& info_names = nm().info;
    auto info = out.family("llmon_gpu_info", "GPU identity; the value is always 1.", MetricType::kGauge, info_names);
    for (size_t i = 0; i < s.devices.size(); ++i) {
      labels_for(s.devices[i].id, tmp_, {kBackend});
      info.add(tmp_, 1);
    }

    // The value table, one family per metric.
    for (const auto& def : gpu::nvml::metric_table()) {
      if (!name_sets_.dcgm && def.name.starts_with("DCGM_")) continue;
      bool any = false;
      for (const auto& d : s.devices) any = any || (!d.lost && d.has(def.value));
      bool mig_fb = is_fb(def.value) && has_mig(s);
      if (!any && !mig_fb) continue;
      if (any) {
        auto f = out.family(def.name, def.help, def.type, dev_names);
        for (size_t i = 0; i < s.devices.size(); ++i) {
          const auto& d = s.devices[i];
          if (!d.lost && d.has(def.value)) f.add(dev_labels_[i], d.get(def.value) * def.scale);
        }
      }
      if (mig_fb) {
        auto f = out.family(def.name, def.help, def.type, mig_names);
        for (const auto& d : s.devices) {
          if (d.lost) continue;
          for (const auto& m : d.mig) {
            double v = mig_value(m, def.value);
            if (std::isnan(v)) continue;
            labels_for(m.id, tmp_, {}, &m.mig_uuid);
            f.add(tmp_, v * def.scale);
          }
        }
      }
    }

    // Clock event reasons, one series per reason.
    {
      const auto& names = nm().reason;
      bool any = false;
      for (const auto& d : s.devices) any = any || (!d.lost && d.has(V::kClockEventReasons));
      if (any) {
        auto f = out.family("llmon_gpu_clock_event_reason_active",
                            "Whether a clock event (throttle) reason is active now (1) or not (0).", MetricType::kGauge,
                            names);
        for (const auto& d : s.devices) {
          if (d.lost || !d.has(V::kClockEventReasons)) continue;
          auto bits = static_cast<unsigned long long>(d.get(V::kClockEventReasons));
          for (const auto& r : gpu::nvml::clock_event_reasons()) {
            labels_for(d.id, tmp_, {r.name});
            f.add(tmp_, (bits & r.bit) ? 1 : 0);
          }
        }
      }
    }

    write_events(out, s, dev_names);
    if (processes_) write_processes(out, s);
  }

  void write_events(model::SnapshotBuilder& out, const gpu::nvml::Sample& s, const std::vector<std::string>& names) {
    bool any = false;
    for (const auto& d : s.devices) any = any || d.events_watched;
    if (!any) return;
    if (name_sets_.dcgm) {
      auto f =
          out.family("DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered (0: none since llmon started).",
                     MetricType::kGauge, names);
      for (size_t i = 0; i < s.devices.size(); ++i) {
        const auto& d = s.devices[i];
        if (d.events_watched) f.add(dev_labels_[i], std::isnan(d.events.last_xid) ? 0 : d.events.last_xid);
      }
    }
    if (!health_) {
      auto xid = out.family("llmon_gpu_xid_errors_total",
                            "Xid errors the driver reported, by Xid, since llmon started (an NVML event counter).",
                            MetricType::kCounter, nm().xid);
      for (const auto& d : s.devices) {
        for (const auto& [code, n] : d.events.xid) {
          labels_for(d.id, tmp_, {std::to_string(code)});
          xid.add(tmp_, static_cast<double>(n));
        }
      }
    }
    auto ev = out.family("llmon_gpu_events_total",
                         "Critical GPU events by type (xid, dbe, sbe, gpu_unavailable, recovery_action).",
                         MetricType::kCounter, nm().type);
    for (const auto& d : s.devices) {
      for (const auto& [type, n] : d.events.by_type) {
        labels_for(d.id, tmp_, {type});
        ev.add(tmp_, static_cast<double>(n));
      }
    }
  }

  // The tracker's verdict per GPU of this sample (labels from the sample; a
  // cycle without one uses the last sample's GPUs), and the Xid counter.
  void write_health(model::SnapshotBuilder& out, const gpu::nvml::Sample* s) {
    health::HealthSnapshot snap = health_->tracker().snapshot();
    if (s) {
      last_ids_.clear();
      for (const auto& d : s->devices) last_ids_.push_back(d.id);
    }
    if (!scheme_ready_ || last_ids_.empty()) return;
    // Calls fn(identity, verdict) for each GPU of the last answered cycle.
    auto each = [&](auto&& fn) {
      for (const auto& h : snap.gpus)
        for (const auto& id : last_ids_)
          if (id.uuid == h.gpu.uuid) fn(id, h);
    };
    auto state = out.family("llmon_gpu_health_state",
                            "GPU health verdict (docs/gpu-health.md): 1 for the GPU's state, 0 for the others.",
                            MetricType::kGauge, nm().state);
    each([&](const gpu::DeviceIdentity& id, const health::GpuHealth& h) {
      for (health::HealthState st : health::kAllStates) {
        labels_for(id, tmp_, {health::state_name(st)});
        state.add(tmp_, h.state == st ? 1 : 0);
      }
    });
    auto action = out.family("llmon_gpu_health_action",
                             "Recommended action for the GPU (docs/gpu-health.md): 1 for it, 0 for the others.",
                             MetricType::kGauge, nm().action);
    each([&](const gpu::DeviceIdentity& id, const health::GpuHealth& h) {
      for (health::Action a : health::kAllActions) {
        labels_for(id, tmp_, {health::action_name(a)});
        action.add(tmp_, h.action == a ? 1 : 0);
      }
    });
    auto evidence = out.family("llmon_gpu_health_evidence",
                               "Items of the GPU's health evidence by kind (see /api/v1/health for the details).",
                               MetricType::kGauge, nm().kind);
    each([&](const gpu::DeviceIdentity& id, const health::GpuHealth& h) {
      std::map<std::string, int> kinds;
      for (const auto& e : h.evidence) ++kinds[e.kind];
      for (const auto& [kind, n] : kinds) {
        labels_for(id, tmp_, {kind});
        evidence.add(tmp_, n);
      }
    });
    auto xid = out.family("llmon_gpu_xid_errors_total",
                          "Xid errors by Xid since llmon started, each counted once whether NVML events, the "
                          "kernel log or both reported it.",
                          MetricType::kCounter, nm().xid);
    each([&](const gpu::DeviceIdentity& id, const health::GpuHealth& h) {
      for (const auto& [code, n] : h.xid_counts) {
        labels_for(id, tmp_, {std::to_string(code)});
        xid.add(tmp_, static_cast<double>(n));
      }
    });
  }

  // Resolves every process once (a process on 8 GPUs is read once) into rows_.
  void resolve_processes(const gpu::nvml::Sample& s) {
    rows_.clear();
    infos_.clear();
    gone_.clear();
    for (const auto& d : s.devices) {
      if (d.lost) continue;
      for (const auto& p : d.processes) {
        const gpu::DeviceIdentity* id = &d.id;
        const std::string* mig_uuid = nullptr;
        for (const auto& m : d.mig) {
          if (p.gpu_instance != m.gpu_instance) continue;
          id = &m.id;
          mig_uuid = &m.mig_uuid;
        }
        // Each process is resolved once per cycle; live entries are used in
        // place (no copy), an exited one is copied (its entry is reused).
        auto it = infos_.find(p.pid);
        if (it == infos_.end()) {
          const gpu::ProcessInfo& info = procs_.lookup(p.pid);
          it = infos_.emplace(p.pid, info.alive ? &info : &gone_.emplace_back(info)).first;
        }
        rows_.push_back({id, &p, it->second, mig_uuid});
      }
    }
    procs_.end_cycle();
  }

  void write_processes(model::SnapshotBuilder& out, const gpu::nvml::Sample& s) {
    // Process counts per GPU (dcgm-exporter issue #94).
    {
      auto f = out.family("llmon_gpu_processes", "Processes using the GPU (compute and graphics).", MetricType::kGauge,
                          nm().dev);
      for (size_t i = 0; i < s.devices.size(); ++i)
        if (!s.devices[i].lost) f.add(dev_labels_[i], static_cast<double>(s.devices[i].processes.size()));
    }
    if (rows_.empty()) return;
    struct ProcMetric {
      std::string_view name, help;
      MetricType type;
      double (*get)(const ProcRow&);
    };
    static const ProcMetric kProc[] = {
        {"llmon_gpu_process_memory_bytes", "GPU memory (VRAM) used by the process on this GPU in bytes.",
         MetricType::kGauge, [](const ProcRow& r) { return r.p->used_memory_bytes; }},
        {"llmon_gpu_process_sm_utilization_ratio", "Share of time the process's kernels ran on the SMs.",
         MetricType::kGauge, [](const ProcRow& r) { return r.p->sm_util; }},
        {"llmon_gpu_process_memory_utilization_ratio", "Share of time the process read or wrote GPU memory.",
         MetricType::kGauge, [](const ProcRow& r) { return r.p->mem_util; }},
        {"llmon_gpu_process_encoder_utilization_ratio", "Encoder utilization of the process.", MetricType::kGauge,
         [](const ProcRow& r) { return r.p->enc_util; }},
        {"llmon_gpu_process_decoder_utilization_ratio", "Decoder utilization of the process.", MetricType::kGauge,
         [](const ProcRow& r) { return r.p->dec_util; }},
        {"llmon_gpu_process_cpu_seconds_total",
         "Host CPU time of the GPU process (user+system), repeated on each GPU it uses.", MetricType::kCounter,
         [](const ProcRow& r) { return r.info->alive ? r.info->cpu_seconds : gpu::nvml::kNa; }},
        {"llmon_gpu_process_resident_memory_bytes",
         "Host resident memory of the GPU process, repeated on each GPU it uses.", MetricType::kGauge,
         [](const ProcRow& r) { return r.info->alive ? r.info->rss_bytes : gpu::nvml::kNa; }},
    };
    const auto& proc_names_dev = nm().proc;
    const auto& proc_names_mig = nm().proc_mig;
    for (const auto& m : kProc) {
      for (bool mig : {false, true}) {
        bool any = false;
        for (const auto& r : rows_) any = any || (r.id->is_mig() == mig && !std::isnan(m.get(r)));
        if (!any) continue;
        auto f = out.family(m.name, m.help, m.type, mig ? proc_names_mig : proc_names_dev);
        for (const auto& r : rows_) {
          if (r.id->is_mig() != mig) continue;
          double v = m.get(r);
          if (std::isnan(v)) continue;
          pl_.clear();
          gpu::process_label_values(*r.info, pl_);
          scheme_.values(*r.id, tmp_, pl_);
          f.add(tmp_, v);
        }
      }
    }
  }

  static bool is_fb(V v) {
    return v == V::kFbTotalBytes || v == V::kFbFreeBytes || v == V::kFbUsedBytes || v == V::kFbReservedBytes;
  }
  static bool has_mig(const gpu::nvml::Sample& s) {
    for (const auto& d : s.devices)
      if (!d.lost && !d.mig.empty()) return true;
    return false;
  }
  static double mig_value(const gpu::nvml::MigInstanceSample& m, V v) {
    switch (v) {
      case V::kFbTotalBytes:
        return m.fb_total;
      case V::kFbFreeBytes:
        return m.fb_free;
      case V::kFbUsedBytes:
        return m.fb_used;
      case V::kFbReservedBytes:
        return m.fb_reserved;
      default:
        return gpu::nvml::kNa;
    }
  }

  base::Logger fallback_log_;
  base::Logger* log_;
  gpu::nvml::NvmlBackend backend_;
  gpu::ProcessResolver procs_;
  bool processes_;
  std::optional<GpuHealthFeed> health_;
  std::vector<gpu::DeviceIdentity> last_ids_;  // the GPUs of the last answered cycle
  GpuNames name_sets_;
  SmiWriter smi_;
  std::vector<SmiApp> apps_;
  gpu::HostnameLabel mode_ = gpu::HostnameLabel::kUpper;
  std::string hostname_;
  gpu::LabelScheme scheme_;
  bool scheme_ready_ = false;
  // Label-name lists of every family, built when the scheme changes (not per
  // cycle), without and with the pod labels (a cycle with attributions).
  struct Names {
    Names() = default;
    Names(const gpu::LabelScheme& sc, bool pods)
        : dev(make(sc, false, pods, {})),
          mig(make(sc, true, pods, {})),
          info(make(sc, false, pods, {"backend"})),
          reason(make(sc, false, pods, {"reason"})),
          xid(make(sc, false, pods, {"xid"})),
          type(make(sc, false, pods, {"type"})),
          state(make(sc, false, pods, {"state"})),
          action(make(sc, false, pods, {"action"})),
          kind(make(sc, false, pods, {"kind"})),
          proc(sc.names(false, gpu::kProcessLabelNames)),
          proc_mig(sc.names(true, gpu::kProcessLabelNames)) {}
    // The device labels, container/namespace/pod when `pods`, then `extra`.
    static std::vector<std::string> make(const gpu::LabelScheme& sc, bool mig, bool pods,
                                         std::initializer_list<std::string_view> extra) {
      std::vector<std::string_view> all;
      if (pods) all = {"container", "namespace", "pod"};
      all.insert(all.end(), extra.begin(), extra.end());
      return sc.names(mig, all);
    }
    std::vector<std::string> dev, mig, info, reason, xid, type, state, action, kind, proc, proc_mig;
  };
  Names names_[2];
  const Names& nm() const { return names_[attributed_ ? 1 : 0]; }
  kube::PodResourcesSource pods_;
  std::map<std::string, kube::PodRef, std::less<>> holders_;  // by GPU or MIG UUID, this cycle
  bool attributed_ = false;
  uint64_t timeouts_ = 0;
  Status config_error_;
  std::vector<std::vector<std::string>> dev_labels_;
  std::vector<std::string> tmp_;
  std::vector<std::string_view> pl_;
  std::vector<std::string_view> extra_;  // labels_for's pod and extra values
  std::vector<ProcRow> rows_;
  std::unordered_map<uint32_t, const gpu::ProcessInfo*> infos_;  // this cycle's lookups
  std::deque<gpu::ProcessInfo> gone_;                            // copies of exited processes
};

}  // namespace

std::unique_ptr<Collector> make_gpu(const CollectorContext& ctx) {
  return std::make_unique<GpuNvidiaCollector>(ctx);
}

}  // namespace llmon::collector
