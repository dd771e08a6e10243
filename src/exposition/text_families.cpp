#include "exposition/text_families.h"

#include <map>

#include "base/strings.h"
#include "exposition/text_parser.h"

namespace llmon::exposition {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view skip_blanks(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  return s.substr(i);
}

// The leading token of s (up to a blank), and s after it.
std::string_view take_token(std::string_view& s) {
  size_t i = 0;
  while (i < s.size() && !is_blank(s[i])) ++i;
  std::string_view tok = s.substr(0, i);
  s.remove_prefix(i);
  return tok;
}

std::optional<TextType> parse_type(std::string_view t) {
  if (base::iequals(t, "counter")) return TextType::kCounter;
  if (base::iequals(t, "gauge")) return TextType::kGauge;
  if (base::iequals(t, "untyped")) return TextType::kUntyped;
  if (base::iequals(t, "summary")) return TextType::kSummary;
  if (base::iequals(t, "histogram")) return TextType::kHistogram;
  return std::nullopt;
}

// HELP's docstring: \\ and \n are the only escapes.
Expected<std::string> unescape_help(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (i + 1 == s.size()) return Status::error("invalid escape sequence at the end of the HELP text");
    char c = s[++i];
    if (c == '\\')
      out += '\\';
    else if (c == 'n')
      out += '\n';
    else
      return Status::error(std::string("invalid escape sequence '\\") + c + "'");
  }
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

class Builder {
 public:
  std::vector<TextFamily> families;

  // The family a sample named `name` belongs to (created untyped if none).
  TextFamily& family_of_sample(std::string_view name) {
    if (auto* f = find(name)) return *f;
    for (std::string_view suffix : {"_sum", "_count", "_bucket"}) {
      if (!ends_with(name, suffix)) continue;
      if (auto* f = find(name.substr(0, name.size() - suffix.size()))) {
        if (f->type == TextType::kHistogram || (f->type == TextType::kSummary && suffix != "_bucket")) return *f;
      }
    }
    return create(name);
  }
  TextFamily& family_named(std::string_view name) {
    if (auto* f = find(name)) return *f;
    return create(name);
  }
  bool typed(const TextFamily& f) const { return typed_.at(f.name); }
  void set_typed(const TextFamily& f) { typed_[f.name] = true; }

 private:
  TextFamily* find(std::string_view name) {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &families[it->second];
  }
  TextFamily& create(std::string_view name) {
    index_.emplace(std::string(name), families.size());
    typed_.emplace(std::string(name), false);
    families.push_back(TextFamily{std::string(name), std::nullopt, TextType::kUntyped, {}});
    return families.back();
  }
  std::map<std::string, size_t, std::less<>> index_;
  std::map<std::string, bool, std::less<>> typed_;  // has a TYPE line or samples
};

// "# HELP ..." / "# TYPE ..." (the text after '#'); other comments are fine.
Status parse_comment(std::string_view rest, Builder& b) {
  rest = skip_blanks(rest);
  std::string_view keyword = take_token(rest);
  if (keyword != "HELP" && keyword != "TYPE") return Status::ok();
  rest = skip_blanks(rest);
  std::string_view name = take_token(rest);
  if (!is_valid_metric_name(name))
    return Status::error("invalid metric name in comment: \"" + std::string(name) + "\"");
  rest = skip_blanks(rest);
  TextFamily& f = b.family_named(name);
  if (keyword == "HELP") {
    if (f.help) return Status::error("second HELP line for metric name \"" + f.name + "\"");
    auto help = unescape_help(rest);
    if (!help) return help.status();
    f.help = std::move(*help);
    return Status::ok();
  }
  std::string_view type_word = take_token(rest);
  auto type = parse_type(type_word);
  if (!type) return Status::error("unknown metric type \"" + std::string(type_word) + "\"");
  if (!skip_blanks(rest).empty()) return Status::error("unexpected text after the type in the TYPE line");
  if (b.typed(f))
    return Status::error("second TYPE line for metric name \"" + f.name + "\", or TYPE reported after samples");
  f.type = *type;
  b.set_typed(f);
  return Status::ok();
}

}  // namespace

Expected<std::vector<TextFamily>> parse_text_families(std::string_view text, std::string_view file) {
  Builder b;
  base::LineIterator lines(text);
  std::string_view line;
  TextSample sample;
  std::string scratch;
  TextParseError err;
  while (lines.next(line)) {
    std::string_view body = skip_blanks(line);
    if (!body.empty() && body[0] == '#') {
      if (Status s = parse_comment(body.substr(1), b); !s)
        return Status::error(base::where(file, lines.line_no(), s.message()));
      continue;
    }
    switch (parse_text_line(line, lines.line_no(), sample, scratch, err)) {
      case LineKind::kSkipped:
        continue;
      case LineKind::kError:
        return Status::error(base::where(file, lines.line_no(), err.message));
      case LineKind::kSample:
        break;
    }
    TextFamily& f = b.family_of_sample(sample.name);
    b.set_typed(f);
    TextFamilySample& s = f.samples.emplace_back();
    s.name = sample.name;
    for (const auto& l : sample.labels) s.labels.emplace_back(std::string(l.name), std::string(l.value));
    s.value = sample.value;
    s.has_timestamp = sample.timestamp_ms.has_value();
  }
  if (!text.empty() && text.back() != '\n')
    return Status::error(base::where(file, lines.line_no(), "unexpected end of input stream (no final newline)"));
  std::vector<TextFamily> out;
  for (auto& f : b.families)
    if (!f.samples.empty()) out.push_back(std::move(f));
  return out;
}

}  // namespace llmon::exposition
