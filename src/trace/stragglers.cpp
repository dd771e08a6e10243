// stragglers.h.
#include "trace/stragglers.h"

#include <algorithm>
#include <map>

namespace llmon::trace {

namespace {

struct Start {
  size_t pos;  // index into ranks
  int64_t ts;
  int64_t launch;
  int64_t in_nelems;
};

// The first value, and the position holding the last one in *last_pos (ties:
// the lowest rank).
template <typename Get>
int64_t first_and_last(const std::vector<Start>& starts, const std::vector<RankCollectives>& ranks, Get get,
                       int64_t* last, size_t* last_pos) {
  int64_t first = INT64_MAX;
  *last = INT64_MIN;
  *last_pos = starts[0].pos;
  for (const Start& s : starts) {
    int64_t v = get(s);
    first = std::min(first, v);
    if (v > *last || (v == *last && ranks[s.pos].rank < ranks[*last_pos].rank)) {
      *last = v;
      *last_pos = s.pos;
    }
  }
  return first;
}

}  // namespace

StragglerReport find_stragglers(const std::vector<RankCollectives>& ranks, size_t top) {
  std::map<std::pair<std::string, uint64_t>, std::vector<Start>> inst;  // (key, occurrence)
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::vector<const CollectiveCall*> calls;
    for (const CollectiveCall& c : ranks[r].calls) calls.push_back(&c);
    std::stable_sort(calls.begin(), calls.end(),
                     [](const CollectiveCall* a, const CollectiveCall* b) { return a->ts_ns < b->ts_ns; });
    std::map<std::string, uint64_t> seen;
    for (const CollectiveCall* c : calls)
      inst[{c->key, seen[c->key]++}].push_back(Start{r, c->ts_ns, c->launch_ns, c->in_nelems});
  }
  StragglerReport rep;
  rep.ranks.resize(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) rep.ranks[r].rank = ranks[r].rank;
  std::vector<LateCollective> all;
  for (const auto& [id, starts] : inst) {
    if (starts.size() < 2) continue;
    ++rep.collectives;
    int64_t last = 0;
    size_t last_pos = 0;
    int64_t first = first_and_last(
        starts, ranks, [](const Start& s) { return s.ts; }, &last, &last_pos);
    for (const Start& s : starts) {
      RankLateness& l = rep.ranks[s.pos];
      ++l.collectives;
      l.late_sum_ns += s.ts - first;
      l.late_max_ns = std::max(l.late_max_ns, s.ts - first);
    }
    if (last > first) ++rep.ranks[last_pos].last;
    LateCollective c{id.first, id.second, starts.size(), ranks[last_pos].rank, last - first, first};
    for (const Start& s : starts)
      if (c.in_nelems < 0) c.in_nelems = s.in_nelems;
    if (std::all_of(starts.begin(), starts.end(), [](const Start& s) { return s.launch != kNoLaunch; })) {
      int64_t llast = 0;
      size_t lpos = 0;
      int64_t lfirst = first_and_last(
          starts, ranks, [](const Start& s) { return s.launch; }, &llast, &lpos);
      for (const Start& s : starts) {
        RankLateness& l = rep.ranks[s.pos];
        ++l.launched;
        l.launch_late_sum_ns += s.launch - lfirst;
        l.launch_late_max_ns = std::max(l.launch_late_max_ns, s.launch - lfirst);
      }
      if (llast > lfirst) ++rep.ranks[lpos].launch_last;
      c.last_launch_rank = ranks[lpos].rank;
      c.launch_late_ns = llast - lfirst;
    }
    all.push_back(std::move(c));
  }
  std::sort(all.begin(), all.end(), [](const LateCollective& a, const LateCollective& b) {
    if (a.late_ns != b.late_ns) return a.late_ns > b.late_ns;
    if (a.first_ts_ns != b.first_ts_ns) return a.first_ts_ns < b.first_ts_ns;
    return a.key != b.key ? a.key < b.key : a.occurrence < b.occurrence;
  });
  if (all.size() > top) all.resize(top);
  rep.worst = std::move(all);
  std::sort(rep.ranks.begin(), rep.ranks.end(),
            [](const RankLateness& a, const RankLateness& b) { return a.rank < b.rank; });
  return rep;
}

}  // namespace llmon::trace
