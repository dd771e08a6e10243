// processes collector (node_exporter 1.5 processes_linux.go, off by default):
// walks /proc/<pid>/stat and /proc/<pid>/task/<tid>/stat and reports
// node_processes_{threads,max_threads,state{state},threads_state{thread_state},
// pids,max_processes}; the limits come from /proc/sys/kernel/{threads-max,
// pid_max}. A process or thread that vanishes while it is read (ENOENT, ESRCH)
// is skipped, as node_exporter does; any other unreadable or malformed stat
// fails the collector, naming the pid. node_exporter's order is kept: the
// thread total is written before threads-max is read, the states before pid_max.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/kernel_random.h"
#include "procfs/pid_stat.h"

namespace llmon::collector {
namespace {

using model::MetricType;

// A pid or tid directory name: what Go's strconv.ParseInt(name, 10, 64) accepts.
bool is_pid(const std::string& name) {
  if (name.empty() || name.size() > 18) return false;
  for (char c : name)
    if (c < '0' || c > '9') return false;
  return true;
}

// node_exporter's isIgnoredError: the process went away between the listing and the read.
bool vanished(const Status& s) {
  const std::string& m = s.message();
  return m.find(std::strerror(ENOENT)) != std::string::npos || m.find(std::strerror(ESRCH)) != std::string::npos;
}

class Counts {
 public:
  void clear() {
    for (auto& [state, n] : counts_) n = 0;
  }
  void add(std::string_view state) {
    for (auto& [s, n] : counts_)
      if (s == state) {
        ++n;
        return;
      }
    counts_.emplace_back(std::string(state), 1);
  }
  void write(model::FamilyWriter f) const {
    for (const auto& [state, n] : counts_)
      if (n > 0) f.add({state}, static_cast<double>(n));
  }

 private:
  std::vector<std::pair<std::string, int64_t>> counts_;  // states seen so far, first-seen order
};

class ProcessesCollector final : public Collector {
 public:
  explicit ProcessesCollector(const CollectorContext& ctx)
      : fs_(ctx.fs), threads_max_(ctx.fs.proc("sys/kernel/threads-max")), pid_max_(ctx.fs.proc("sys/kernel/pid_max")) {}

  Status collect(model::SnapshotBuilder& out) override {
    Status s = walk();
    if (!s) return s.with_context("unable to retrieve number of allocated threads");
    out.family("node_processes_threads", "Allocated threads in system", MetricType::kGauge)
        .add(static_cast<double>(threads_));
    auto threads_max = read_number(threads_max_);
    if (!threads_max) return threads_max.status().with_context("unable to retrieve limit number of threads");
    out.family("node_processes_max_threads", "Limit of threads in the system", MetricType::kGauge).add(*threads_max);
    proc_states_.write(
        out.family("node_processes_state", "Number of processes in each state.", MetricType::kGauge, {"state"}));
    thread_states_.write(out.family("node_processes_threads_state", "Number of threads in each state.",
                                    MetricType::kGauge, {"thread_state"}));
    auto pid_max = read_number(pid_max_);
    if (!pid_max) return pid_max.status().with_context("unable to retrieve limit number of maximum pids alloved");
    out.family("node_processes_pids", "Number of PIDs", MetricType::kGauge).add(static_cast<double>(pids_));
    out.family("node_processes_max_processes", "Number of max PIDs limit", MetricType::kGauge).add(*pid_max);
    return Status::ok();
  }

 private:
  Status walk() {
    pids_ = threads_ = 0;
    proc_states_.clear();
    thread_states_.clear();
    if (Status s = base::list_dir(fs_.proc_root, procs_); !s) return s.with_context("unable to list all processes");
    for (const base::DirEntry& p : procs_) {
      if (!is_pid(p.name)) continue;
      std::string dir = fs_.proc(p.name);
      auto stat = read_stat(dir + "/stat", stat_text_);
      if (!stat) {
        if (vanished(stat.status())) continue;
        return stat.status().with_context("error reading stat for pid " + p.name);
      }
      ++pids_;
      proc_states_.add(stat->state);
      threads_ += stat->num_threads;
      std::string state(stat->state);  // stat_text_ is reused for the threads
      if (Status s = count_threads(p.name, dir + "/task", state); !s) return s;
    }
    return Status::ok();
  }

  Status count_threads(const std::string& pid, const std::string& task_dir, const std::string& pid_state) {
    if (Status s = base::list_dir(task_dir, tasks_); !s) {
      if (vanished(s)) return Status::ok();
      return s.with_context("unable to list all threads for pid: " + pid);
    }
    for (const base::DirEntry& t : tasks_) {
      if (!is_pid(t.name)) continue;
      if (t.name == pid) {
        thread_states_.add(pid_state);
        continue;
      }
      auto stat = read_stat(task_dir + "/" + t.name + "/stat", task_text_);
      if (!stat) {
        if (vanished(stat.status())) continue;
        return stat.status().with_context("error reading stat for pid:" + pid + " thread:" + t.name);
      }
      thread_states_.add(stat->state);
    }
    return Status::ok();
  }

  Expected<procfs::TaskStat> read_stat(const std::string& path, std::string& text) {
    if (Status s = base::read_file(path, text); !s) return s;
    auto st = procfs::parse_task_stat(text, fields_);
    if (!st) return st.status().with_context(path);
    return st;
  }

  static Expected<double> read_number(base::CachedFile& file) {
    auto text = file.read();
    if (!text) return text.status();
    auto v = procfs::parse_kernel_random_value(*text, file.path());
    if (!v) return v.status();
    return static_cast<double>(*v);
  }

  procfs::Fs fs_;
  base::CachedFile threads_max_, pid_max_;
  std::vector<base::DirEntry> procs_, tasks_;
  std::string stat_text_, task_text_;
  std::vector<std::string_view> fields_;
  int64_t pids_ = 0, threads_ = 0;
  Counts proc_states_, thread_states_;
};

}  // namespace

std::unique_ptr<Collector> make_processes(const CollectorContext& ctx) {
  return std::make_unique<ProcessesCollector>(ctx);
}

}  // namespace llmon::collector
