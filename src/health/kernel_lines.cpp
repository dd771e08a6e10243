#include "health/kernel_lines.h"

#include "base/strings.h"

namespace llmon::health {
namespace {

using base::trim;

bool consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

std::optional<uint64_t> consume_number(std::string_view& s) {
  size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  auto v = base::parse_u64(s.substr(0, n));
  if (v) s.remove_prefix(n);
  return v;
}

// "(PCI:0000:3b:00): N" -> address and N; s is left after N.
bool parenthesised_address_and_code(std::string_view& s, std::string& pci, uint32_t& code) {
  size_t close = s.find(')');
  if (close == std::string_view::npos) return false;
  std::string_view addr = s.substr(0, close);
  if (addr.substr(0, 4) == "PCI:") addr.remove_prefix(4);
  s.remove_prefix(close + 1);
  if (!consume(s, ":")) return false;
  s = base::trim(s);
  auto n = consume_number(s);
  if (!n || *n > 0xffffffffu) return false;
  pci = std::string(addr);
  code = static_cast<uint32_t>(*n);
  return true;
}

// The next ", "-separated field (without the comma), s left after it.
std::string_view next_field(std::string_view& s) {
  size_t comma = s.find(',');
  std::string_view f = s.substr(0, comma);
  s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
  s = trim(s);
  return trim(f);
}

bool unknown_value(std::string_view v) {
  return v.empty() || v == "<unknown>" || v == "'<unknown>'";
}

bool is_severity_word(std::string_view w) {
  return w == "Fatal" || w == "Nonfatal" || w == "Non-fatal";
}

XidLine parse_xid(std::string_view rest, std::string pci, uint32_t code) {
  XidLine x;
  x.pci = std::move(pci);
  x.xid = code;
  if (!consume(rest, ",")) consume(rest, ":");
  rest = trim(rest);
  if (rest.substr(0, 4) == "pid=") {
    std::string_view v = next_field(rest).substr(4);
    if (!unknown_value(v)) {
      if (auto p = base::parse_i64(v)) x.pid = *p;
    }
  }
  if (rest.substr(0, 5) == "name=") {
    std::string_view v = next_field(rest).substr(5);
    if (!unknown_value(v)) x.process = std::string(v);
  }
  x.message = std::string(trim(rest));
  if (code >= 144 && code <= 150) {  // NVLink5: "NETIR_LINK_EVT  Fatal   XC0 ..."
    std::vector<std::string_view> words = base::split_fields(rest);
    for (size_t i = 0; i < words.size() && i < 3; ++i)
      if (is_severity_word(words[i])) x.severity = std::string(words[i]);
  }
  return x;
}

KernelLine parse_sxid(std::string_view text, size_t at) {
  SxidLine x;
  std::string_view before = trim(text.substr(0, at));
  if (!before.empty() && before.back() == ':') before.remove_suffix(1);
  size_t space = before.find_last_of(" \t]");
  x.device = std::string(space == std::string_view::npos ? before : before.substr(space + 1));
  std::string_view rest = text.substr(at + 6);  // after "SXid ("
  if (!parenthesised_address_and_code(rest, x.pci, x.sxid)) return std::monostate{};
  consume(rest, ",");
  rest = trim(rest);
  std::string_view copy = rest;
  if (is_severity_word(next_field(copy))) {
    x.severity = std::string(next_field(rest));
  }
  x.message = std::string(trim(rest));
  return x;
}

// The word before `at` ("pcieport 0000:00:01.0: AER:" -> "0000:00:01.0").
std::string word_before(std::string_view text, size_t at) {
  std::string_view before = trim(text.substr(0, at));
  if (!before.empty() && before.back() == ':') before.remove_suffix(1);
  size_t space = before.find_last_of(" \t]");
  return std::string(space == std::string_view::npos ? before : before.substr(space + 1));
}

std::optional<AerSeverity> aer_severity_prefix(std::string_view& s) {
  for (std::string_view p : {"Corrected", "Correctable"})
    if (consume(s, p)) return AerSeverity::kCorrected;
  for (std::string_view p : {"Uncorrectable (Non-Fatal)", "Uncorrected (Non-Fatal)"})
    if (consume(s, p)) return AerSeverity::kNonFatal;
  for (std::string_view p : {"Uncorrectable (Fatal)", "Uncorrected (Fatal)"})
    if (consume(s, p)) return AerSeverity::kFatal;
  return std::nullopt;
}

KernelLine parse_aer(std::string_view text, size_t at) {
  AerLine a;
  a.reporter = word_before(text, at);
  std::string_view rest = text.substr(at + 5);  // after "AER: "
  if (consume(rest, "PCIe Bus Error: severity=")) {
    auto sev = aer_severity_prefix(rest);
    if (!sev) return std::monostate{};
    a.severity = *sev;
    a.detail = true;
    a.device = a.reporter;
    return a;
  }
  a.multiple = consume(rest, "Multiple ");
  auto sev = aer_severity_prefix(rest);
  if (!sev) return std::monostate{};
  a.severity = *sev;
  rest = trim(rest);
  if (!consume(rest, "error message received from") && !consume(rest, "error received:")) return std::monostate{};
  rest = trim(rest);
  size_t end = rest.find_first_of(" \t,");
  std::string_view dev = rest.substr(0, end);
  if (dev.substr(0, 3) != "id=") a.device = std::string(dev);
  return a;
}

KernelLine parse_oom_summary(std::string_view rest) {
  OomKillLine o;
  for (std::string_view kv : base::split(rest, ',')) {
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view k = trim(kv.substr(0, eq)), v = trim(kv.substr(eq + 1));
    if (k == "task_memcg")
      o.cgroup = std::string(v);
    else if (k == "task")
      o.command = std::string(v);
    else if (k == "pid") {
      if (auto p = base::parse_i64(v)) o.pid = *p;
    }
  }
  if (!o.pid && o.command.empty()) return std::monostate{};
  return o;
}

KernelLine parse_killed_process(std::string_view rest) {
  OomKillLine o;
  auto pid = consume_number(rest);
  if (!pid) return std::monostate{};
  o.pid = static_cast<int64_t>(*pid);
  rest = trim(rest);
  if (consume(rest, "(")) {
    size_t vm = rest.find(" total-vm:");
    std::string_view head = rest.substr(0, vm);
    size_t close = head.rfind(')');
    if (close != std::string_view::npos) o.command = std::string(head.substr(0, close));
  }
  return o;
}

}  // namespace

std::string_view aer_severity_name(AerSeverity s) {
  switch (s) {
    case AerSeverity::kCorrected:
      return "corrected";
    case AerSeverity::kNonFatal:
      return "nonfatal";
    case AerSeverity::kFatal:
      return "fatal";
  }
  return "corrected";
}

KernelLine parse_kernel_line(std::string_view text) {
  if (size_t at = text.find("NVRM: Xid ("); at != std::string_view::npos) {
    std::string_view rest = text.substr(at + 11);
    std::string pci;
    uint32_t code = 0;
    if (parenthesised_address_and_code(rest, pci, code)) return parse_xid(rest, std::move(pci), code);
    return std::monostate{};
  }
  if (size_t at = text.find("GPU has fallen off the bus"); at != std::string_view::npos) {
    FallenOffBusLine f;
    if (size_t g = text.find("NVRM: GPU "); g != std::string_view::npos && g < at) {
      std::string_view addr = text.substr(g + 10, at - g - 10);
      addr = trim(addr);
      if (addr.substr(0, 3) == "at ") addr.remove_prefix(3);
      size_t end = addr.find_first_of(" \t");
      addr = addr.substr(0, end);
      if (!addr.empty() && addr.back() == ':') addr.remove_suffix(1);
      if (addr.substr(0, 4) == "PCI:") addr.remove_prefix(4);
      f.pci = std::string(addr);
    }
    return f;
  }
  if (size_t at = text.find("SXid ("); at != std::string_view::npos) return parse_sxid(text, at);
  if (size_t at = text.find("AER: "); at != std::string_view::npos) return parse_aer(text, at);
  if (size_t at = text.find("oom-kill:"); at != std::string_view::npos) return parse_oom_summary(text.substr(at + 9));
  if (size_t at = text.find("Killed process "); at != std::string_view::npos)
    return parse_killed_process(text.substr(at + 15));
  return std::monostate{};
}

}  // namespace llmon::health
