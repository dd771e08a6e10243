#include "logwatch/pattern_re2.h"

#include <vector>

namespace llmon::logwatch {

RE2::Options pattern_re2_options(const Pattern& p) {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_case_sensitive(!p.case_insensitive);
  o.set_literal(p.literal);
  return o;
}

Expected<std::unique_ptr<RE2>> compile_pattern(const Pattern& p, size_t index) {
  auto re = std::make_unique<RE2>(p.text, pattern_re2_options(p));
  if (!re->ok()) return Status::error("pattern " + std::to_string(index + 1) + " \"" + p.text + "\": " + re->error());
  return re;
}

std::string pattern_set_text(const Pattern& p) {
  std::string text = p.literal ? RE2::QuoteMeta(p.text) : p.text;
  if (p.case_insensitive) text = "(?i:" + text + ")";
  return text;
}

bool match_groups(const RE2& re, std::string_view line, Match& m) {
  const re2::StringPiece text(line.data(), line.size());
  const auto& names = re.CapturingGroupNames();
  if (names.empty()) return re.Match(text, 0, line.size(), RE2::UNANCHORED, nullptr, 0);
  std::vector<re2::StringPiece> sub(static_cast<size_t>(re.NumberOfCapturingGroups()) + 1);
  if (!re.Match(text, 0, line.size(), RE2::UNANCHORED, sub.data(), static_cast<int>(sub.size()))) return false;
  for (const auto& [idx, name] : names) {
    const auto& s = sub[static_cast<size_t>(idx)];
    if (s.data() != nullptr) m.groups.emplace_back(name, std::string(s.data(), s.size()));
  }
  return true;
}

}  // namespace llmon::logwatch
