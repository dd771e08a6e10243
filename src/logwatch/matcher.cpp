// The RE2 Matcher: an RE2::Set to learn which patterns match, then each
// matching pattern's own RE2 for its named groups. Also Matcher::build(),
// which picks the engine.
#include "logwatch/matcher.h"

#include <re2/set.h>

#include <algorithm>

#include "logwatch/matcher_hyperscan.h"
#include "logwatch/pattern_re2.h"

namespace llmon::logwatch {
namespace {

RE2::Options set_options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_encoding(RE2::Options::EncodingLatin1);
  return o;
}

class SetMatcher final : public Matcher {
 public:
  SetMatcher() : set_(set_options(), RE2::UNANCHORED) {}

  Status init(std::vector<Pattern> patterns) {
    for (size_t i = 0; i < patterns.size(); ++i) {
      auto re = compile_pattern(patterns[i], i);
      if (!re) return re.status();
      std::string err;
      if (set_.Add(pattern_set_text(patterns[i]), &err) < 0)
        return Status::error("pattern " + std::to_string(i + 1) + " \"" + patterns[i].text + "\": " + err);
      res_.push_back(std::move(*re));
    }
    if (!res_.empty() && !set_.Compile()) return Status::error("the patterns do not fit in memory together");
    return Status::ok();
  }

  size_t size() const override { return res_.size(); }
  std::string_view engine() const override { return "re2"; }

  bool matches_none(std::string_view line) const override {
    return res_.empty() || !set_.Match(re2::StringPiece(line.data(), line.size()), nullptr);
  }

  void match(std::string_view line, std::vector<Match>& out) const override {
    out.clear();
    if (res_.empty()) return;
    std::vector<int> hit;
    if (!set_.Match(re2::StringPiece(line.data(), line.size()), &hit)) return;
    std::sort(hit.begin(), hit.end());
    for (int i : hit) {
      Match m;
      m.pattern = static_cast<size_t>(i);
      if (match_groups(*res_[m.pattern], line, m)) out.push_back(std::move(m));
    }
  }

 private:
  RE2::Set set_;
  std::vector<std::unique_ptr<RE2>> res_;
};

}  // namespace

bool Matcher::hyperscan_available() {
  return hyperscan_built_in();
}

Expected<std::unique_ptr<Matcher>> Matcher::build(std::vector<Pattern> patterns, MatchEngine engine) {
  if (engine == MatchEngine::kHyperscan || (engine == MatchEngine::kDefault && hyperscan_built_in()))
    return build_hyperscan_matcher(std::move(patterns));
  auto m = std::make_unique<SetMatcher>();
  if (Status st = m->init(std::move(patterns)); !st) return st;
  return std::unique_ptr<Matcher>(std::move(m));
}

}  // namespace llmon::logwatch
