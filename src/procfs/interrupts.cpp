#include "procfs/interrupts.h"

#include <unordered_map>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {
namespace {

// strconv.Atoi's syntax: an optional sign, then decimal digits.
bool is_decimal(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::string join(const std::vector<std::string_view>& parts, size_t from) {
  std::string out;
  for (size_t i = from; i < parts.size(); ++i) {
    if (i > from) out += ' ';
    out.append(parts[i]);
  }
  return out;
}

}  // namespace

Status parse_interrupts(std::string_view text, std::string_view file, std::vector<Interrupt>& out) {
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  if (!lines.next(line)) return Status::error(std::string(file) + ": interrupts empty");
  const size_t cpus = FieldIter(line).remaining();
  std::vector<std::string_view> parts;
  std::unordered_map<std::string, size_t> index;  // name -> position in out
  while (lines.next(line)) {
    base::split_fields(line, parts);
    if (parts.size() < cpus + 2) continue;  // ERR, MIS: one total, no CPU columns
    Interrupt irq;
    irq.name.assign(parts[0].substr(0, parts[0].size() - 1));
    irq.per_cpu.reserve(cpus);
    for (size_t i = 1; i <= cpus; ++i) {
      auto v = parse_number(parts[i]);
      if (!v)
        return Status::error(base::where(file, lines.line_no(), "invalid value \"" + std::string(parts[i]) + "\""));
      irq.per_cpu.push_back(*v);
    }
    if (is_decimal(irq.name)) {
      irq.info.assign(parts[cpus + 1]);
      irq.devices = join(parts, cpus + 2);
    } else {
      irq.info = join(parts, cpus + 1);
    }
    auto [it, fresh] = index.try_emplace(irq.name, out.size());
    if (fresh)
      out.push_back(std::move(irq));
    else
      out[it->second] = std::move(irq);
  }
  return Status::ok();
}

}  // namespace llmon::procfs
