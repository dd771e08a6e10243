// `llmon top --url`: the agent's query API instead of the collectors. Each
// refresh asks for the series the summary reads at the moment shown (T) and
// for the counters among them one collection interval before it (the rates;
// lookback_delta two intervals, so a
// process gone from the agent is gone here too), turns each answer into a
// model::Snapshot (one family per name and label set, as the collectors
// emit them) and summarises the pair like standalone mode. The charts come
// from query_range over the ring's length ending at T (when T jumps and
// every 60th refresh; the instant values are appended in between), so [
// and ] scroll the whole screen back through the store. Alerts and findings are asked
// for every few refreshes (the diagnosis is the costly one).
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "app/top_source.h"
#include "app/top_vector_answer.h"
#include "base/strings.h"
#include "diagnose/report.h"
#include "net/api_client.h"
#include "summary/host_summary.h"

namespace llmon::app {
namespace {

using nlohmann::json;

// Exactly the families summary::summarize() and the screen read, named, not
// by prefix: on the fake 8-GPU node the prefixes (node_memory_.*,
// DCGM_FI_.*, ...) answered 1 185 series (323 KB of JSON) a refresh, these
// names 501 (143 KB); parsing that JSON is most of top --url's CPU
// (docs/performance.md). A family the summary starts to read must be added
// here: the agent-mode tmux golden shows what goes missing.
constexpr const char* kSelector =
    "{__name__=~\""
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL|DCGM_FI_DEV_ENFORCED_POWER_LIMIT|DCGM_FI_DEV_FAN_SPEED|"
    "DCGM_FI_DEV_FB_RESERVED|DCGM_FI_DEV_FB_TOTAL|DCGM_FI_DEV_FB_USED|DCGM_FI_DEV_GPU_TEMP|"
    "DCGM_FI_DEV_GPU_UTIL|DCGM_FI_DEV_MEMORY_TEMP|DCGM_FI_DEV_MEM_CLOCK|DCGM_FI_DEV_MEM_COPY_UTIL|"
    "DCGM_FI_DEV_PCIE_LINK_GEN|DCGM_FI_DEV_PCIE_LINK_WIDTH|DCGM_FI_DEV_POWER_MGMT_LIMIT|"
    "DCGM_FI_DEV_POWER_USAGE|DCGM_FI_DEV_PSTATE|DCGM_FI_DEV_SM_CLOCK|DCGM_FI_DEV_XID_ERRORS|"
    "llmon_gpu_backend_info|llmon_gpu_backend_up|llmon_gpu_clock_event_reason_active|llmon_gpu_clock_hz|"
    "llmon_gpu_fan_speed_ratio|llmon_gpu_health_action|llmon_gpu_health_state|llmon_gpu_info|"
    "llmon_gpu_memory_busy_ratio|llmon_gpu_memory_total_bytes|llmon_gpu_memory_used_bytes|"
    "llmon_gpu_pcie_link_speed_gigatransfers_per_second|llmon_gpu_pcie_link_width|"
    "llmon_gpu_power_limit_watts|llmon_gpu_power_watts|llmon_gpu_process_cpu_seconds_total|"
    "llmon_gpu_process_decoder_utilization_ratio|llmon_gpu_process_encoder_utilization_ratio|"
    "llmon_gpu_process_engine_seconds_total|llmon_gpu_process_memory_bytes|"
    "llmon_gpu_process_memory_utilization_ratio|llmon_gpu_process_resident_memory_bytes|"
    "llmon_gpu_process_sm_utilization_ratio|llmon_gpu_temperature_celsius|llmon_gpu_up|"
    "llmon_gpu_utilization_ratio|node_cpu_seconds_total|node_disk_io_time_seconds_total|"
    "node_disk_read_bytes_total|node_disk_reads_completed_total|node_disk_writes_completed_total|"
    "node_disk_written_bytes_total|node_filesystem_avail_bytes|node_filesystem_device_error|"
    "node_filesystem_free_bytes|node_filesystem_readonly|node_filesystem_size_bytes|node_load1|"
    "node_load15|node_load5|node_memory_MemAvailable_bytes|node_memory_MemTotal_bytes|"
    "node_memory_SwapFree_bytes|node_memory_SwapTotal_bytes|node_network_receive_bytes_total|"
    "node_network_receive_drop_total|node_network_receive_errs_total|node_network_receive_packets_total|"
    "node_network_transmit_bytes_total|node_network_transmit_drop_total|node_network_transmit_errs_total|"
    "node_network_transmit_packets_total|node_scrape_collector_success|node_uname_info"
    "\"}";
// The earlier moment serves only counter deltas (rates): just the counters.
constexpr const char* kCounterSelector =
    "{__name__=~\""
    "llmon_gpu_process_cpu_seconds_total|llmon_gpu_process_engine_seconds_total|node_cpu_seconds_total|"
    "node_disk_io_time_seconds_total|node_disk_read_bytes_total|node_disk_reads_completed_total|"
    "node_disk_writes_completed_total|node_disk_written_bytes_total|node_network_receive_bytes_total|"
    "node_network_receive_drop_total|node_network_receive_errs_total|node_network_receive_packets_total|"
    "node_network_transmit_bytes_total|node_network_transmit_drop_total|node_network_transmit_errs_total|"
    "node_network_transmit_packets_total"
    "\"}";
constexpr int kSlowEvery = 5;    // alerts and findings: every 5th refresh
constexpr int kRangeEvery = 60;  // the charts from query_range: every 60th refresh

std::string secs(int64_t ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", static_cast<double>(ms) / 1000.0);
  return b;
}

std::string clock_of(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

class AgentSource : public TopSource {
 public:
  AgentSource(net::HttpUrl url, std::string base, int64_t interval_ms)
      : url_(std::move(url)), base_(std::move(base)), interval_ms_(interval_ms) {}

  std::string refresh(int64_t now_ms, const TopWants& w, top::TopData& d) override {
    d.agent = true;
    d.source = "agent " + url_.host + ":" + std::to_string(url_.port);
    if (collect_ms_ <= 0) {
      std::string err = read_interval();
      if (!err.empty()) return err;
    }
    const int64_t t = now_ms - int64_t{w.history_offset_s} * 1000;
    d.history_at =
        w.history_offset_s ? "at -" + std::to_string(w.history_offset_s / 60) + "m (" + clock_of(t) + ")" : "";
    auto after = instant(t, kSelector);
    if (!after) return after.error();
    auto before = instant(t - collect_ms_, kCounterSelector);
    if (!before) return before.error();
    d.sum = summary::summarize(**before, **after);
    d.sum.interval_s = static_cast<double>(interval_ms_) / 1000.0;
    // The charts: query_range when the moment jumps (start, [ ]) and every
    // kRangeEvery refreshes; in between the instant values are appended,
    // as standalone mode does (a range of 300 samples a second costs ~5x the rest).
    std::string msg;
    if (w.history_offset_s != range_offset_s_ || refreshes_ % kRangeEvery == 0) {
      msg = history(t, d);
      range_offset_s_ = w.history_offset_s;
    } else {
      d.hist.record(d.sum.gpus);
    }
    if (!w.selected_pid.empty()) process_memory(t, w.selected_pid, d);
    if (refreshes_++ % kSlowEvery == 0) {
      alerts_.clear();
      findings_.clear();
      if (auto e = alerts(); !e.empty() && msg.empty()) msg = e;
      findings();
    }
    d.alerts = alerts_;
    d.sum.findings = findings_;
    return msg;
  }

  bool local() const override { return url_.host == "127.0.0.1" || url_.host == "localhost" || url_.host == "::1"; }

 private:
  Expected<std::string> get_body(const std::string& target) {
    auto r = net::http_get(url_, target, 5000);
    if (!r) return Status::error(base_ + ": " + r.error());
    if (r->status != 200)
      return Status::error(base_ + target.substr(0, target.find('?')) + ": HTTP " + std::to_string(r->status));
    return std::move(r->body);
  }

  Expected<json> get(const std::string& target) {
    auto body = get_body(target);
    if (!body) return body.status();
    auto j = json::parse(*body, nullptr, false);
    if (j.is_discarded()) return Status::error(base_ + ": not JSON");
    return j;
  }

  std::string read_interval() {
    auto j = get("/api/v1/status/flags");
    if (!j) return j.error();
    collect_ms_ = 1000;
    if (j->contains("data") && (*j)["data"].contains("collect.interval"))
      if (auto ms = base::parse_duration_ms((*j)["data"]["collect.interval"].get<std::string>()); ms && *ms > 0)
        collect_ms_ = *ms;
    return "";
  }

  Expected<model::SnapshotPtr> instant(int64_t t_ms, const char* selector) {
    auto body = get_body("/api/v1/query?query=" + net::url_encode(selector) + "&time=" + secs(t_ms) +
                         "&lookback_delta=" + std::to_string(2 * collect_ms_) + "ms");
    if (!body) return body.status();
    auto snap = parse_vector_answer(*body, t_ms);
    if (!snap) return Status::error(base_ + ": " + snap.error());
    return snap;
  }

  // Range over the ring's length ending at t; each series -> a ring per `gpu` label.
  Expected<std::map<std::string, top::Ring>> range(const std::string& expr, int64_t t_ms, const std::string& by) {
    const int64_t n = 300;
    auto j = get("/api/v1/query_range?query=" + net::url_encode(expr) + "&start=" + secs(t_ms - (n - 1) * collect_ms_) +
                 "&end=" + secs(t_ms) + "&step=" + secs(collect_ms_) +
                 "&lookback_delta=" + std::to_string(2 * collect_ms_) + "ms");
    if (!j) return j.status();
    std::map<std::string, top::Ring> out;
    const double start_s = static_cast<double>(t_ms - (n - 1) * collect_ms_) / 1000.0;
    for (const auto& r : (*j)["data"]["result"]) {
      std::vector<double> v(static_cast<size_t>(n), NAN);
      for (const auto& p : r["values"]) {
        long i = std::lround((p[0].get<double>() - start_s) * 1000.0 / static_cast<double>(collect_ms_));
        if (i >= 0 && i < n) v[static_cast<size_t>(i)] = std::strtod(p[1].get<std::string>().c_str(), nullptr);
      }
      top::Ring ring(static_cast<size_t>(n));
      for (double x : v) ring.push(x);
      out.insert_or_assign(r["metric"].value(by, ""), std::move(ring));
    }
    return out;
  }

  std::string history(int64_t t, top::TopData& d) {
    auto util = range("DCGM_FI_DEV_GPU_UTIL{GPU_I_ID=\"\"} or 100 * llmon_gpu_utilization_ratio", t, "gpu");
    if (!util) return util.error();
    auto mem = range(
        "100 * DCGM_FI_DEV_FB_USED{GPU_I_ID=\"\"} / DCGM_FI_DEV_FB_TOTAL{GPU_I_ID=\"\"}"
        " or 100 * llmon_gpu_memory_used_bytes / llmon_gpu_memory_total_bytes",
        t, "gpu");
    if (!mem) return mem.error();
    d.hist.clear();
    for (const auto& g : d.sum.gpus.gpus) {
      top::GpuSeries s(300);
      if (auto it = util->find(g.index); it != util->end()) s.util_pct = it->second;
      if (auto it = mem->find(g.index); it != mem->end()) s.mem_used_pct = it->second;
      d.hist.assign(g, std::move(s));
    }
    return "";
  }

  void process_memory(int64_t t, const std::string& pid, top::TopData& d) {
    if (pid.find_first_not_of("0123456789") != std::string::npos) return;
    auto r = range("sum by (pid) (llmon_gpu_process_memory_bytes{pid=\"" + pid + "\"})", t, "pid");
    if (r && r->count(pid)) d.detail_mem = r->at(pid);
  }

  std::string alerts() {
    auto j = get("/api/v1/alerts");
    if (!j) return j.error();
    for (const auto& a : (*j)["data"]["alerts"]) {
      top::AlertRow row;
      row.name = a["labels"].value("alertname", "");
      row.state = a.value("state", "");
      row.severity = a["labels"].value("severity", "");
      if (a.contains("annotations")) row.summary = a["annotations"].value("summary", "");
      row.since = a.value("activeAt", "");
      alerts_.push_back(std::move(row));
    }
    std::stable_sort(alerts_.begin(), alerts_.end(), [](const top::AlertRow& a, const top::AlertRow& b) {
      return a.state == "firing" && b.state != "firing";
    });
    return "";
  }

  void findings() {
    auto r = net::http_get(url_, "/api/v1/diagnosis?window=600s", 5000);
    if (!r || r->status != 200) return;
    auto rep = diagnose::parse_json(r->body);
    if (!rep) return;
    for (const auto& f : rep->findings)
      findings_.push_back({std::string(diagnose::severity_name(f.severity)), f.kind, f.summary, f.subject});
  }

  net::HttpUrl url_;
  std::string base_;
  int64_t interval_ms_, collect_ms_ = 0;
  uint64_t refreshes_ = 0;
  int range_offset_s_ = 0;
  std::vector<top::AlertRow> alerts_;
  std::vector<summary::FindingRow> findings_;
};

}  // namespace

std::unique_ptr<TopSource> agent_source(net::HttpUrl url, std::string base_url, int64_t interval_ms) {
  return std::make_unique<AgentSource>(std::move(url), std::move(base_url), interval_ms);
}

}  // namespace llmon::app
