// The first Matcher: an RE2::Set to learn which patterns match, then each
// matching pattern's own RE2 for its named groups.
#include "logwatch/matcher.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

namespace llmon::logwatch {
namespace {

RE2::Options re2_options(const Pattern& p) {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_case_sensitive(!p.case_insensitive);
  o.set_literal(p.literal);
  return o;
}

RE2::Options set_options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_encoding(RE2::Options::EncodingLatin1);
  return o;
}

re2::StringPiece piece(std::string_view s) {
  return re2::StringPiece(s.data(), s.size());
}

class SetMatcher final : public Matcher {
 public:
  SetMatcher() : set_(set_options(), RE2::UNANCHORED) {}

  Status init(std::vector<Pattern> patterns) {
    for (size_t i = 0; i < patterns.size(); ++i) {
      const Pattern& p = patterns[i];
      auto re = std::make_unique<RE2>(p.text, re2_options(p));
      if (!re->ok())
        return Status::error("pattern " + std::to_string(i + 1) + " \"" + p.text + "\": " + re->error());
      // The set sees the pattern with its flags inline, as the RE2 compiled it.
      std::string text = p.literal ? RE2::QuoteMeta(p.text) : p.text;
      if (p.case_insensitive) text = "(?i:" + text + ")";
      std::string err;
      if (set_.Add(text, &err) < 0)
        return Status::error("pattern " + std::to_string(i + 1) + " \"" + p.text + "\": " + err);
      res_.push_back(std::move(re));
    }
    if (!res_.empty() && !set_.Compile()) return Status::error("the patterns do not fit in memory together");
    return Status::ok();
  }

  size_t size() const override { return res_.size(); }

  bool matches_none(std::string_view line) const override { return res_.empty() || !set_.Match(piece(line), nullptr); }

  void match(std::string_view line, std::vector<Match>& out) const override {
    out.clear();
    if (res_.empty()) return;
    std::vector<int> hit;
    if (!set_.Match(piece(line), &hit)) return;
    std::sort(hit.begin(), hit.end());
    for (int i : hit) {
      const RE2& re = *res_[static_cast<size_t>(i)];
      Match m;
      m.pattern = static_cast<size_t>(i);
      const auto& names = re.CapturingGroupNames();
      if (!names.empty()) {
        std::vector<re2::StringPiece> sub(static_cast<size_t>(re.NumberOfCapturingGroups()) + 1);
        if (re.Match(piece(line), 0, line.size(), RE2::UNANCHORED, sub.data(), static_cast<int>(sub.size()))) {
          for (const auto& [idx, name] : names) {
            const auto& s = sub[static_cast<size_t>(idx)];
            if (s.data() != nullptr) m.groups.emplace_back(name, std::string(s.data(), s.size()));
          }
        }
      }
      out.push_back(std::move(m));
    }
  }

 private:
  RE2::Set set_;
  std::vector<std::unique_ptr<RE2>> res_;
};

}  // namespace

Expected<std::unique_ptr<Matcher>> Matcher::build(std::vector<Pattern> patterns) {
  auto m = std::make_unique<SetMatcher>();
  if (Status st = m->init(std::move(patterns)); !st) return st;
  return std::unique_ptr<Matcher>(std::move(m));
}

}  // namespace llmon::logwatch
