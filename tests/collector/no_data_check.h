// expect_no_data_without_files: the check every hardware collector's test
// makes, that on a tree without its files (no such hardware or kernel module)
// the collector reports node_exporter's "no data" and writes no series.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "collector/collector.h"
#include "temp_fixture.h"

namespace llmon::testing {

inline void expect_no_data_without_files(
    std::unique_ptr<collector::Collector> (*make)(const collector::CollectorContext&)) {
  TempFixture fx({});
  auto c = make(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  EXPECT_FALSE(s.is_ok());
  EXPECT_TRUE(s.is_no_data()) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace llmon::testing
