// Target labels on scraped samples (ingest/target_labels.h), the cases
// Prometheus 2.42's mutateSampleLabels decides (the scrape differential
// test checks the same against a real Prometheus).
#include "ingest/target_labels.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llmon::ingest {
namespace {

using L = std::vector<model::Label>;

L applied(L pairs, const L& target, bool honor) {
  apply_target_labels(pairs, target, honor);
  std::erase_if(pairs, [](const model::Label& l) { return l.value.empty(); });
  std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return pairs;
}

const L kTarget{{"instance", "host:9091"}, {"job", "pushgateway"}};

TEST(TargetLabels, HonorKeepsExposedLabelsEvenEmptyOnes) {
  EXPECT_EQ(applied({{"job", "batch"}, {"instance", ""}}, kTarget, true), (L{{"job", "batch"}}));
  EXPECT_EQ(applied({{"job", "batch"}}, kTarget, true), (L{{"instance", "host:9091"}, {"job", "batch"}}));
  EXPECT_EQ(applied({{"job", ""}, {"instance", "i9"}}, kTarget, true), (L{{"instance", "i9"}}));
}

TEST(TargetLabels, WithoutHonorTargetLabelsWinAndDisplacedOnesAreExported) {
  EXPECT_EQ(applied({{"job", "batch"}, {"instance", ""}}, kTarget, false),
            (L{{"exported_job", "batch"}, {"instance", "host:9091"}, {"job", "pushgateway"}}));
  EXPECT_EQ(
      applied({{"job", "a"}, {"exported_job", "b"}}, kTarget, false),
      (L{{"exported_exported_job", "a"}, {"exported_job", "b"}, {"instance", "host:9091"}, {"job", "pushgateway"}}));
}

}  // namespace
}  // namespace llmon::ingest
