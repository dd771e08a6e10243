// Helpers for collector tests: a CollectorContext on the fixture tree with
// every collector option at the flag table's default, and one collection
// into a Snapshot.
#pragma once

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "collector/collector.h"
#include "collector/options.h"
#include "config/flags.h"
#include "model/snapshot_builder.h"
#include "support/test_paths.h"

namespace llmon::testing {

inline collector::CollectorContext fixture_context() {
  collector::CollectorContext ctx;
  ctx.fs.proc_root = fixture("proc");
  ctx.fs.sys_root = fixture("sys");
  ctx.fs.root = fixture("rootfs");
  for (const base::FlagRef& f : collector::flag::kAll) ctx.set_option(f, config::find_flag(f.name)->default_value);
  ctx.set_option(collector::flag::kPathUdevData, fixture("udev/data"));
  return ctx;
}

inline Status collect_once(collector::Collector& c, model::Snapshot& snap, int64_t ts_ms = 1000) {
  model::SnapshotBuilder b(snap, ts_ms);
  Status s = c.collect(b);
  b.finish();
  return s;
}

// Value of one series, or NaN when it is absent.
inline double value_of(const model::Snapshot& snap, std::string_view name,
                       std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  const model::Series* s = snap.find_series(name, labels);
  return s ? s->value : std::numeric_limits<double>::quiet_NaN();
}

// Families whose name starts with prefix and that have at least one series.
inline size_t families_with_prefix(const model::Snapshot& snap, std::string_view prefix) {
  size_t n = 0;
  for (const auto& f : snap.families)
    if (f.name.rfind(prefix, 0) == 0 && !f.series.empty()) ++n;
  return n;
}

// Checks a family's type and help text (gtest failures, no abort).
inline void expect_family(const model::Snapshot& snap, std::string_view name, model::MetricType type,
                          std::string_view help) {
  const model::Family* f = snap.find(name);
  ASSERT_NE(f, nullptr) << name;
  EXPECT_EQ(f->type, type) << name;
  EXPECT_EQ(f->help, help) << name;
}

inline size_t series_count(const model::Snapshot& snap, std::string_view name) {
  size_t n = 0;
  for (const auto& f : snap.families)
    if (f.name == name) n += f.series.size();
  return n;
}

}  // namespace llmon::testing
