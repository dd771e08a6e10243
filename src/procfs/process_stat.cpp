#include "procfs/process_stat.h"

#include <string>
#include <vector>

#include "base/strings.h"
#include "procfs/pid_stat.h"

namespace llmon::procfs {

Expected<ProcessStat> parse_process_stat(std::string_view text) {
  std::string_view comm;
  std::vector<std::string_view> f;  // f[0] is field 3 (state): field N is f[N - 3]
  if (Status st = split_stat(text, comm, f); !st) return st;
  if (f.size() < 22) return Status::error("stat: expected at least 24 fields, got " + std::to_string(f.size() + 2));
  auto u64 = [&](int field, uint64_t& out) -> Status {
    auto v = base::parse_u64(f[static_cast<size_t>(field - 3)]);
    if (!v)
      return Status::error("stat: field " + std::to_string(field) + " is not a number: \"" +
                           std::string(f[static_cast<size_t>(field - 3)]) + "\"");
    out = *v;
    return Status::ok();
  };
  ProcessStat s;
  for (auto [field, dst] : {std::pair{14, &s.utime_ticks}, std::pair{15, &s.stime_ticks},
                            std::pair{22, &s.starttime_ticks}, std::pair{23, &s.vsize_bytes}}) {
    Status st = u64(field, *dst);
    if (!st) return st;
  }
  auto rss = base::parse_i64(f[21]);
  if (!rss) return Status::error("stat: field 24 is not a number: \"" + std::string(f[21]) + "\"");
  s.rss_pages = *rss;
  return s;
}

Expected<ProcessLimits> parse_process_limits(std::string_view text) {
  ProcessLimits out;
  bool have_files = false, have_as = false;
  base::LineIterator it(text);
  std::string_view line;
  std::vector<std::string_view> f;
  while (it.next(line)) {
    std::string_view rest;
    double* dst = nullptr;
    bool* seen = nullptr;
    if (base::starts_with(line, "Max open files")) {
      rest = line.substr(14);
      dst = &out.max_open_files;
      seen = &have_files;
    } else if (base::starts_with(line, "Max address space")) {
      rest = line.substr(17);
      dst = &out.max_address_space_bytes;
      seen = &have_as;
    } else {
      continue;
    }
    base::split_fields(rest, f);
    if (f.empty()) return Status::error(base::where("limits", it.line_no(), "missing soft limit"));
    if (f[0] == "unlimited") {
      *dst = 18446744073709551615.0;
    } else {
      auto v = base::parse_u64(f[0]);
      if (!v)
        return Status::error(
            base::where("limits", it.line_no(), "soft limit is not a number: \"" + std::string(f[0]) + "\""));
      *dst = static_cast<double>(*v);
    }
    *seen = true;
  }
  if (!have_files) return Status::error("limits: no \"Max open files\" row");
  if (!have_as) return Status::error("limits: no \"Max address space\" row");
  return out;
}

Expected<uint64_t> parse_boot_time(std::string_view text) {
  base::LineIterator it(text);
  std::string_view line;
  while (it.next(line)) {
    if (!base::starts_with(line, "btime ")) continue;
    auto v = base::parse_u64(base::trim(line.substr(6)));
    if (!v) return Status::error(base::where("stat", it.line_no(), "btime is not a number"));
    return *v;
  }
  return Status::error("stat: no btime line");
}

}  // namespace llmon::procfs
