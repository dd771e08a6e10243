#include "tsdb/index.h"

#include <re2/re2.h>

#include <algorithm>
#include <functional>
#include <memory>

namespace llmon::tsdb {

namespace {

const Postings kEmpty;

// Heap bytes a series adds: its label strings, the by_ref/by_hash nodes
// (estimated at 64 bytes each) and one postings entry per pair plus `all`.
size_t series_bytes(const Labels& labels) {
  size_t n = 2 * 64 + sizeof(Labels) + sizeof(SeriesRef) * (labels.size() + 2);
  for (const auto& p : labels.pairs()) n += sizeof(model::Label) + p.name.size() + p.value.size();
  return n;
}

}  // namespace

SeriesRef Index::find(const Labels& labels) const {
  auto it = by_hash_.find(labels.hash());
  if (it == by_hash_.end()) return 0;
  for (SeriesRef ref : it->second) {
    auto s = by_ref_.find(ref);
    if (s != by_ref_.end() && s->second == labels) return ref;
  }
  return 0;
}

void Index::add(SeriesRef ref, Labels labels) {
  by_hash_[labels.hash()].push_back(ref);
  for (const auto& p : labels.pairs()) {
    auto n = postings_.find(p.name);
    if (n == postings_.end()) n = postings_.emplace(p.name, ValueMap{}).first;
    auto v = n->second.find(p.value);
    if (v == n->second.end()) {
      v = n->second.emplace(p.value, Postings{}).first;
      bytes_ += 64 + p.name.size() + p.value.size();  // new value node
    }
    v->second.push_back(ref);
  }
  all_.push_back(ref);
  bytes_ += series_bytes(labels);
  by_ref_.emplace(ref, std::move(labels));
}

void Index::remove(const std::vector<SeriesRef>& refs) {
  if (refs.empty()) return;
  Postings gone;
  for (SeriesRef ref : refs) {
    auto it = by_ref_.find(ref);
    if (it == by_ref_.end()) continue;
    gone.push_back(ref);
  }
  std::sort(gone.begin(), gone.end());
  gone.erase(std::unique(gone.begin(), gone.end()), gone.end());
  for (SeriesRef ref : gone) {
    auto it = by_ref_.find(ref);
    const Labels& labels = it->second;
    auto h = by_hash_.find(labels.hash());
    std::erase(h->second, ref);
    if (h->second.empty()) by_hash_.erase(h);
    for (const auto& p : labels.pairs()) {
      auto n = postings_.find(p.name);
      auto v = n->second.find(p.value);
      auto& list = v->second;
      auto pos = std::lower_bound(list.begin(), list.end(), ref);
      if (pos != list.end() && *pos == ref) list.erase(pos);
      if (list.empty()) {
        bytes_ -= 64 + p.name.size() + p.value.size();
        n->second.erase(v);
        if (n->second.empty()) postings_.erase(n);
      }
    }
    bytes_ -= series_bytes(labels);
    by_ref_.erase(it);
  }
  all_ = subtract(all_, gone);
}

const Labels* Index::labels(SeriesRef ref) const {
  auto it = by_ref_.find(ref);
  return it == by_ref_.end() ? nullptr : &it->second;
}

const Postings& Index::postings(std::string_view name, std::string_view value) const {
  auto n = postings_.find(name);
  if (n == postings_.end()) return kEmpty;
  auto v = n->second.find(value);
  return v == n->second.end() ? kEmpty : v->second;
}

std::vector<std::string> Index::label_names() const {
  std::vector<std::string> out;
  out.reserve(postings_.size());
  for (const auto& [name, values] : postings_) out.push_back(name);
  return out;
}

std::vector<std::string> Index::label_values(std::string_view name) const {
  std::vector<std::string> out;
  auto n = postings_.find(name);
  if (n == postings_.end()) return out;
  out.reserve(n->second.size());
  for (const auto& [value, list] : n->second) out.push_back(value);
  return out;
}

Expected<Postings> Index::select_one(const Matcher& m) const {
  if (m.name.empty()) return Status::error("matcher with an empty label name");
  // Eq with a value: one postings list, the common case.
  if (m.type == Matcher::Type::kEq && !m.value.empty()) return postings(m.name, m.value);

  std::function<bool(std::string_view)> match;
  std::unique_ptr<re2::RE2> re;
  switch (m.type) {
    case Matcher::Type::kEq:
      match = [&](std::string_view v) { return v == m.value; };
      break;
    case Matcher::Type::kNeq:
      match = [&](std::string_view v) { return v != m.value; };
      break;
    case Matcher::Type::kRe:
    case Matcher::Type::kNre: {
      // Fully anchored, as PromQL: ^(?:re)$ (RE2 has Go's regexp syntax).
      re2::RE2::Options opt;
      opt.set_log_errors(false);
      re = std::make_unique<re2::RE2>("^(?:" + m.value + ")$", opt);
      if (!re->ok())
        return Status::error("invalid regular expression for label " + m.name + ": \"" + m.value + "\": " + re->error());
      bool want = m.type == Matcher::Type::kRe;
      match = [&re, want](std::string_view v) {
        return re2::RE2::FullMatch(re2::StringPiece(v.data(), v.size()), *re) == want;
      };
      break;
    }
  }
  // Series without the label have the value "": if the matcher accepts "", the
  // result is everything except series whose (present) value is rejected.
  bool empty_matches = match("");
  std::vector<const Postings*> lists;
  auto n = postings_.find(m.name);
  if (n != postings_.end()) {
    for (const auto& [value, list] : n->second) {
      if (match(value) != empty_matches) lists.push_back(&list);
    }
  }
  Postings selected = merge(lists);
  return empty_matches ? subtract(all_, selected) : selected;
}

Expected<Postings> Index::select(const std::vector<Matcher>& matchers) const {
  if (matchers.empty()) return Status::error("select needs at least one matcher");
  Postings out;
  for (size_t i = 0; i < matchers.size(); ++i) {
    auto p = select_one(matchers[i]);
    if (!p) return p.status();
    out = i == 0 ? std::move(*p) : intersect(out, *p);
  }
  return out;
}

Postings intersect(const Postings& a, const Postings& b) {
  Postings out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

Postings subtract(const Postings& a, const Postings& b) {
  Postings out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

Postings merge(const std::vector<const Postings*>& lists) {
  if (lists.empty()) return {};
  if (lists.size() == 1) return *lists[0];
  size_t total = 0;
  for (const auto* l : lists) total += l->size();
  Postings out;
  out.reserve(total);
  for (const auto* l : lists) out.insert(out.end(), l->begin(), l->end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace llmon::tsdb
