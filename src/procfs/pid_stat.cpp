#include "procfs/pid_stat.h"

#include <vector>

#include "base/strings.h"

namespace llmon::procfs {

Status split_stat(std::string_view text, std::string_view& comm, std::vector<std::string_view>& fields) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return Status::error("stat: no \"(comm)\" field");
  if (!base::parse_u64(base::trim(text.substr(0, open)))) return Status::error("stat: field 1 (pid) is not a number");
  comm = text.substr(open + 1, close - open - 1);
  fields.clear();
  base::split_fields(base::trim(text.substr(close + 1)), fields);
  return Status::ok();
}

Expected<PidStat> parse_pid_stat(std::string_view text) {
  std::string_view comm;
  std::vector<std::string_view> f;
  if (Status st = split_stat(text, comm, f); !st) return st;
  if (f.size() < 20) return Status::error("stat: expected at least 22 fields, got " + std::to_string(f.size() + 2));
  PidStat s;
  s.comm = std::string(comm);
  if (f[0].size() != 1) return Status::error("stat: field 3 (state) is not one letter: \"" + std::string(f[0]) + "\"");
  s.state = f[0][0];
  for (auto [field, dst] :
       {std::pair{14, &s.utime_ticks}, std::pair{15, &s.stime_ticks}, std::pair{22, &s.starttime_ticks}}) {
    std::string_view v = f[static_cast<size_t>(field - 3)];
    auto n = base::parse_u64(v);
    if (!n)
      return Status::error("stat: field " + std::to_string(field) + " is not a number: \"" + std::string(v) + "\"");
    *dst = *n;
  }
  return s;
}

Expected<TaskStat> parse_task_stat(std::string_view text, std::vector<std::string_view>& f) {
  std::string_view comm;
  if (Status st = split_stat(text, comm, f); !st) return st;
  if (f.size() < 40) return Status::error("stat: expected at least 42 fields, got " + std::to_string(f.size() + 2));
  auto threads = base::parse_i64(f[20 - 3]);
  if (!threads) return Status::error("stat: field 20 (num_threads) is not a number: \"" + std::string(f[17]) + "\"");
  return TaskStat{f[0], *threads};
}

Expected<PidStatus> parse_pid_status(std::string_view text) {
  PidStatus out;
  bool have_uid = false;
  base::LineIterator it(text);
  std::string_view line;
  std::vector<std::string_view> f;
  while (it.next(line)) {
    if (base::starts_with(line, "Uid:")) {
      base::split_fields(line.substr(4), f);
      auto uid = f.empty() ? std::nullopt : base::parse_u64(f[0]);
      if (!uid || *uid > 0xFFFFFFFFu) return Status::error(base::where("status", it.line_no(), "Uid is not a number"));
      out.uid = static_cast<uint32_t>(*uid);
      have_uid = true;
    } else if (base::starts_with(line, "VmRSS:")) {
      base::split_fields(line.substr(6), f);
      auto kb = f.empty() ? std::nullopt : base::parse_u64(f[0]);
      if (!kb || (f.size() > 1 && f[1] != "kB") || *kb > (UINT64_MAX >> 10))
        return Status::error(base::where("status", it.line_no(), "VmRSS is not \"<number> kB\""));
      out.rss_bytes = *kb * 1024;
    }
  }
  if (!have_uid) return Status::error("status: no Uid line");
  return out;
}

std::string cmdline_command(std::string_view cmdline) {
  std::string_view argv0 = cmdline.substr(0, cmdline.find('\0'));
  size_t slash = argv0.rfind('/');
  if (slash != std::string_view::npos) argv0.remove_prefix(slash + 1);
  return std::string(argv0);
}

}  // namespace llmon::procfs
