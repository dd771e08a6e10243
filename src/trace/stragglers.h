// Stragglers across the ranks of one job (issue 20; the idea of HTA's
// get_potential_stragglers, hta/analyzers/straggler.py: a rank whose
// communication kernels start late holds the others up, since a collective
// ends at about the same time everywhere). Each rank's COMMUNICATION kernels
// are matched across ranks by key and occurrence: the key is "Process Group
// Name/Collective name" when the kernel carries those args, else the kernel
// name; the n-th call of a key on one rank is the same collective as the n-th
// call of it on the others (collectives are issued in the same order on all
// ranks of a group). For each collective seen on at least two ranks: the rank
// whose kernel started last and by how much after the first, and likewise
// for the CPU launch calls of the kernels when every rank has one (a rank
// that launches late is a slow host; one that launches on time but starts
// late waits on its own GPU queue). Per rank: how often it was last and how
// late it was on average and at most. Times are
// compared as the traces give them (Kineto's clocks; ranks on different hosts
// are only as aligned as their clocks). Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llmon::trace {

inline constexpr int64_t kNoLaunch = INT64_MIN;

struct CollectiveCall {  // one COMMUNICATION kernel of a rank
  std::string key;
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  int64_t launch_ns = kNoLaunch;  // start of its CPU launch call (by correlation)
  int64_t in_nelems = -1;         // "In msg nelems"; -1: absent
};

struct RankCollectives {
  int64_t rank = 0;
  std::vector<CollectiveCall> calls;
};

struct LateCollective {
  std::string key;
  uint64_t occurrence = 0;  // 0-based: the n-th call of key on each rank
  size_t ranks = 0;         // ranks it was found on
  int64_t last_rank = 0;
  int64_t late_ns = 0;  // last start - first start
  int64_t first_ts_ns = 0;
  int64_t in_nelems = -1;         // message size, from the first rank's call that gives it
  int64_t last_launch_rank = -1;  // -1: some rank's call has no launch
  int64_t launch_late_ns = 0;     // last launch - first launch
};

struct RankLateness {
  int64_t rank = 0;
  uint64_t collectives = 0;  // matched collectives it took part in
  uint64_t last = 0;         // of them, those it started last (and strictly after another rank)
  int64_t late_sum_ns = 0;   // sum of (its start - the first start)
  int64_t late_max_ns = 0;
  uint64_t launched = 0;     // matched collectives with launches on every rank
  uint64_t launch_last = 0;  // of them, those it launched last (strictly after another rank)
  int64_t launch_late_sum_ns = 0;
  int64_t launch_late_max_ns = 0;
  double late_mean_ns() const { return collectives ? static_cast<double>(late_sum_ns) / collectives : 0; }
  double launch_late_mean_ns() const {
    return launched ? static_cast<double>(launch_late_sum_ns) / static_cast<double>(launched) : 0;
  }
};

struct StragglerReport {
  uint64_t collectives = 0;           // matched on >= 2 ranks
  std::vector<LateCollective> worst;  // largest late_ns first (then earliest, key, occurrence), at most `top`
  std::vector<RankLateness> ranks;    // by rank
};

StragglerReport find_stragglers(const std::vector<RankCollectives>& ranks, size_t top);

}  // namespace llmon::trace
