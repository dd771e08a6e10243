// stragglers.h.
#include "trace/stragglers.h"

#include <algorithm>
#include <map>

namespace llmon::trace {

StragglerReport find_stragglers(const std::vector<RankCollectives>& ranks, size_t top) {
  // (key, occurrence) -> (rank position, start)
  std::map<std::pair<std::string, uint64_t>, std::vector<std::pair<size_t, int64_t>>> inst;
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::vector<const CollectiveCall*> calls;
    for (const CollectiveCall& c : ranks[r].calls) calls.push_back(&c);
    std::stable_sort(calls.begin(), calls.end(),
                     [](const CollectiveCall* a, const CollectiveCall* b) { return a->ts_ns < b->ts_ns; });
    std::map<std::string, uint64_t> seen;
    for (const CollectiveCall* c : calls) inst[{c->key, seen[c->key]++}].emplace_back(r, c->ts_ns);
  }
  StragglerReport rep;
  rep.ranks.resize(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) rep.ranks[r].rank = ranks[r].rank;
  std::vector<LateCollective> all;
  for (const auto& [id, starts] : inst) {
    if (starts.size() < 2) continue;
    ++rep.collectives;
    int64_t first = INT64_MAX, last = INT64_MIN;
    size_t last_pos = 0;
    for (const auto& [pos, ts] : starts) {
      first = std::min(first, ts);
      if (ts > last || (ts == last && ranks[pos].rank < ranks[last_pos].rank)) {
        last = ts;
        last_pos = pos;
      }
    }
    for (const auto& [pos, ts] : starts) {
      RankLateness& l = rep.ranks[pos];
      ++l.collectives;
      l.late_sum_ns += ts - first;
      l.late_max_ns = std::max(l.late_max_ns, ts - first);
    }
    if (last > first) ++rep.ranks[last_pos].last;
    all.push_back(LateCollective{id.first, id.second, starts.size(), ranks[last_pos].rank, last - first, first});
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
