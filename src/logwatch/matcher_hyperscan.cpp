#include "logwatch/matcher_hyperscan.h"

#ifdef LLMON_HAVE_HYPERSCAN

#include <hs.h>
#include <re2/set.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "logwatch/hyperscan_expression.h"
#include "logwatch/pattern_re2.h"

namespace llmon::logwatch {
namespace {

constexpr unsigned kFlags = HS_FLAG_SINGLEMATCH | HS_FLAG_ALLOWEMPTY;

int on_match(unsigned int id, unsigned long long, unsigned long long, unsigned int, void* ctx) {
  static_cast<std::vector<unsigned>*>(ctx)->push_back(id);
  return 0;
}

class HyperscanMatcher final : public Matcher {
 public:
  ~HyperscanMatcher() override {
    for (hs_scratch_t* s : free_) hs_free_scratch(s);
    if (hs_scratch_t* s = fast_.load(); s != nullptr) hs_free_scratch(s);
    if (proto_ != nullptr) hs_free_scratch(proto_);
    if (db_ != nullptr) hs_free_database(db_);
  }

  Status init(std::vector<Pattern> patterns) {
    struct Candidate {
      std::string expr;
      unsigned flags = 0;
      unsigned id = 0;
    };
    std::vector<Candidate> cands;
    std::vector<size_t> rest;
    for (size_t i = 0; i < patterns.size(); ++i) {
      const Pattern& p = patterns[i];
      auto re = compile_pattern(p, i);
      if (!re) return re.status();
      res_.push_back(std::move(*re));
      auto expr = hyperscan_expression(p);
      if (!expr) {
        rest.push_back(i);
        continue;
      }
      cands.push_back(
          {std::move(*expr), kFlags | (p.case_insensitive ? HS_FLAG_CASELESS : 0u), static_cast<unsigned>(i)});
    }
    // One compilation when Hyperscan takes every pattern; each one it
    // rejects is tried again as a prefilter, then left to RE2.
    while (!cands.empty()) {
      std::vector<const char*> exprs;
      std::vector<unsigned> flags, ids;
      for (const Candidate& c : cands) {
        exprs.push_back(c.expr.c_str());
        flags.push_back(c.flags);
        ids.push_back(c.id);
      }
      hs_compile_error_t* err = nullptr;
      if (hs_compile_multi(exprs.data(), flags.data(), ids.data(), static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK,
                           nullptr, &db_, &err) == HS_SUCCESS)
        break;
      const int bad = err != nullptr ? err->expression : -1;
      if (err != nullptr) hs_free_compile_error(err);
      db_ = nullptr;
      if (bad < 0 || static_cast<size_t>(bad) >= cands.size()) {  // not one pattern's fault: all to RE2
        for (const Candidate& c : cands) rest.push_back(c.id);
        cands.clear();
      } else if ((cands[static_cast<size_t>(bad)].flags & HS_FLAG_PREFILTER) == 0) {
        cands[static_cast<size_t>(bad)].flags |= HS_FLAG_PREFILTER;
      } else {
        rest.push_back(cands[static_cast<size_t>(bad)].id);
        cands.erase(cands.begin() + bad);
      }
    }
    std::sort(rest.begin(), rest.end());
    if (db_ != nullptr && hs_alloc_scratch(db_, &proto_) != HS_SUCCESS)
      return Status::error("hyperscan: cannot allocate scratch space");
    if (!rest.empty()) {
      RE2::Options o;
      o.set_log_errors(false);
      o.set_encoding(RE2::Options::EncodingLatin1);
      rest_set_ = std::make_unique<RE2::Set>(o, RE2::UNANCHORED);
      for (size_t i : rest) {
        std::string err;
        if (rest_set_->Add(pattern_set_text(patterns[i]), &err) < 0)
          return Status::error("pattern " + std::to_string(i + 1) + " \"" + patterns[i].text + "\": " + err);
      }
      if (!rest_set_->Compile()) return Status::error("the patterns do not fit in memory together");
      rest_ = std::move(rest);
    }
    return Status::ok();
  }

  size_t size() const override { return res_.size(); }
  std::string_view engine() const override { return "hyperscan"; }
  size_t fallback_patterns() const override { return rest_.size(); }

  bool matches_none(std::string_view line) const override {
    std::vector<unsigned> hits;
    if (!scan(line, hits)) return false;  // the scan failed: let match() decide
    for (unsigned id : hits) {
      if (res_[id]->Match(re2::StringPiece(line.data(), line.size()), 0, line.size(), RE2::UNANCHORED, nullptr, 0))
        return false;
    }
    return rest_set_ == nullptr || !rest_set_->Match(re2::StringPiece(line.data(), line.size()), nullptr);
  }

  void match(std::string_view line, std::vector<Match>& out) const override {
    out.clear();
    std::vector<unsigned> hits;
    if (!scan(line, hits)) {  // the scan failed: every pattern by RE2
      hits.clear();
      for (size_t i = 0; i < res_.size(); ++i) hits.push_back(static_cast<unsigned>(i));
    }
    if (rest_set_ != nullptr) {
      std::vector<int> more;
      if (rest_set_->Match(re2::StringPiece(line.data(), line.size()), &more))
        for (int i : more) hits.push_back(static_cast<unsigned>(rest_[static_cast<size_t>(i)]));
    }
    if (hits.empty()) return;
    std::sort(hits.begin(), hits.end());
    hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
    for (unsigned id : hits) {
      Match m;
      m.pattern = id;
      if (match_groups(*res_[id], line, m)) out.push_back(std::move(m));
    }
  }

 private:
  // The ids Hyperscan reports for line; false when the scan failed.
  bool scan(std::string_view line, std::vector<unsigned>& hits) const {
    if (db_ == nullptr) return true;
    if (line.size() > 0xffffffffu) return false;
    hs_scratch_t* s = acquire();
    if (s == nullptr) return false;
    const hs_error_t rc = hs_scan(db_, line.data(), static_cast<unsigned>(line.size()), 0, s, on_match, &hits);
    release(s);
    return rc == HS_SUCCESS;
  }

  // A scratch space from the pool, or a new clone of the prototype (which
  // is never scanned with, so cloning needs no lock).
  hs_scratch_t* acquire() const {
    // The single-thread case (the watcher) takes the fast slot, lock-free.
    if (hs_scratch_t* s = fast_.exchange(nullptr, std::memory_order_acquire); s != nullptr) return s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        hs_scratch_t* s = free_.back();
        free_.pop_back();
        return s;
      }
    }
    hs_scratch_t* s = nullptr;
    return hs_clone_scratch(proto_, &s) == HS_SUCCESS ? s : nullptr;
  }

  void release(hs_scratch_t* s) const {
    hs_scratch_t* empty = nullptr;
    if (fast_.compare_exchange_strong(empty, s, std::memory_order_release)) return;
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(s);
  }

  hs_database_t* db_ = nullptr;
  hs_scratch_t* proto_ = nullptr;
  std::vector<std::unique_ptr<RE2>> res_;
  std::unique_ptr<RE2::Set> rest_set_;
  std::vector<size_t> rest_;
  mutable std::atomic<hs_scratch_t*> fast_{nullptr};
  mutable std::mutex mu_;
  mutable std::vector<hs_scratch_t*> free_;
};

}  // namespace

bool hyperscan_built_in() {
  return true;
}

Expected<std::unique_ptr<Matcher>> build_hyperscan_matcher(std::vector<Pattern> patterns) {
  auto m = std::make_unique<HyperscanMatcher>();
  if (Status st = m->init(std::move(patterns)); !st) return st;
  return std::unique_ptr<Matcher>(std::move(m));
}

}  // namespace llmon::logwatch

#else  // built without Hyperscan

namespace llmon::logwatch {

bool hyperscan_built_in() {
  return false;
}

Expected<std::unique_ptr<Matcher>> build_hyperscan_matcher(std::vector<Pattern>) {
  return Status::error("llmon was built without Hyperscan (LLMON_HYPERSCAN=OFF)");
}

}  // namespace llmon::logwatch

#endif
