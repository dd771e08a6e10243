// Half-open time intervals [first, second): the union of a set as disjoint
// sorted intervals, and the length of the intersection of two such unions.
// The building blocks of the temporal breakdown and the overlap analysis. Pure.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace llmon::trace {

using Interval = std::pair<int64_t, int64_t>;

// The union of iv (any order) as disjoint intervals sorted by start; touching
// intervals are merged.
std::vector<Interval> merge_intervals(std::vector<Interval> iv);

// Total length of disjoint intervals.
int64_t total_length(const std::vector<Interval>& merged);

// Length of the intersection of two merged (disjoint, sorted) sets.
int64_t intersection_length(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace llmon::trace
