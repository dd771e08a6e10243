#include "procfs/cpuinfo.h"

#include "base/strings.h"
#include "go/strconv.h"

namespace llmon::procfs {
namespace {

// strconv.ParseUint(s, 0, 32): base prefixes allowed, no sign.
bool parse_u32(std::string_view s, uint32_t& out) {
  if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  auto v = go::parse_int(s);
  if (!v || *v < 0 || *v > 0xFFFFFFFFll) return false;
  out = static_cast<uint32_t>(*v);
  return true;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  for (std::string_view w : base::split_fields(s)) out.emplace_back(w);
  return out;
}

}  // namespace

Status parse_cpuinfo(std::string_view text, std::string_view file, std::vector<CpuInfo>& out) {
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line) && base::trim(line).empty()) {
  }
  if (!base::starts_with(line, "processor") || line.find(':') == std::string_view::npos)
    return Status::error(base::where(file, lines.line_no(), "invalid cpuinfo file: \"" + std::string(line) + "\""));
  do {
    size_t sep = line.find(": ");
    if (sep == std::string_view::npos) continue;  // "power management:", lines without ':'
    std::string_view key = base::trim(line.substr(0, sep));
    std::string_view value = line.substr(sep + 2);
    auto bad = [&] {
      return Status::error(
          base::where(file, lines.line_no(), "invalid " + std::string(key) + " \"" + std::string(value) + "\""));
    };
    if (key == "processor") {
      CpuInfo& cpu = out.emplace_back();
      if (!parse_u32(value, cpu.processor)) return bad();
      continue;
    }
    if (out.empty()) return bad();  // a key before the first processor line (unreachable: checked above)
    CpuInfo& cpu = out.back();
    uint32_t scratch = 0;
    if (key == "vendor" || key == "vendor_id") {
      cpu.vendor_id.assign(value);
    } else if (key == "cpu family") {
      cpu.cpu_family.assign(value);
    } else if (key == "model") {
      cpu.model.assign(value);
    } else if (key == "model name") {
      cpu.model_name.assign(value);
    } else if (key == "stepping") {
      cpu.stepping.assign(value);
    } else if (key == "microcode") {
      cpu.microcode.assign(value);
    } else if (key == "cache size") {
      cpu.cache_size.assign(value);
    } else if (key == "physical id") {
      cpu.physical_id.assign(value);
    } else if (key == "core id") {
      cpu.core_id.assign(value);
    } else if (key == "flags") {
      cpu.flags = words(value);
    } else if (key == "bugs") {
      cpu.bugs = words(value);
    } else if (key == "cpu MHz" || key == "bogomips") {
      if (!go::parse_float(value)) return bad();
    } else if (key == "siblings" || key == "cpu cores" || key == "cpuid level" || key == "clflush size" ||
               key == "cache_alignment") {
      if (!parse_u32(value, scratch)) return bad();
    }
  } while (lines.next(line));
  return Status::ok();
}

}  // namespace llmon::procfs
