// HealthTracker: the health of each GPU from everything that tells about it
// (docs/gpu-health.md). Fed by the NVML sampler (Xid events, recovery action,
// ECC, row remap, PCIe link, call status), sysfs (AER counters) and the
// kernel log (observe_kernel_line); read with snapshot(). Verdict rules are
// health_eval.h's. Thread-safe (one mutex): the NVML event thread, the log
// watcher and HTTP handlers call it concurrently.
//
// The same Xid from NVML and from the kernel log within `merge_window_ms` of
// the occurrence's last sighting (same GPU, same boot) is one occurrence;
// observe_xid says whether the sighting is one more error (so
// llmon_gpu_xid_errors_total counts each error once) or the other source's
// view of one already counted. Occurrences and the boots each Xid was seen in
// are persisted in `state_dir` (state_file.h) and loaded by load(); the live
// conditions are re-observed every cycle. Time comes from the caller
// (observations) and from the injected clock (snapshot).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "health/aer.h"
#include "health/health_eval.h"
#include "health/kernel_lines.h"
#include "health/state_file.h"

namespace llmon::health {

struct HealthOptions {
  std::string state_dir;  // empty: nothing persisted
  std::string boot_id;    // /proc/sys/kernel/random/boot_id of this boot
  int64_t merge_window_ms = 60'000;
  EvalOptions eval;
  size_t max_occurrences_per_gpu = 64;
  size_t max_boots_per_xid = 16;
  size_t max_events_per_gpu = 32;
  size_t max_line_bytes = 512;            // evidence lines are cut to this
  uint64_t aer_correctable_limit = 1000;  // since boot: above it, degraded
  int pcie_debounce_polls = 3;            // consecutive polls below the maximum
  size_t max_pending_lines = 1024;        // kernel lines held until the first set_gpus
};

struct XidObservation {
  bool counted = false;         // one more error (not the other source's view of a counted one)
  bool new_occurrence = false;  // started a new occurrence
};

// What observe_kernel_line made of a line.
struct KernelLineResult {
  KernelLine line;              // the parse
  std::optional<GpuRef> gpu;    // the GPU its PCI address maps to
  std::optional<uint32_t> xid;  // Xid lines and "fallen off the bus" (79)
  XidObservation observation;   // for Xid lines mapped to a GPU
};

struct PcieLink {
  unsigned cur_gen = 0, max_gen = 0;
  unsigned cur_width = 0, max_width = 0;
  bool busy = false;  // idle GPUs train down their generation to save power
};

enum class NvmlStatus : uint8_t { kOk, kLost, kHung };

class HealthTracker {
 public:
  HealthTracker(HealthOptions opts, const base::Clock& clock);

  // Reads the state file if there is one. A corrupt file is moved aside
  // (<file>.corrupt-<ms>) and reported; the tracker then starts empty.
  Status load();
  // Errors of the last save (the state stays in memory).
  Status last_save_status() const;

  // The GPUs present now (from the NVML sampler): the table kernel lines'
  // PCI addresses map through, and the GPUs a snapshot lists.
  void set_gpus(const std::vector<GpuRef>& gpus);

  XidObservation observe_xid(const GpuRef& gpu, uint32_t xid, int64_t time_ms, XidSource source,
                             std::string_view boot_id, std::string_view evidence);
  // Parses (kernel_lines.h), maps the PCI address to a GPU and records it:
  // (GPU lines seen before the first set_gpus are held, up to
  // max_pending_lines, and recorded then: the result has no GPU for them)
  // Xid and fallen-off-the-bus lines as Xids (source kernel), AER lines of a
  // GPU as events. SXid and OOM-killer lines are only parsed (not GPU state).
  KernelLineResult observe_kernel_line(std::string_view text, int64_t time_ms, std::string_view boot_id);

  // NVML field 230: 0 none, 1 GPU reset, 2 node reboot, 3 drain P2P,
  // 4 drain and reset, anything else: action needed.
  void observe_recovery_action(const GpuRef& gpu, uint32_t value, int64_t time_ms);
  void observe_ecc_uncorrectable(const GpuRef& gpu, uint64_t volatile_count, int64_t time_ms);
  void observe_row_remap(const GpuRef& gpu, bool pending, bool failed, int64_t time_ms);
  void observe_pcie_link(const GpuRef& gpu, const PcieLink& link, int64_t time_ms);
  void observe_aer(const GpuRef& gpu, const AerCounts& counts, int64_t time_ms);
  void observe_nvml_status(const GpuRef& gpu, NvmlStatus status, int64_t time_ms);

  // The operator's "repaired": hides the GPU's evidence seen so far (keeps
  // the boot history). `gpu` is an index, a UUID or a PCI address. Errors:
  // no_data for a GPU the tracker does not know, otherwise the state file's.
  Status set_healthy(std::string_view gpu);

  HealthSnapshot snapshot() const;

  // This boot's id (HealthOptions::boot_id), for the sources that observe.
  const std::string& boot_id() const { return opts_.boot_id; }
  // The present GPU at this PCI address (any form normalize_bus_id accepts).
  std::optional<GpuRef> gpu_by_pci(std::string_view pci) const;

 private:
  XidObservation observe_xid_locked(const GpuRef& gpu, uint32_t xid, int64_t time_ms, XidSource source,
                                    std::string_view boot_id, std::string_view evidence, std::string_view severity);
  const GpuRef* gpu_at(std::string_view pci) const;  // present GPU by PCI address; mutex held
  GpuRecord& record(const GpuRef& gpu);              // mutex held
  GpuRecord* find(std::string_view gpu);             // index, UUID or PCI address; mutex held
  void set_condition(GpuRecord& r, const std::string& kind, bool active, std::string key, HealthState state,
                     Action action, std::string detail, int64_t time_ms);
  std::string cut(std::string_view line) const;
  void save();  // mutex held

  HealthOptions opts_;
  const base::Clock& clock_;
  mutable std::mutex mu_;
  GpuRecords gpus_;
  std::vector<GpuRef> present_;
  struct PendingLine {
    std::string text;
    int64_t time_ms;
    std::string boot_id;
  };
  bool gpus_known_ = false;
  std::vector<PendingLine> pending_;
  Status save_status_;
};

}  // namespace llmon::health
