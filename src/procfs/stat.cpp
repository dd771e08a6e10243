#include "procfs/stat.h"

#include <string>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {
namespace {

Status line_error(std::string_view file, int line, std::string_view key, std::string_view what,
                  std::string_view value) {
  std::string msg(key);
  msg += ": ";
  msg += what;
  msg += " \"";
  msg += value;
  msg += '"';
  return Status::error(base::where(file, line, msg));
}

// "cpu 1 2 3 ..." : up to ten tick counts; fewer is fine (older kernels).
Status parse_cpu_line(FieldIter& it, std::string_view key, std::string_view file, int line, CpuTimes& t) {
  double* dst[] = {&t.user, &t.nice,    &t.system, &t.idle,  &t.iowait,
                   &t.irq,  &t.softirq, &t.steal,  &t.guest, &t.guest_nice};
  t = CpuTimes{};
  t.present = true;
  std::string_view f;
  for (double* d : dst) {
    if (!it.next(f)) break;
    auto v = parse_number(f);
    if (!v) return line_error(file, line, key, "CPU time is not a number:", f);
    *d = *v / kUserHz;
  }
  return Status::ok();
}

Status parse_u64_field(std::string_view f, std::string_view key, std::string_view file, int line, uint64_t& dst) {
  auto v = base::parse_u64(f);
  if (!v) return line_error(file, line, key, "not an unsigned integer:", f);
  dst = *v;
  return Status::ok();
}

}  // namespace

Status parse_stat(std::string_view text, ProcStat& out, std::string_view file) {
  std::vector<CpuTimes> cpus = std::move(out.cpus);
  cpus.clear();
  out = ProcStat{};
  out.cpus = std::move(cpus);

  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const int ln = lines.line_no();
    FieldIter it(line);
    std::string_view key, first;
    if (!it.next(key)) continue;
    FieldIter after_key = it;
    if (!it.next(first)) continue;  // procfs needs "<key> <value>"

    Status s;
    if (key == "btime") {
      s = parse_u64_field(first, key, file, ln, out.boot_time);
    } else if (key == "intr") {
      // Only the total is exported; the per-IRQ numbers (hundreds on a big
      // machine) are not parsed. procfs would reject a malformed one: we do not.
      s = parse_u64_field(first, key, file, ln, out.irq_total);
    } else if (key == "ctxt") {
      s = parse_u64_field(first, key, file, ln, out.context_switches);
    } else if (key == "processes") {
      s = parse_u64_field(first, key, file, ln, out.processes_created);
    } else if (key == "procs_running") {
      s = parse_u64_field(first, key, file, ln, out.procs_running);
    } else if (key == "procs_blocked") {
      s = parse_u64_field(first, key, file, ln, out.procs_blocked);
    } else if (key == "softirq") {
      uint64_t* dst[] = {&out.softirq_total,  &out.softirq.hi,      &out.softirq.timer,        &out.softirq.net_tx,
                         &out.softirq.net_rx, &out.softirq.block,   &out.softirq.block_iopoll, &out.softirq.tasklet,
                         &out.softirq.sched,  &out.softirq.hrtimer, &out.softirq.rcu};
      FieldIter vals = after_key;
      std::string_view f;
      for (uint64_t* d : dst) {
        if (!vals.next(f)) {
          s = Status::error(base::where(file, ln, "softirq: expected a total and 10 counters, line is truncated"));
          break;
        }
        s = parse_u64_field(f, key, file, ln, *d);
        if (!s) break;
      }
    } else if (base::starts_with(key, "cpu")) {
      FieldIter vals = after_key;
      if (key == "cpu") {
        s = parse_cpu_line(vals, key, file, ln, out.total);
      } else {
        auto id = base::parse_i64(key.substr(3));
        if (!id || *id < 0 || *id > kMaxCpuId) {
          s = line_error(file, ln, key, "bad CPU number in", key);
        } else {
          size_t idx = static_cast<size_t>(*id);
          if (out.cpus.size() <= idx) out.cpus.resize(idx + 1);
          s = parse_cpu_line(vals, key, file, ln, out.cpus[idx]);
        }
      }
    }
    if (!s) return s;
  }
  return Status::ok();
}

Expected<ProcStat> parse_stat(std::string_view text) {
  ProcStat out;
  Status s = parse_stat(text, out);
  if (!s) return s;
  return out;
}

}  // namespace llmon::procfs
