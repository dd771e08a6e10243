// HostSummary: what `llmon snapshot` reports, derived from two snapshots of
// the same collectors taken dt apart (rates from counter deltas). Pure: no
// I/O, so tests feed hand-built snapshots. Counter resets (a value going
// down) give a rate of 0 rather than a negative one. The GPU part is
// gpu_summary's, filled by summarize() over the same interval.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/metric.h"
#include "summary/app_summary.h"
#include "summary/gpu_summary.h"

namespace llmon::summary {

struct CpuUsage {
  std::string cpu;  // "0", "1", ... or "all"
  double busy_pct = 0, user_pct = 0, system_pct = 0, iowait_pct = 0, steal_pct = 0;
};

struct NetRate {
  std::string device;
  double rx_bytes_per_s = 0, tx_bytes_per_s = 0;
  double rx_packets_per_s = 0, tx_packets_per_s = 0;
  double errors_per_s = 0, drops_per_s = 0;
};

struct DiskRate {
  std::string device;
  double read_bytes_per_s = 0, write_bytes_per_s = 0;
  double reads_per_s = 0, writes_per_s = 0;
  double util_pct = 0;  // share of the interval with I/O in flight
};

struct FsUsage {
  std::string mountpoint, device, fstype;
  double size_bytes = 0, avail_bytes = 0, used_bytes = 0, used_pct = 0;
  bool readonly = false, device_error = false;
};

// A diagnosis finding as the snapshot shows it (from a running agent's
// /api/v1/diagnosis: findings need history the snapshot does not have).
struct FindingRow {
  std::string severity, kind, summary;
  std::map<std::string, std::string> subject;
};

struct HostSummary {
  int64_t timestamp_ms = 0;
  double interval_s = 0;
  std::string hostname;
  double load1 = 0, load5 = 0, load15 = 0;
  std::vector<CpuUsage> cpus;  // "all" first, then per core in numeric order
  double mem_total_bytes = 0, mem_available_bytes = 0, mem_used_bytes = 0, mem_used_pct = 0;
  double swap_total_bytes = 0, swap_used_bytes = 0;
  std::vector<NetRate> net;
  std::vector<DiskRate> disks;
  std::vector<FsUsage> filesystems;
  GpuSummary gpus;  // summarize_gpus(before, after, interval_s)
  // Scraped applications (set by the command, then attach_gpus); empty: none asked for.
  std::vector<AppRow> apps;
  // The agent's findings over --window, most important first, and where
  // they came from ("" : no agent answered; findings_note says why).
  std::vector<FindingRow> findings;
  std::string findings_source, findings_note;
  int64_t findings_window_ms = 0;
  std::vector<std::string> failed_collectors;
  // Of the collectors with success 0, those that found nothing to read
  // (absent hardware or kernel module): set by the caller, which knows the
  // statuses; mark_no_data() moves them out of failed_collectors.
  std::vector<std::string> no_data_collectors;
};

HostSummary summarize(const model::Snapshot& before, const model::Snapshot& after);

// Moves the named collectors from failed_collectors to no_data_collectors.
void mark_no_data(HostSummary& s, const std::vector<std::string>& no_data);

std::string format_text(const HostSummary& s);
std::string format_json(const HostSummary& s);  // schema: docs/snapshot.md

}  // namespace llmon::summary
